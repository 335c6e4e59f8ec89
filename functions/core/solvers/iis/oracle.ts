import type { Problem } from "../../problem/schema.js";
import { checkSolution } from "../checker.js";
import { solveJaos } from "../jaos/index.js";
import type { SolverStatus } from "../types.js";
import type { FeasibilityOracle, FeasibilityVerdict } from "./deletion-filter.js";

/** Tolerance of the point a "feasible" verdict rests on (the checker's default). */
const POINT_TOLERANCE = 1e-6;

/**
 * A solver's answer on a subproblem as a verdict. "feasible" only with a point the checker accepts on
 * that subproblem: a solver's wrong "optimal" never lets the filter drop a needed member unnoticed, nor
 * refutes an infeasible verdict (explain.ts).
 */
export function verdictOf(subproblem: Problem, answer: { solver_status: SolverStatus; solution: Record<string, number> | null }): FeasibilityVerdict {
  if (answer.solver_status === "infeasible") return "infeasible";
  if ((answer.solver_status === "optimal" || answer.solver_status === "feasible") && answer.solution) {
    return pointHolds(subproblem, answer.solution) ? "feasible" : "unknown";
  }
  return "unknown";
}

/**
 * The point, its integer columns rounded to the nearest integer, satisfies every bound and row within
 * the checker's tolerance. Rounded first, because the checker's integrality tolerance alone lets a big-M
 * "trickle" through: y = 3e-7 is integral within 1e-6, and x − 1e7·y ≤ 0 then holds with x = 3, where
 * no integer y allows it. The rounded point is integral, so when it holds it proves feasibility.
 */
export function pointHolds(problem: Problem, solution: Record<string, number>): boolean {
  const rounded = { ...solution };
  for (const v of problem.variables) {
    const value = rounded[v.name];
    if (v.type !== "continuous" && value !== undefined && Number.isFinite(value)) rounded[v.name] = Math.round(value) + 0;
  }
  return checkSolution(problem, rounded, { tolerance: POINT_TOLERANCE }).length === 0;
}

/** jaos in this process: the oracle of a TypeScript engine's child and of pure unit tests. */
export const jaosOracle: FeasibilityOracle = async (subproblem, timeLimitSeconds) =>
  verdictOf(subproblem, solveJaos(subproblem, { timeLimitSeconds, gapTolerance: 1 }));
