import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { solveJaos } from "../../../../../functions/core/solvers/jaos/index.js";
import type { Infeasibility, SolveSettings } from "../../../../../functions/core/solvers/types.js";
import { explaining } from "../../../../../solver-container/src/adapters/explain.js";
import type { AdapterResult, SolverAdapter } from "../../../../../solver-container/src/adapters/types.js";
import { problem } from "../../../../support/jaos.js";

/** An adapter over jaos in this process that counts its solves and may bring an IIS of its own. */
function fakeAdapter(name: "cbc" | "highs", own?: Infeasibility): SolverAdapter & { solves: number } {
  const adapter = {
    name,
    solves: 0,
    async probe() {
      return { available: true, version: "fake" };
    },
    async solve(p: Problem, settings: SolveSettings): Promise<AdapterResult> {
      adapter.solves++;
      const r = solveJaos(p, { timeLimitSeconds: settings.timeLimitSeconds, gapTolerance: settings.gapTolerance });
      const { stats: _stats, ...row } = r;
      return { ...row, settings_applied: null, ...(own && r.solver_status === "infeasible" ? { infeasibility: own } : {}) };
    },
  };
  return adapter;
}

/** x + y ≥ 5 with x ≤ 1, y ≤ 1: the IIS is the row and both upper bounds; `n` is integer in the MILP. */
const conflict = (integer: boolean) =>
  problem({
    variables: [
      { name: "x", ub: 1 },
      { name: "y", ub: 1 },
      { name: "n", type: integer ? "integer" : "continuous", ub: 9 },
    ],
    constraints: [
      {
        name: "demand",
        lb: 5,
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
      },
      { name: "spare", ub: 4, terms: [{ var: "n", coef: 1 }] },
    ],
  });

const workDir = mkdtempSync(path.join(tmpdir(), "incumbent-explain-unit-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const context = { workDir, killGraceSeconds: 1 };
const settings = { timeLimitSeconds: 10, gapTolerance: 1e-6, threads: 1, explainInfeasibility: true };

describe("explaining adapters", () => {
  it("leaves a result alone unless asked, and answers infeasibility: null for a verdict other than infeasible", async () => {
    const cbc = explaining(fakeAdapter("cbc"), { nativeHighs: async () => null });
    expect((await cbc.solve(conflict(false), { ...settings, explainInfeasibility: false }, context)).infeasibility).toBeUndefined();
    const feasible = problem({ variables: [{ name: "x", ub: 1 }], constraints: [] });
    expect((await cbc.solve(feasible, settings, context)).infeasibility).toBeNull();
  });

  it("filters an LP with the solver that proved it, and the checker re-solves with native HiGHS", async () => {
    const cbc = fakeAdapter("cbc");
    const highs = fakeAdapter("highs");
    const r = await explaining(cbc, { nativeHighs: async () => highs }).solve(conflict(false), settings, context);
    expect(r.infeasibility).toMatchObject({
      method: "deletion_filter",
      irreducible: true,
      verified: true,
      constraints: [{ name: "demand" }],
      variable_bounds: [
        { variable: "x", bound: "upper" },
        { variable: "y", bound: "upper" },
      ],
    });
    expect(cbc.solves).toBeGreaterThan(1);
    // Verification: the subset, then each of its three members removed.
    expect(highs.solves).toBe(4);
  });

  it("filters a MILP with native HiGHS when the worker has it", async () => {
    const cbc = fakeAdapter("cbc");
    const highs = fakeAdapter("highs");
    const r = await explaining(cbc, { nativeHighs: async () => highs }).solve(conflict(true), settings, context);
    expect(r.infeasibility).toMatchObject({ method: "deletion_filter", irreducible: true, verified: true });
    expect(cbc.solves).toBe(1);
  });

  it("keeps a solver's IIS that a re-solve contradicts, marked verified: false", async () => {
    const wrong: Infeasibility = { constraints: [{ name: "spare" }], variable_bounds: [], method: "solver_iis", irreducible: true, verified: null };
    const r = await explaining(fakeAdapter("highs", wrong), { nativeHighs: async () => null }).solve(conflict(false), settings, context);
    expect(r.infeasibility).toMatchObject({ constraints: [{ name: "spare" }], method: "solver_iis", verified: false });
  });
});
