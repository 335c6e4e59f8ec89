import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";

/** The README's configuration table names every setting config.ts reads, so the two cannot drift. */
describe("README configuration table", () => {
  it("documents every environment variable functions/core/config.ts reads", () => {
    const source = readFileSync(path.join(REPO_ROOT, "functions/core/config.ts"), "utf8");
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const direct = [...source.matchAll(/(?:num|str|bool|list)\(env, "([A-Z0-9_]+)"/g)].map((m) => m[1]!);
    const windows = [...source.matchAll(/window\(env, "([A-Z0-9_]+)"/g)].map((m) => m[1]!);
    const names = [...direct, ...windows.map((w) => `${w}_PER_MINUTE`)];
    expect(names.length).toBeGreaterThan(40);
    // A per-day twin is written beside its per-minute setting: "`X_PER_MINUTE` / `_PER_DAY`".
    const documented = (n: string) =>
      readme.includes(n) || (n.endsWith("_PER_DAY") && readme.includes(`${n.replace(/_PER_DAY$/, "_PER_MINUTE")}\` / \`_PER_DAY`));
    const missing = names.filter((n) => !documented(n));
    expect(missing).toEqual([]);
  });
});
