import type { SolveResponse } from "../../../functions/core/executions/schemas.js";
import type { Problem } from "../../../functions/core/problem/schema.js";
import { solveResponseOf } from "../../../functions/core/solvers/result.js";
import { snapIntegerValues } from "../../../functions/core/solvers/solution.js";
import type { SolverName, SolverResult, SolveSettings } from "../../../functions/core/solvers/types.js";

/** One solver run, as the verification gate of issue 24 takes it (functions/core/solvers/verification.ts). */
export type SolveFn = (solver: SolverName, problem: Problem, settings: SolveSettings) => Promise<SolverResult>;

/**
 * The answer the service reports for one solve: the one place the numerics suite asks for it.
 *
 * Today it is what the worker's `solveExecution` (solver-container/src/jobs/execution.ts) makes of the
 * solver's result: integer values snapped (`snapIntegerValues`), then the response's fields
 * (`solveResponseOf`); nothing checks the point. When the gate lands, this body becomes
 *   `verifiedSolve({ problem, solver, settings, solve })` mapped to the response the same way,
 * and the suite then judges the gate's answers.
 */
export async function serviceAnswer(options: { solve: SolveFn; solver: SolverName; problem: Problem; settings: SolveSettings }): Promise<SolveResponse> {
  const { solve, solver, problem, settings } = options;
  const result = await solve(solver, problem, settings);
  return solveResponseOf("numerics-suite", solver, { ...result, solution: snapIntegerValues(problem, result.solution) });
}
