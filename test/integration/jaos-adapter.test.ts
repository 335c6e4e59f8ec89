import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { checkSolution } from "../../functions/core/solvers/checker.js";
import type { SolveSettings } from "../../functions/core/solvers/types.js";
import { createJaosAdapter } from "../../solver-container/src/adapters/jaos.js";
import { ODD_NAMES_MILP } from "../support/models.js";

const workDir = mkdtempSync(path.join(tmpdir(), "jaos-adapter-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 30, gapTolerance: 1e-4, threads: 2, ...overrides });
const context = { workDir, killGraceSeconds: 5 };

/** max 3x + 2y + 1 over names a file format must escape: optimum 16 at x = 5, y = 0 (test/support/models.ts). */
const smallMilp = ProblemSchema.parse(ODD_NAMES_MILP);

describe("jaos adapter (Node child under the kill switch)", () => {
  const adapter = createJaosAdapter();

  it("is available and names its version from the package", async () => {
    const probe = await adapter.probe();
    expect(probe.available).toBe(true);
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
    expect(probe.version).toBe(`jaos ${pkg.version}`);
  });

  it("solves in a child and returns a checked, normalised row", async () => {
    const r = await adapter.solve(smallMilp, settings(), context);
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBe(16);
    expect(r.gap).toBe(0);
    expect(r.solution).toEqual({ "x[1] a": 5, y: 0 });
    expect(checkSolution(smallMilp, r.solution!, { objective: r.objective_value })).toEqual([]);
    expect(r.settings_applied).toEqual({ time_limit: 30, mip_rel_gap: 1e-4, threads: 1 });
    expect(r.wall_time_ms).toBeGreaterThan(0);
    expect(r.solver_version).toMatch(/^jaos /);
  }, 30_000);

  it("refuses quadratic terms", async () => {
    const qp = ProblemSchema.parse({ variables: [{ name: "x" }], objective: { terms: [], quadratic: [{ var1: "x", var2: "x", coef: 1 }] } });
    const r = await adapter.solve(qp, settings(), context);
    expect(r.solver_status).toBe("error");
    expect(r.error_message).toMatch(/quadratic/);
  });

  it("stops at its own time limit with the best found", async () => {
    // market split (Cornuéjols–Dawande): equality knapsacks that branch and bound cannot close in 2 s
    const n = 40;
    const rows = 5; // jaos needs far more than 30 s on it
    const constraints = Array.from({ length: rows }, (_, i) => {
      const coefs = Array.from({ length: n }, (_, j) => 1 + ((j * 37 + i * 53 + j * j * 11 + i * j * 7) % 97));
      const rhs = Math.floor(coefs.reduce((s, c) => s + c, 0) / 2);
      return {
        name: `r${i}`,
        terms: [...coefs.map((c, j) => ({ var: `x${j}`, coef: c })), { var: `s${i}`, coef: 1 }, { var: `t${i}`, coef: -1 }],
        lb: rhs,
        ub: rhs,
      };
    });
    const slacks = Array.from({ length: rows }, (_, i) => [`s${i}`, `t${i}`]).flat();
    const split = ProblemSchema.parse({
      variables: [...Array.from({ length: n }, (_, j) => ({ name: `x${j}`, type: "binary" })), ...slacks.map((name) => ({ name }))],
      objective: { terms: slacks.map((name) => ({ var: name, coef: 1 })) },
      constraints,
    });
    const r = await adapter.solve(split, settings({ timeLimitSeconds: 2, gapTolerance: 0 }), context);
    expect(r.solver_status).toBe("time_limit");
    expect(r.error_message).toBeNull(); // stopped by itself, not by the kill switch (which says so)
    if (r.solution) expect(checkSolution(split, r.solution, { objective: r.objective_value })).toEqual([]);
    if (r.objective_value !== null) expect(r.dual_bound!).toBeLessThanOrEqual(r.objective_value + 1e-9);
    expect(r.nodes!).toBeGreaterThan(0);
  }, 30_000);
});
