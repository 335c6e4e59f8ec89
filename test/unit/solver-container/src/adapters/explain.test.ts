import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasIntegers, hasOpenIntegerColumn, type Problem } from "../../../../../functions/core/problem/schema.js";
import { solveJaos } from "../../../../../functions/core/solvers/jaos-engine.js";
import { VERDICT_UNCONFIRMED } from "../../../../../functions/core/solvers/iis/index.js";
import { emptyResult, type Infeasibility, InfeasibilitySchema, type SolverName, type SolveSettings } from "../../../../../functions/core/solvers/types.js";
import { explaining } from "../../../../../solver-container/src/adapters/explain.js";
import type { AdapterResult, SolverAdapter } from "../../../../../solver-container/src/adapters/types.js";
import { problem } from "../../../../support/jaos.js";

/**
 * An adapter over jaos in this process that counts its solves and may bring an IIS of its own. A `lying`
 * one answers `infeasible` on the model it is given (never on the explanation's subsystems): a false
 * verdict, as jaos's on a big-M row or CBC's at M ≥ 1e8.
 */
function fakeAdapter(name: SolverName, own?: Infeasibility, options: { lying?: boolean } = {}): SolverAdapter & { solves: number; seen: Problem[] } {
  const adapter = {
    name,
    solves: 0,
    seen: [] as Problem[],
    async probe() {
      return { available: true, version: "fake" };
    },
    async solve(p: Problem, settings: SolveSettings): Promise<AdapterResult> {
      adapter.solves++;
      adapter.seen.push(p);
      if (options.lying && !p.name.endsWith("-subsystem"))
        return { ...emptyResult("infeasible"), settings_applied: null, ...(own ? { infeasibility: own } : {}) };
      const r = solveJaos(p, { timeLimitSeconds: settings.timeLimitSeconds, gapTolerance: settings.gapTolerance });
      const { stats: _stats, ...row } = r;
      return { ...row, settings_applied: null, ...(own && r.solver_status === "infeasible" ? { infeasibility: own } : {}) };
    },
  };
  return adapter;
}

/** min 100x + y, y − 1e7·x ≤ 0, y ≥ 5, x binary: feasible, optimum 105 (issue 24's false `infeasible`). */
const bigM = (integer: boolean) =>
  problem({
    objective: {
      constant: 0,
      terms: [
        { var: "x", coef: 100 },
        { var: "y", coef: 1 },
      ],
    },
    variables: [
      { name: "x", type: integer ? "binary" : "continuous", ub: 1 },
      { name: "y", lb: 5 },
    ],
    constraints: [
      {
        name: "link",
        ub: 0,
        terms: [
          { var: "y", coef: 1 },
          { var: "x", coef: -1e7 },
        ],
      },
    ],
  });

const solverIis = (constraints: string[], irreducible = true): Infeasibility => ({
  constraints: constraints.map((name) => ({ name })),
  variable_bounds: [],
  method: "solver_iis",
  irreducible,
  verified: null,
  verdict_check: VERDICT_UNCONFIRMED,
});

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

  it("filters a MILP with native HiGHS when the worker has it; a subsystem with a free integer column goes to the proving solver first", async () => {
    const cbc = fakeAdapter("cbc");
    const highs = fakeAdapter("highs");
    const r = await explaining(cbc, { nativeHighs: async () => highs }).solve(conflict(true), settings, context);
    expect(r.infeasibility).toMatchObject({ method: "deletion_filter", irreducible: true, verified: true });
    // The model itself, then only subsystems in which the filter dropped a bound of the integer `n`.
    const [whole, ...subsystems] = cbc.seen;
    expect(whole?.name.endsWith("-subsystem")).toBe(false);
    expect(subsystems.length).toBeGreaterThan(0);
    for (const s of subsystems) expect(hasOpenIntegerColumn(s)).toBe(true);
    // Native HiGHS took every subsystem whose integers are all bounded.
    expect(highs.seen.some((s) => !hasOpenIntegerColumn(s) && hasIntegers(s))).toBe(true);
  });

  it("keeps a solver's IIS that a re-solve shows feasible, marked verified: false and not irreducible; the whole model's re-solve confirms the verdict", async () => {
    const r = await explaining(fakeAdapter("highs", solverIis(["spare"])), { nativeHighs: async () => null }).solve(conflict(false), settings, context);
    expect(r.infeasibility).toMatchObject({
      constraints: [{ name: "spare" }],
      method: "solver_iis",
      irreducible: false,
      verified: false,
      verdict_check: { status: "confirmed", solver: "highs" },
    });
  });

  it("says the verdict was confirmed, and by whom, on a true infeasibility", async () => {
    const highs = fakeAdapter("highs");
    const r = await explaining(fakeAdapter("cbc"), { nativeHighs: async () => highs }).solve(conflict(true), settings, context);
    expect(r.infeasibility?.verdict_check).toMatchObject({ status: "confirmed", solver: "highs" });
    expect(InfeasibilitySchema.strict().parse(r.infeasibility)).toEqual(r.infeasibility);
  });

  it("refutes a false infeasible verdict on a MILP: native HiGHS's point of the whole model; no members, not irreducible (issue 24)", async () => {
    const liar = fakeAdapter("jaos", undefined, { lying: true });
    const highs = fakeAdapter("highs");
    const r = await explaining(liar, { nativeHighs: async () => highs }).solve(bigM(true), settings, context);
    expect(r.solver_status).toBe("infeasible");
    expect(r.infeasibility).toMatchObject({
      constraints: [],
      variable_bounds: [],
      irreducible: false,
      verified: false,
      verdict_check: { status: "refuted", solver: "highs" },
    });
    // The filter's first re-solve, of the whole model, ended it.
    expect(liar.solves).toBe(1);
    expect(highs.solves).toBe(1);
  });

  it("refutes a false infeasible verdict on an LP with the solver's own re-solve when the worker has no native HiGHS", async () => {
    const liar = fakeAdapter("cbc", undefined, { lying: true });
    const r = await explaining(liar, { nativeHighs: async () => null }).solve(bigM(false), settings, context);
    expect(r.infeasibility).toMatchObject({ constraints: [], variable_bounds: [], irreducible: false, verdict_check: { status: "refuted", solver: "cbc" } });
  });

  it("refutes a false verdict that came with the solver's own IIS: the checker's re-solves find the subset, then the model, feasible", async () => {
    const liar = fakeAdapter("highs", solverIis(["link"]), { lying: true });
    const r = await explaining(liar, { nativeHighs: async () => null }).solve(bigM(false), settings, context);
    expect(r.infeasibility).toMatchObject({ constraints: [], irreducible: false, verified: false, verdict_check: { status: "refuted", solver: "highs" } });
  });

  it("takes the refutation a Node child's own filter brought (its re-solve found a point) and names the adapter's solver", async () => {
    const own: Infeasibility = {
      ...solverIis([], false),
      method: "deletion_filter",
      verified: false,
      verdict_check: { status: "refuted", solver: null, message: "the solver's re-solve found a point of the whole model" },
    };
    const highs = fakeAdapter("highs");
    const r = await explaining(fakeAdapter("jaos", own, { lying: true }), { nativeHighs: async () => highs }).solve(bigM(false), settings, context);
    expect(r.infeasibility).toMatchObject({ constraints: [], irreducible: false, verdict_check: { status: "refuted", solver: "jaos" } });
    expect(highs.solves).toBe(0);
  });

  it("never accepts an empty solver IIS (SCIP's on 2a + 2b = 3): the deletion filter finds the conflict instead", async () => {
    const scip = fakeAdapter("scip", solverIis([]));
    const r = await explaining(scip, { nativeHighs: async () => null }).solve(conflict(true), settings, context);
    expect(r.infeasibility).toMatchObject({
      method: "deletion_filter",
      irreducible: true,
      verified: true,
      constraints: [{ name: "demand" }],
      variable_bounds: [
        { variable: "x", bound: "upper" },
        { variable: "y", bound: "upper" },
      ],
      verdict_check: { status: "confirmed", solver: "scip" },
    });
  });

  it("starts over from the whole model when the filter finds SCIP's IIS feasible", async () => {
    const scip = fakeAdapter("scip", solverIis(["spare"]));
    const r = await explaining(scip, { nativeHighs: async () => null }).solve(conflict(true), settings, context);
    expect(r.infeasibility).toMatchObject({ method: "deletion_filter", irreducible: true, verified: true, constraints: [{ name: "demand" }] });
  });
});
