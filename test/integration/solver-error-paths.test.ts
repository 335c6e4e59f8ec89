import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { BOX_LP } from "../support/models.js";

/**
 * Issue 25: solver errors echoed the worker's temporary paths. A `glpsol` that fails as GLPK does on a
 * file it cannot read (it names the file, `/tmp/incumbent-glpk-…/problem.mps:4: …`) stands first on PATH;
 * what the toolkit hands back — the error and the live log — names the file, not where it was.
 */
describe("solver error texts without server paths", () => {
  let shim: string;
  const savedPath = process.env.PATH;

  beforeAll(() => {
    shim = mkdtempSync(path.join(tmpdir(), "incumbent-glpsol-shim-"));
    const script = [
      "#!/bin/sh",
      'case "$*" in *--version*) echo "GLPSOL--GLPK LP/MIP Solver 5.0"; exit 0;; esac',
      'for a in "$@"; do case "$a" in /*.mps|/*.lp) echo "Reading problem data from \'$a\'..."; echo "$a:4: missing COLUMNS indicator record"; break;; esac; done',
      'echo "MPS file processing error (cwd $(pwd))"',
      "exit 1",
    ].join("\n");
    writeFileSync(path.join(shim, "glpsol"), `${script}\n`);
    chmodSync(path.join(shim, "glpsol"), 0o755);
    process.env.PATH = `${shim}${path.delimiter}${savedPath}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(shim, { recursive: true, force: true });
  });

  it("names the file, never the temporary folder, in the error and in the log lines", async () => {
    const toolkit = await createSolverToolkit(loadConfig({}), { warm: false });
    try {
      const lines: string[] = [];
      const result = await toolkit.solve("glpk", {
        problem: ProblemSchema.parse(BOX_LP),
        settings: { timeLimitSeconds: 30, gapTolerance: 1e-4, threads: 1 },
        killGraceSeconds: 2,
        progress: { point: () => undefined, line: (l) => void lines.push(l) },
      });
      expect(result.solver_status).toBe("error");
      expect(result.error_message).toMatch(/'\.\/[\w-]+\.(mps|lp)'\.\.\. \| \.\/[\w-]+\.(mps|lp):4: missing COLUMNS/);
      const everything = [result.error_message!, ...lines].join("\n");
      expect(everything).not.toContain(tmpdir());
      expect(everything).not.toMatch(/incumbent-glpk-/);
      expect(everything).not.toMatch(/(^|[\s'"(])\/[^\s/]+\/[^\s]/m);
    } finally {
      await toolkit.close();
    }
  });
});
