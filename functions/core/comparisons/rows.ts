import type { ProblemClass } from "../problem/schema.js";
import { unsupportedReason } from "../solvers/registry.js";
import type { Row } from "./schemas.js";

/** A comparison's rows as they start: shaped by the API at launch and by a matrix worker once it compiles a row's model. */
export function pendingRow(solver: string): Row {
  return {
    solver_name: solver,
    solver_version: null,
    execution_id: null,
    status: "pending",
    solver_status: null,
    unsupported_reason: null,
    objective_value: null,
    dual_bound: null,
    gap: null,
    nodes: null,
    iterations: null,
    wall_time_ms: null,
    solver_time_seconds: null,
    error_message: null,
  };
}

/** Rows for a problem class: pending for solvers that can run it, `unsupported` with the reason otherwise. */
export function shapeRows(solverNames: string[], cls: ProblemClass, available: ReadonlySet<string>): Row[] {
  return solverNames.map((name) => {
    const reason = unsupportedReason(name, cls, available);
    if (!reason) return pendingRow(name);
    return { ...pendingRow(name), status: "completed", solver_status: "unsupported", unsupported_reason: reason };
  });
}
