import type { Problem } from "../../problem/schema.js";
import { checkSolution } from "../checker.js";
import { solveJaos } from "../jaos/index.js";
import type { SolverStatus } from "../types.js";
import type { FeasibilityOracle, FeasibilityVerdict } from "./deletion-filter.js";

/** Tolerance of the point a "feasible" verdict rests on (the checker's default). */
const POINT_TOLERANCE = 1e-6;

/**
 * A solver's answer on a subproblem as a verdict. "feasible" only with a point the checker accepts on
 * that subproblem: a solver's wrong "optimal" never lets the filter drop a needed member unnoticed.
 */
export function verdictOf(subproblem: Problem, answer: { solver_status: SolverStatus; solution: Record<string, number> | null }): FeasibilityVerdict {
  if (answer.solver_status === "infeasible") return "infeasible";
  if ((answer.solver_status === "optimal" || answer.solver_status === "feasible") && answer.solution) {
    return checkSolution(subproblem, answer.solution, { tolerance: POINT_TOLERANCE }).length === 0 ? "feasible" : "unknown";
  }
  return "unknown";
}

/** jaos in this process: the oracle of a TypeScript engine's child and of pure unit tests. */
export const jaosOracle: FeasibilityOracle = async (subproblem, timeLimitSeconds) =>
  verdictOf(subproblem, solveJaos(subproblem, { timeLimitSeconds, gapTolerance: 1 }));
