import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sum } from "../../../../../functions/core/solvers/checker.js";
import { ProblemSchema, type Problem, type Variable } from "../../../../../functions/core/problem/schema.js";
import { emptyResult, type SolveSettings, type SolverName, type SolverResult } from "../../../../../functions/core/solvers/types.js";
import { FEASIBILITY_TOLERANCE, type GateInput, verifiedSolve, verifyPool, verifyResult } from "../../../../../functions/core/solvers/verification.js";

/**
 * The gate's rules on generated cases (fast-check, so a failure shrinks to a small model): a point
 * built to satisfy a model passes with its objective recomputed; the same model with one row moved
 * past the point fails naming that row; a big-M trickle fails naming the broken link and is repeated
 * once with a tighter integrality tolerance; the MILP bound rule; pools; the cross-check.
 */

const activity = (terms: { var: string; coef: number }[], point: Record<string, number>) => {
  const sum = new Sum();
  let size = 0;
  for (const t of terms) {
    sum.add(t.coef * point[t.var]!);
    size += Math.abs(t.coef * point[t.var]!);
  }
  return { value: sum.value, size };
};

interface Built {
  problem: Problem;
  point: Record<string, number>;
}

const coefficient = fc.oneof(
  fc.integer({ min: -20, max: 20 }).filter((c) => c !== 0),
  fc.double({ min: 1e-3, max: 1e7, noNaN: true }).chain((m) => fc.constantFrom(m, -m)),
);

/** A variable with its value at a point of the model: integers at integers, bounds around the value. */
const variableAt = (name: string): fc.Arbitrary<{ variable: Variable; value: number }> =>
  fc
    .record({
      type: fc.constantFrom<Variable["type"]>("continuous", "integer", "binary"),
      integer: fc.integer({ min: -50, max: 50 }),
      real: fc.double({ min: -1e3, max: 1e3, noNaN: true }),
      below: fc.option(fc.integer({ min: 0, max: 10 }), { nil: null }),
      above: fc.option(fc.integer({ min: 0, max: 10 }), { nil: null }),
    })
    .map(({ type, integer, real, below, above }) => {
      if (type === "binary") {
        const value = Math.abs(integer) % 2;
        return { variable: { name, type, lb: 0, ub: 1 }, value };
      }
      const value = type === "integer" ? integer : real;
      return { variable: { name, type, lb: below === null ? null : value - below, ub: above === null ? null : value + above }, value };
    });

/** A model and a point that satisfies it exactly: each row's sides are its activity there, or further out. */
const modelWithPoint: fc.Arbitrary<Built> = fc.integer({ min: 1, max: 6 }).chain((n) => {
  const names = Array.from({ length: n }, (_, j) => `v${j}`);
  return fc
    .record({
      vars: fc.tuple(...names.map(variableAt)),
      rows: fc.array(
        fc.record({
          terms: fc.subarray(names, { minLength: 1 }).chain((subset) => fc.tuple(...subset.map((v) => coefficient.map((coef) => ({ var: v, coef }))))),
          lower: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
          upper: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
        }),
        { maxLength: 5 },
      ),
      costs: fc.tuple(...names.map(() => fc.integer({ min: -100, max: 100 }))),
      sense: fc.constantFrom<Problem["sense"]>("minimize", "maximize"),
    })
    .map(({ vars, rows, costs, sense }) => {
      const point = Object.fromEntries(vars.map(({ variable, value }) => [variable.name, value]));
      const constraints = rows.map((r, i) => {
        const { value } = activity(r.terms, point);
        return { name: `row${i}`, terms: r.terms, lb: r.lower === null ? null : value - r.lower, ub: r.upper === null ? null : value + r.upper };
      });
      const problem = ProblemSchema.parse({
        name: "generated",
        sense,
        variables: vars.map((v) => v.variable),
        objective: { constant: 0, terms: names.map((v, j) => ({ var: v, coef: costs[j]! })) },
        constraints,
      });
      return { problem, point };
    });
});

const objectiveAt = (problem: Problem, point: Record<string, number>) => activity(problem.objective.terms, point).value + problem.objective.constant;

const answer = (status: SolverResult["solver_status"], fields: Partial<SolverResult> = {}): SolverResult => ({ ...emptyResult(status), ...fields });

describe("verifyResult: the gate's rules on generated models", () => {
  it("a point that satisfies the model is verified, with the objective recomputed from it and the verdict kept", () => {
    fc.assert(
      fc.property(modelWithPoint, fc.double({ min: -1e-8, max: 1e-8, noNaN: true }), ({ problem, point }, noise) => {
        const z = objectiveAt(problem, point);
        const claimed = answer("optimal", { objective_value: z * (1 + noise), dual_bound: z, solution: point });
        const out = verifyResult(problem, claimed, { gapTolerance: 1e-4 });
        expect(out.verification.status).toBe("verified");
        expect(out.status).toBe("optimal");
        expect(out.result.solver_status).toBe("optimal");
        expect(out.result.objective_value).toBe(objectiveAt(problem, out.result.solution!));
        expect(out.verification.solver_objective).toBe(claimed.objective_value);
        expect(out.verification.max_violation).toBeLessThanOrEqual(FEASIBILITY_TOLERANCE);
      }),
      { numRuns: 300 },
    );
  });

  it("integer values within the tolerance are reported as their integers when the rounded point passes", () => {
    fc.assert(
      fc.property(modelWithPoint, fc.double({ min: -1e-7, max: 1e-7, noNaN: true }), ({ problem, point }, wobble) => {
        // Rows far from their sides: the rounded point passes whatever the wobble did.
        const loose = {
          ...problem,
          constraints: problem.constraints.map((c) => ({ ...c, lb: c.lb === null ? null : c.lb - 1, ub: c.ub === null ? null : c.ub + 1 })),
        };
        const wobbled = Object.fromEntries(Object.entries(point).map(([k, v]) => [k, v + wobble]));
        const out = verifyResult(loose, answer("feasible", { solution: wobbled }));
        expect(out.verification.status).toBe("verified");
        for (const v of loose.variables) {
          if (v.type !== "continuous") expect(out.result.solution![v.name]).toBe(point[v.name]! + 0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("a row moved past the point fails naming that row, the verdict becomes error and the raw point stays readable", () => {
    fc.assert(
      fc.property(
        modelWithPoint.filter((b) => b.problem.constraints.length > 0),
        fc.nat(),
        fc.double({ min: 1e-5, max: 10, noNaN: true }),
        ({ problem, point }, pick, by) => {
          const k = pick % problem.constraints.length;
          const row = problem.constraints[k]!;
          const { value, size } = activity(row.terms, point);
          // Excess `by` relative to the row's size: well past the tolerance.
          const broken = {
            ...problem,
            constraints: problem.constraints.map((c, i) => (i === k ? { ...c, lb: null, ub: value - by * Math.max(1, size, Math.abs(value)) } : c)),
          };
          const out = verifyResult(
            broken,
            answer("optimal", { objective_value: objectiveAt(problem, point), dual_bound: objectiveAt(problem, point), solution: point }),
          );
          expect(out.verification.status).toBe("violated");
          expect(out.status).toBe("error");
          expect(out.result.solver_status).toBe("optimal");
          expect(out.verification.where).toEqual({ kind: "constraint", name: row.name });
          expect(out.result.error_message).toContain(`row "${row.name}"`);
          expect(out.result.solution).toEqual(point);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an objective the point does not give is a violation of kind objective; within the tolerance it passes", () => {
    fc.assert(
      fc.property(modelWithPoint, fc.double({ min: 1e-4, max: 1, noNaN: true }), ({ problem, point }, off) => {
        const z = objectiveAt(problem, point);
        const size = Math.max(1, ...[activity(problem.objective.terms, point).size]);
        const out = verifyResult(problem, answer("feasible", { objective_value: z + off * size, solution: point }));
        expect(out.verification).toMatchObject({ status: "violated", where: { kind: "objective", name: "objective" } });
        expect(out.status).toBe("error");
        expect(out.result.objective_value).toBe(z);
      }),
      { numRuns: 200 },
    );
  });

  it("a big-M trickle (x − M·y ≤ 0 holding only because y sits within the tolerance of 0) fails naming the link", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e6, max: 1e10, noNaN: true }), fc.double({ min: 0.01, max: 1, noNaN: true }), (M, x) => {
        const y = x / M; // at most 1e-6: within the integrality tolerance
        const problem = bigM(M, 10);
        const out = verifyResult(problem, answer("optimal", { objective_value: x + 10 * y, dual_bound: x + 10 * y, solution: { x, y } }));
        expect(out.status).toBe("error");
        expect(out.verification.where).toEqual({ kind: "constraint", name: "link" });
        expect(out.verification.message).toContain('"y"');
        // Today's checker, and the snapping before it, let it through.
        expect(out.result.solution).toEqual({ x, y });
      }),
      { numRuns: 200 },
    );
  });

  it("a MILP optimum needs its bound: none, one on the wrong side, or a gap beyond the request makes it feasible", () => {
    const problem = bigM(100, 10);
    const point = { x: 1, y: 1 };
    const at = (dual_bound: number | null, gapTolerance = 1e-4) =>
      verifyResult(problem, answer("optimal", { objective_value: 11, dual_bound, solution: point }), { gapTolerance });
    expect(at(11).status).toBe("optimal");
    expect(at(10.9999).status).toBe("optimal");
    expect(at(null)).toMatchObject({ status: "feasible", verification: { status: "verified", message: expect.stringContaining("needs its dual bound") } });
    expect(at(12)).toMatchObject({ status: "feasible", result: { dual_bound: null, gap: null } });
    expect(at(10)).toMatchObject({ status: "feasible", result: { dual_bound: 10, gap: 1 / 11 } });
    expect(at(10, 0.1).status).toBe("optimal");
    // An LP's optimum stands on the adapter's dual check; no bound is asked of it.
    const lp = { ...problem, variables: problem.variables.map((v) => ({ ...v, type: "continuous" as const, ub: v.type === "binary" ? 1 : v.ub })) };
    expect(verifyResult(lp, answer("optimal", { objective_value: 11, dual_bound: null, solution: point })).status).toBe("optimal");
  });

  it("infeasible, unbounded and error answers carry not_checked; a time limit without a point too", () => {
    const problem = bigM(100, 10);
    for (const status of ["infeasible", "unbounded", "error"] as const) {
      expect(verifyResult(problem, answer(status))).toMatchObject({ status, verification: { status: "not_checked", claimed_status: status } });
    }
    expect(verifyResult(problem, answer("time_limit", { objective_value: 5 })).verification).toMatchObject({
      status: "not_checked",
      message: expect.stringContaining("no point"),
    });
  });

  it("a point missing a variable, or naming one the model lacks, is violated", () => {
    const problem = bigM(100, 10);
    expect(verifyResult(problem, answer("feasible", { solution: { x: 0 } })).verification).toMatchObject({
      status: "violated",
      where: { kind: "value", name: "y" },
    });
    expect(verifyResult(problem, answer("feasible", { solution: { x: 0, y: 0, z: 1 } })).verification).toMatchObject({
      status: "violated",
      where: { kind: "value", name: "z" },
    });
  });
});

describe("verifyPool", () => {
  it("keeps the members whose point passes, rounded and with the recomputed objective, and drops the rest", () => {
    const problem = bigM(1e7, 10);
    const pool = verifyPool(problem, [
      { objective_value: 11, solution: { x: 1, y: 0.9999999999 } },
      { objective_value: 3.000003, solution: { x: 3, y: 3e-7 } },
      { objective_value: 0, solution: { x: 0, y: 0 } },
      { objective_value: 99, solution: { x: 0, y: 1 } },
    ]);
    expect(pool).toEqual([
      { objective_value: 11, solution: { x: 1, y: 1 } },
      { objective_value: 0, solution: { x: 0, y: 0 } },
    ]);
  });
});

/** min x + f·y, x − M·y ≤ 0, x ≥ demand-free; y binary, x in [0, 10]. */
function bigM(M: number, fixed: number): Problem {
  return ProblemSchema.parse({
    name: "big_m",
    variables: [
      { name: "x", lb: 0, ub: 10 },
      { name: "y", type: "binary" },
    ],
    objective: {
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: fixed },
      ],
    },
    constraints: [
      {
        name: "link",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: -M },
        ],
        ub: 0,
      },
    ],
  });
}

/** The fixed-charge model: eight binaries, x_j − M·y_j ≤ 0, Σx ≥ 3, cost x_j + f_j·y_j. */
function fixedCharge(M: number): Problem {
  const n = 8;
  return ProblemSchema.parse({
    name: "fixed_charge",
    variables: Array.from({ length: n }, (_, j) => [
      { name: `x${j}`, lb: 0 },
      { name: `y${j}`, type: "binary" },
    ]).flat(),
    objective: {
      terms: Array.from({ length: n }, (_, j) => [
        { var: `x${j}`, coef: 1 },
        { var: `y${j}`, coef: 10 + j },
      ]).flat(),
    },
    constraints: [
      ...Array.from({ length: n }, (_, j) => ({
        name: `link${j}`,
        terms: [
          { var: `x${j}`, coef: 1 },
          { var: `y${j}`, coef: -M },
        ],
        ub: 0,
      })),
      { name: "demand", terms: Array.from({ length: n }, (_, j) => ({ var: `x${j}`, coef: 1 })), lb: 3 },
    ],
  });
}

const settings: SolveSettings = { timeLimitSeconds: 10, gapTolerance: 1e-4, threads: 1 };
const zeros = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, j) => [
      [`x${j}`, 0],
      [`y${j}`, 0],
    ]).flat(),
  ) as Record<string, number>;
const trickle = (M: number): SolverResult => {
  const point = { ...zeros(8), x0: 3, y0: 3 / M };
  return answer("optimal", { objective_value: 3 + (10 * 3) / M, dual_bound: 3 + (10 * 3) / M, solution: point, wall_time_ms: 5, solver_time_seconds: 0.004 });
};
const rightOptimum = (): SolverResult =>
  answer("optimal", { objective_value: 13, dual_bound: 13, solution: { ...zeros(8), x0: 3, y0: 1 }, wall_time_ms: 7, solver_time_seconds: 0.006 });

describe("verifiedSolve: the repeat and the cross-check, through a fake solve port", () => {
  it("a trickle is repeated once with the integrality tolerance tightened; only the passing point is reported", async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 3e6, max: 1e9, noNaN: true }), async (M) => {
        const calls: { solver: SolverName; settings: SolveSettings }[] = [];
        const solve = async (solver: SolverName, _p: Problem, s: SolveSettings) => {
          calls.push({ solver, settings: s });
          return s.integralityTolerance === undefined ? trickle(M) : rightOptimum();
        };
        const out = await verifiedSolve({ problem: fixedCharge(M), solver: "highs", settings, solve });
        expect(calls).toHaveLength(2);
        expect(calls[1]!.settings.integralityTolerance).toBeLessThanOrEqual(1e-9);
        expect(calls[1]!.settings.integralityTolerance).toBeLessThan(3 / M);
        expect(out).toMatchObject({ status: "optimal", result: { objective_value: 13, wall_time_ms: 12 }, verification: { status: "verified" } });
        expect(out.verification.retried_with).toMatchObject({
          integrality_tolerance: calls[1]!.settings.integralityTolerance,
          first_answer: expect.stringContaining("link0"),
        });
      }),
      { numRuns: 30 },
    );
  });

  it("a repeat that trickles again is reported as error, never optimal; glpsol (no tolerance option) is not repeated", async () => {
    let calls = 0;
    const again = await verifiedSolve({
      problem: fixedCharge(1e7),
      solver: "cbc",
      settings,
      solve: async () => {
        calls++;
        return trickle(1e7);
      },
    });
    expect(calls).toBe(2);
    expect(again).toMatchObject({
      status: "error",
      verification: { status: "violated", where: { name: "link0" }, retried_with: { integrality_tolerance: 1e-9 } },
    });
    calls = 0;
    const glpk = await verifiedSolve({
      problem: fixedCharge(1e7),
      solver: "glpk",
      settings,
      solve: async () => {
        calls++;
        return trickle(1e7);
      },
    });
    expect(calls).toBe(1);
    expect(glpk).toMatchObject({ status: "error", verification: { retried_with: null, message: expect.stringContaining("no integrality tolerance option") } });
  });

  it("an uncertified infeasible verdict on risky numerics is refuted by a second solver's verified point, within the time left", async () => {
    const asked: { solver: SolverName; settings: SolveSettings }[] = [];
    const solve = async (solver: SolverName, _p: Problem, s: SolveSettings): Promise<GateInput> => {
      asked.push({ solver, settings: s });
      return solver === "cbc" ? answer("infeasible") : rightOptimum();
    };
    let clock = 0;
    const out = await verifiedSolve({
      problem: fixedCharge(1e8),
      solver: "cbc",
      settings: { ...settings, explainInfeasibility: true, solutionPoolSize: 5 },
      solve,
      crossCheckers: ["glpk", "scip", "highs"],
      now: () => (clock += 3000),
    });
    expect(asked.map((a) => a.solver)).toEqual(["cbc", "scip"]);
    // The clock moved 3 s between the start and the cross-check: 7 s of the 10 are left.
    expect(asked[1]!.settings).toEqual({ timeLimitSeconds: 7, gapTolerance: 1e-4, threads: 1 });
    expect(out.status).toBe("error");
    expect(out.result.solver_status).toBe("infeasible");
    expect(out.verification).toMatchObject({
      status: "violated",
      claimed_status: "infeasible",
      cross_check: { solver_name: "scip", solver_status: "optimal", objective_value: 13 },
      refuted_by: { solver_name: "scip", objective_value: 13, solution: { x0: 3, y0: 1 } },
    });
    expect(out.result.error_message).toMatch(/said infeasible, but scip found a point/);
  });

  it("a refuted verdict's explanation is marked not verified: a point of the whole model satisfies every subset of it", async () => {
    const explained: GateInput = {
      ...answer("infeasible"),
      infeasibility: {
        constraints: [{ name: "link0" }],
        variable_bounds: [],
        method: "deletion_filter",
        irreducible: true,
        verified: null,
        verdict_check: { status: "unconfirmed", solver: null, message: "not checked" },
      },
    };
    const out = await verifiedSolve({
      problem: fixedCharge(1e8),
      solver: "cbc",
      settings,
      solve: async (solver) => (solver === "cbc" ? explained : rightOptimum()),
      crossCheckers: ["scip"],
    });
    expect(out.status).toBe("error");
    expect(out.result.infeasibility).toMatchObject({ irreducible: true, verified: false });
  });

  it("an infeasible verdict whose explanation's re-solves found a point of the whole model is refuted, even on tame numerics with no cross-check", async () => {
    const refutedByExplanation: GateInput = {
      ...answer("infeasible"),
      infeasibility: {
        constraints: [],
        variable_bounds: [],
        method: "deletion_filter",
        irreducible: false,
        verified: false,
        verdict_check: { status: "refuted", solver: "highs", message: "highs found a point" },
      },
    };
    const out = await verifiedSolve({ problem: bigM(10, 1), solver: "jaos", settings, solve: async () => refutedByExplanation });
    expect(out.status).toBe("error");
    expect(out.verification).toMatchObject({ status: "violated", claimed_status: "infeasible", refuted_by: { solver_name: "highs" } });
    expect(out.result.error_message).toMatch(/said infeasible, but highs found a point/);
    // An unconfirmed or confirmed check leaves the verdict as it is.
    for (const status of ["confirmed", "unconfirmed"] as const) {
      const kept = await verifiedSolve({
        problem: bigM(10, 1),
        solver: "jaos",
        settings,
        solve: async () => ({
          ...refutedByExplanation,
          infeasibility: { ...refutedByExplanation.infeasibility!, verdict_check: { status, solver: null, message: "" } },
        }),
      });
      expect(kept.status).toBe("infeasible");
    }
  });

  it("no cross-check on tame numerics, on a certified verdict, or when the second solver agrees", async () => {
    const tame = bigM(10, 1);
    const calls: SolverName[] = [];
    const solve = async (solver: SolverName): Promise<GateInput> => {
      calls.push(solver);
      return solver === "cbc" ? answer("infeasible") : answer("infeasible");
    };
    expect((await verifiedSolve({ problem: tame, solver: "cbc", settings, solve, crossCheckers: ["scip"] })).status).toBe("infeasible");
    expect(calls).toEqual(["cbc"]);
    calls.length = 0;
    const certified = async (solver: SolverName): Promise<GateInput> => {
      calls.push(solver);
      return { ...answer("infeasible"), certificate: "farkas" };
    };
    expect((await verifiedSolve({ problem: fixedCharge(1e8), solver: "cbc", settings, solve: certified, crossCheckers: ["scip"] })).status).toBe("infeasible");
    expect(calls).toEqual(["cbc"]);
    calls.length = 0;
    const agreed = await verifiedSolve({ problem: fixedCharge(1e8), solver: "cbc", settings, solve, crossCheckers: ["scip"] });
    expect(calls).toEqual(["cbc", "scip"]);
    expect(agreed).toMatchObject({
      status: "infeasible",
      verification: { status: "not_checked", cross_check: { solver_name: "scip", solver_status: "infeasible" } },
    });
  });
});
