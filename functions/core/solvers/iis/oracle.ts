import type { Problem } from "../../problem/schema.js";
import { solveJaos } from "../jaos-engine.js";
import { emptyResult, type SolverStatus } from "../types.js";
import { verifyResult } from "../verification.js";
import type { FeasibilityOracle, FeasibilityVerdict } from "./deletion-filter.js";

/**
 * A solver's answer on a subproblem as a verdict. "feasible" only with a point the verification gate
 * accepts on that subproblem (its rules, solvers/verification.ts: a big-M trickle does not pass): a
 * solver's wrong "optimal" never lets the filter drop a needed member unnoticed.
 */
export function verdictOf(subproblem: Problem, answer: { solver_status: SolverStatus; solution: Record<string, number> | null }): FeasibilityVerdict {
  if (answer.solver_status === "infeasible") return "infeasible";
  if ((answer.solver_status === "optimal" || answer.solver_status === "feasible") && answer.solution) {
    const { verification } = verifyResult(subproblem, { ...emptyResult(answer.solver_status), solution: answer.solution });
    return verification.status === "verified" ? "feasible" : "unknown";
  }
  return "unknown";
}

/** jaos in this process: the oracle of a TypeScript engine's child and of pure unit tests. */
export const jaosOracle: FeasibilityOracle = async (subproblem, timeLimitSeconds) =>
  verdictOf(subproblem, solveJaos(subproblem, { timeLimitSeconds, gapTolerance: 1 }));
