import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Problem, ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import { emptyResult, type SolverName, type SolveSettings, type SolverResult } from "../../../../../functions/core/solvers/types.js";
import { type GateInput, verifiedSolve, verifyResult } from "../../../../../functions/core/solvers/verification.js";

/**
 * The gate's reading of a reported point where a solver's own tolerance is relative to a row's big
 * terms (issue 24's numerics suite found these): an indicator row `x − M·y ≥ L − M` at y = 1 holds for a
 * solver with x as low as L − 1e-6·M; the model asks x ≥ L. Integer columns hold integers in a reported
 * point, so their big terms are exact and buy no room: the row is scaled by its continuous part.
 */

const settings: SolveSettings = { timeLimitSeconds: 10, gapTolerance: 1e-9, threads: 1 };

/** max y; on: x − M·y ≥ L − M (y = 1 forces x ≥ L); x ≤ cap. Optimum 1 when cap ≥ L, else 0. */
const indicator = (M: number, L: number, cap: number): Problem =>
  ProblemSchema.parse({
    name: "indicator",
    sense: "maximize",
    variables: [
      { name: "x", lb: 0, ub: cap },
      { name: "y", type: "binary" },
    ],
    objective: { terms: [{ var: "y", coef: 1 }] },
    constraints: [
      {
        name: "on",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: -M },
        ],
        lb: L - M,
      },
    ],
  });

const answer = (status: SolverResult["solver_status"], fields: Partial<SolverResult> = {}): GateInput => ({ ...emptyResult(status), ...fields });

describe("the gate's row reading: integer columns' big terms buy no room", () => {
  it("a bonus taken within a tolerance relative to M is violated, naming the row; the point the model allows is verified (generated M, L)", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e3, max: 1e9, noNaN: true }), fc.integer({ min: 1, max: 50 }), (M, L) => {
        // x short of L by 1: within 1e-6·M of the side for M ≥ 1e6, a full unit off what y = 1 demands.
        const short = verifyResult(indicator(M, L, L - 1), answer("optimal", { objective_value: 1, dual_bound: 1, gap: 0, solution: { x: L - 1, y: 1 } }));
        expect(short.status).toBe("error");
        expect(short.verification).toMatchObject({ status: "violated", where: { kind: "constraint", name: "on" } });
        const allowed = verifyResult(indicator(M, L, L), answer("optimal", { objective_value: 1, dual_bound: 1, gap: 0, solution: { x: L, y: 1 } }));
        expect(allowed).toMatchObject({ status: "optimal", verification: { status: "verified" } });
      }),
      { numRuns: 100 },
    );
  });

  it("rows of big continuous terms are still judged relative to their size (an LP point off by 1e-9 relative passes)", () => {
    const problem = ProblemSchema.parse({
      name: "lp",
      sense: "minimize",
      variables: [
        { name: "a", lb: 0 },
        { name: "b", lb: 0 },
      ],
      objective: { terms: [{ var: "a", coef: 1 }] },
      constraints: [
        {
          name: "big",
          terms: [
            { var: "a", coef: 1e6 },
            { var: "b", coef: 1e6 },
          ],
          lb: 1e12,
        },
      ],
    });
    const point = { a: 0, b: 1e6 * (1 - 1e-9) };
    expect(verifyResult(problem, answer("optimal", { objective_value: 0, solution: point })).verification.status).toBe("verified");
  });
});

describe("verifiedSolve: a big-M row's slack taken as room is repeated with tighter tolerances", () => {
  it("repeats once with the feasibility tolerance tightened where the solver has the option, and reports only a passing point", async () => {
    const problem = indicator(5e6, 1, 0); // x ≤ 0 < L: y must be 0, optimum 0
    const calls: SolveSettings[] = [];
    const solve = async (_solver: SolverName, _p: Problem, s: SolveSettings) => {
      calls.push(s);
      return s.feasibilityTolerance === undefined
        ? answer("optimal", { objective_value: 1, dual_bound: 1, gap: 0, solution: { x: 0, y: 1 }, wall_time_ms: 5 })
        : answer("optimal", { objective_value: 0, dual_bound: 0, gap: 0, solution: { x: 0, y: 0 }, wall_time_ms: 5 });
    };
    const out = await verifiedSolve({ problem, solver: "scip", settings, solve });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ feasibilityTolerance: 1e-9 });
    expect(out).toMatchObject({
      status: "optimal",
      result: { objective_value: 0, wall_time_ms: 10 },
      verification: { status: "verified", retried_with: { feasibility_tolerance: 1e-9, first_answer: expect.stringContaining('row "on"') } },
    });
  });

  it("a solver without a feasibility tolerance option (jaos, glpsol) is not repeated: the answer is error, never optimal", async () => {
    for (const solver of ["jaos", "glpk"] as const) {
      let calls = 0;
      const out = await verifiedSolve({
        problem: indicator(5e6, 1, 0),
        solver,
        settings,
        solve: async () => {
          calls++;
          return answer("optimal", { objective_value: 1, dual_bound: 1, gap: 0, solution: { x: 0, y: 1 } });
        },
      });
      expect(calls).toBe(1);
      expect(out).toMatchObject({ status: "error", verification: { status: "violated", message: expect.stringContaining("no feasibility tolerance option") } });
    }
  });
});

describe("cross-checks on risky numerics", () => {
  it("a MILP optimum a second solver's verified point beats is reported feasible with its bound dropped; an agreeing or absent checker leaves it", async () => {
    // min y·1 + x, x ≥ 0.5 − ... : any risky MILP will do; the claimed optimum 3 is beaten by a point at 2.
    const problem = ProblemSchema.parse({
      name: "risky",
      sense: "minimize",
      variables: [
        { name: "x", lb: 0, ub: 10 },
        { name: "y", type: "binary" },
      ],
      objective: {
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
      },
      constraints: [
        {
          name: "link",
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 1e7 },
          ],
          lb: 2,
        },
      ],
    });
    const claimed = answer("optimal", { objective_value: 3, dual_bound: 3, gap: 0, solution: { x: 3, y: 0 } });
    const better = answer("optimal", { objective_value: 2, dual_bound: 2, gap: 0, solution: { x: 2, y: 0 } });
    const beaten = await verifiedSolve({
      problem,
      solver: "highs",
      settings,
      solve: async (solver) => (solver === "highs" ? claimed : better),
      crossCheckers: ["scip", "highs"],
    });
    expect(beaten).toMatchObject({
      status: "feasible",
      result: { objective_value: 3, dual_bound: null },
      verification: {
        status: "verified",
        cross_check: { solver_name: "scip", objective_value: 2 },
        message: expect.stringContaining("better than the optimum 3"),
      },
    });
    const agreed = await verifiedSolve({ problem, solver: "highs", settings, solve: async () => claimed, crossCheckers: ["scip", "highs"] });
    expect(agreed).toMatchObject({ status: "optimal", verification: { cross_check: { solver_name: "scip" } } });
    const alone = await verifiedSolve({ problem, solver: "highs", settings, solve: async () => claimed });
    expect(alone).toMatchObject({ status: "optimal", verification: { cross_check: null } });
  });

  it("the checker's own answer goes through the gate: its slack taken as room is repeated before it may refute a verdict", async () => {
    const problem = indicator(1e8, 1, 0); // feasible at y = 0, optimum 0; y = 1 only within a relative tolerance
    const asked: { solver: SolverName; settings: SolveSettings }[] = [];
    const solve = async (solver: SolverName, _p: Problem, s: SolveSettings): Promise<GateInput> => {
      asked.push({ solver, settings: s });
      if (solver === "cbc") return answer("infeasible");
      return s.feasibilityTolerance === undefined
        ? answer("optimal", { objective_value: 1, dual_bound: 1, gap: 0, solution: { x: 0, y: 1 } })
        : answer("optimal", { objective_value: 0, dual_bound: 0, gap: 0, solution: { x: 0, y: 0 } });
    };
    const out = await verifiedSolve({ problem, solver: "cbc", settings, solve, crossCheckers: ["scip"] });
    expect(asked.map((a) => a.solver)).toEqual(["cbc", "scip", "scip"]);
    expect(out).toMatchObject({ status: "error", verification: { refuted_by: { solver_name: "scip", objective_value: 0 } } });
  });
});
