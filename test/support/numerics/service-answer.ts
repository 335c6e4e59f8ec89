import type { SolveResponse } from "../../../functions/core/executions/schemas.js";
import type { Problem } from "../../../functions/core/problem/schema.js";
import { solveResponseOf } from "../../../functions/core/solvers/result.js";
import type { SolverName, SolveSettings } from "../../../functions/core/solvers/types.js";
import { type SolveFn, verifiedSolve } from "../../../functions/core/solvers/verification.js";

export type { SolveFn };

/**
 * The answer the service reports for one solve: the one place the numerics suite asks for it. As the
 * worker's `solveExecution` (functions/core/jobs/solve-execution.ts) does: the solver's run through the
 * verification gate (`verifiedSolve`: the point checked against the model as submitted, a big-M trickle
 * repeated once with a tighter integrality tolerance, an uncertified infeasible or unbounded verdict on
 * risky numerics cross-checked by another solver), then the response's fields (`solveResponseOf`).
 *
 * `solve` runs `solver`; `others` runs any other solver a cross-check picks (the worker's toolkit plays
 * both roles); `crossCheckers` lists the solvers this machine has, as the worker's inventory does.
 */
export async function serviceAnswer(options: {
  solve: SolveFn;
  solver: SolverName;
  problem: Problem;
  settings: SolveSettings;
  others?: SolveFn;
  crossCheckers?: readonly SolverName[];
}): Promise<SolveResponse> {
  const { solve, solver, problem, settings, others } = options;
  const gate = await verifiedSolve({
    problem,
    solver,
    settings,
    solve: (name, p, s) => (name === solver || !others ? solve(name, p, s) : others(name, p, s)),
    crossCheckers: others ? options.crossCheckers : undefined,
  });
  return solveResponseOf("numerics-suite", { solver, result: gate.result, gate });
}
