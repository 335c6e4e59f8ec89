import type { Row } from "../comparisons/schemas.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { SolverResult } from "./types.js";

/** An adapter's answer as the solve response (the spec names the search time `solve_time_seconds` there). */
export function solveResponseOf(executionId: string, solver: string, r: SolverResult): SolveResponse {
  const { solver_time_seconds, ...rest } = r;
  return { ...rest, execution_id: executionId, status: r.solver_status, solve_time_seconds: solver_time_seconds, solver_name: solver };
}

/** A comparison row filled from its execution's solve response (the row names it `solver_time_seconds`). */
export function rowOf(row: Row, response: SolveResponse, final: "completed" | "failed"): Row {
  return {
    ...row,
    status: final,
    execution_id: response.execution_id,
    solver_status: response.solver_status,
    objective_value: response.objective_value,
    dual_bound: response.dual_bound,
    gap: response.gap,
    nodes: response.nodes,
    iterations: response.iterations,
    wall_time_ms: response.wall_time_ms,
    solver_version: response.solver_version,
    solver_time_seconds: response.solve_time_seconds,
    error_message: response.error_message,
  };
}
