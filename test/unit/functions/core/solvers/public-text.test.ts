import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutServerPaths, workerErrorText } from "../../../../../functions/core/solvers/public-text.js";

describe("solver and worker text without server paths", () => {
  it("turns what CBC, GLPK and Python printed into the files' names", () => {
    // Captured from glpsol 5.0 and cbc 2.10 on this machine, and a Python traceback's shape.
    expect(withoutServerPaths("/tmp/incumbent-glpk-Xy12/problem.mps:4: missing COLUMNS indicator record")).toBe(
      "problem.mps:4: missing COLUMNS indicator record",
    );
    expect(withoutServerPaths("No match for /tmp/incumbent-cbc-Xy12/sol.txt - ? for list of commands")).toBe("No match for sol.txt - ? for list of commands");
    expect(withoutServerPaths('File "/app/solver-container/python/host.py", line 42, in solve')).toBe('File "host.py", line 42, in solve');
    expect(withoutServerPaths("open '/home/runner/.cache/x/y' failed; cwd /srv/app/checkout/")).toBe("open 'y' failed; cwd …/");
    expect(workerErrorText(new Error("ENOENT: no such file or directory, open '/tmp/incumbent-cbc-1/p.sol'"))).toBe(
      "worker error: ENOENT: no such file or directory, open 'p.sol'",
    );
  });

  it("writes the solve's own folder as `.`, so not even its name shows", () => {
    const dir = "/tmp/incumbent-cbc-Xy12";
    expect(withoutServerPaths(`No match for ${dir}/sol.txt (cwd ${dir})`, [dir])).toBe("No match for ./sol.txt (cwd .)");
  });

  it("leaves text that holds no absolute path as it is: ratios, relative paths, URLs, one-segment names", () => {
    for (const text of ["gap 1/2 of 3/4", "see a/b/c.txt", "https://example.com/docs/x", "exit 1: /dev", "ratio x/y/z", "~/notes/a.txt", "time 0.5/1.0 s"]) {
      expect(withoutServerPaths(text)).toBe(text);
    }
  });

  it("removes every absolute path and keeps the rest of the text (generated)", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_.+-]{1,8}$/).filter((s) => s !== "." && s !== "..");
    const path = fc.array(segment, { minLength: 2, maxLength: 5 }).map((parts) => `/${parts.join("/")}`);
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,6}$/);
    const piece = fc.oneof(
      word.map((w) => ({ text: w, path: false })),
      path.map((p) => ({ text: p, path: true })),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom(" ", "\n", ": ", " '", '"', "("), (pieces, sep) => {
        const text = pieces.map((p) => p.text).join(sep);
        const out = withoutServerPaths(text);
        const expected = pieces.map((p) => (p.path ? p.text.slice(p.text.lastIndexOf("/") + 1) : p.text)).join(sep);
        expect(out).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
