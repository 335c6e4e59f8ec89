import { expect } from "vitest";
import { ProblemSchema, type Problem, type ProblemInput } from "../../functions/core/problem/schema.js";
import { checkSolution } from "../../functions/core/solvers/checker.js";
import type { Cut } from "../../functions/core/solvers/jaos/cuts.js";
import { solveJaos, type JaosOptions, type JaosResult } from "../../functions/core/solvers/jaos/index.js";
import { LpEngine } from "../../functions/core/solvers/jaos/lp.js";
import type { LpModel } from "../../functions/core/solvers/jaos/model.js";

/** A canonical problem from a compact description (defaults as the public schema gives them). */
export function problem(input: ProblemInput): Problem {
  return ProblemSchema.parse(input);
}

/**
 * Solves with jaos and runs the independent checker on whatever solution comes back: a returned
 * solution must satisfy the problem and reproduce the reported objective.
 */
export function solveChecked(p: Problem, options: Partial<JaosOptions> = {}): JaosResult {
  const r = solveJaos(p, { timeLimitSeconds: 30, gapTolerance: 1e-6, ...options });
  if (r.solution) {
    const violations = checkSolution(p, r.solution, { objective: r.objective_value, tolerance: 1e-6 });
    expect(violations, violations.map((v) => v.message).join("; ")).toEqual([]);
  }
  if (r.solver_status === "optimal" || r.solver_status === "feasible") expect(r.solution).not.toBeNull();
  return r;
}

export function expectObjective(r: JaosResult, expected: number, tol = 1e-6): void {
  expect(r.objective_value).not.toBeNull();
  expect(Math.abs(r.objective_value! - expected)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected)));
}

/** max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum (2, 6), objective 36 (stored as min −3x − 5y). */
export const TEXTBOOK_LP: Problem = problem({
  sense: "maximize",
  variables: [
    { name: "x", lb: 0, ub: null },
    { name: "y", lb: 0, ub: null },
  ],
  objective: {
    constant: 0,
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 5 },
    ],
  },
  constraints: [
    { name: "c1", terms: [{ var: "x", coef: 1 }], ub: 4 },
    { name: "c2", terms: [{ var: "y", coef: 2 }], ub: 12 },
    {
      name: "c3",
      terms: [
        { var: "x", coef: 3 },
        { var: "y", coef: 2 },
      ],
      ub: 18,
    },
  ],
});

/** mulberry32: a seeded generator for random test models, sharing nothing with the engine. */
export function seededGenerator(seed: number): { next: () => number; int: (lo: number, hi: number) => number } {
  let state = seed >>> 0;
  const next = () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/** Smallest left-hand side of the cut over the model's points with the integers fixed; null if none. */
export function minimumLhs(model: LpModel, cut: Cut, fixed: Map<number, number>): number | null {
  const cost = new Float64Array(model.cols);
  cut.index.forEach((j, k) => {
    cost[j] = cut.value[k]!;
  });
  const engine = new LpEngine({ ...model, cost, offset: 0 });
  for (const [j, v] of fixed) engine.setColumnBounds(j, v, v);
  const r = engine.solve({ deadline: performance.now() + 5000 });
  if (r.status === "infeasible") return null;
  expect(r.status).toBe("optimal");
  return r.objective;
}
