import { expect } from "vitest";
import { ProblemSchema, type Problem, type ProblemInput } from "../../functions/core/problem/schema.js";
import { checkSolution } from "../../functions/core/solvers/checker.js";
import { solveJaos, type JaosOptions, type JaosResult } from "../../functions/core/solvers/jaos-engine.js";
import { TEXTBOOK_LP as JAOS_TEXTBOOK_LP } from "../../packages/jaos/test/support.js";

/** Random test models, seeded: the generator jaos's own tests use (packages/jaos/test/support.ts). */
export { seededGenerator } from "../../packages/jaos/test/support.js";

/** A canonical problem from a compact description (defaults as the public schema gives them). */
export function problem(input: ProblemInput): Problem {
  return ProblemSchema.parse(input);
}

/**
 * Solves with jaos through the service's adapter (functions/core/solvers/jaos-engine.ts) and runs the
 * service's independent checker on whatever solution comes back: a returned solution must satisfy the
 * problem and reproduce the reported objective.
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

/** max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum (2, 6), objective 36 (jaos's tests' textbook LP, as a canonical problem). */
export const TEXTBOOK_LP: Problem = problem(JAOS_TEXTBOOK_LP);
