import type { Row } from "../comparisons/schemas.js";
import type { SolveResponse } from "../executions/schemas.js";
import { type SolverMeasures, SolverMeasuresSchema, type SolverResult } from "./types.js";

const MEASURES = SolverMeasuresSchema.keyof().options;

/** Exactly the measured fields: an adapter's extras (the settings it applied, its command line) never reach a response. */
function measuresOf(from: SolverMeasures): SolverMeasures {
  return Object.fromEntries(MEASURES.map((k) => [k, from[k]])) as SolverMeasures;
}

/** An adapter's answer as the solve response (the spec names the search time `solve_time_seconds` there). */
export function solveResponseOf(executionId: string, solver: string, r: SolverResult): SolveResponse {
  return {
    ...measuresOf(r),
    execution_id: executionId,
    status: r.solver_status,
    solver_status: r.solver_status,
    solution: r.solution,
    solve_time_seconds: r.solver_time_seconds,
    solver_name: solver,
  };
}

/**
 * How many duals and reduced costs (together), or members of an explained infeasibility, a comparison row carries at most. Every row lives in the
 * comparison's one DynamoDB item (400 KB for all rows); past this the row keeps `duals_verified` and
 * leaves the values to its execution (`execution_id`), whose result always has them.
 */
export const ROW_DUALS_MAX_ENTRIES = 1000;

function rowDuals(measures: SolverMeasures): Pick<SolverMeasures, "duals" | "reduced_costs" | "ranging" | "infeasibility"> {
  const count = (o: object | null | undefined) => Object.keys(o ?? {}).length;
  const ranging = typeof measures.ranging === "object" && measures.ranging !== null ? measures.ranging : null;
  const entries = count(measures.duals) + count(measures.reduced_costs);
  const members = (measures.infeasibility?.constraints.length ?? 0) + (measures.infeasibility?.variable_bounds.length ?? 0);
  return {
    ...(entries <= ROW_DUALS_MAX_ENTRIES ? { duals: measures.duals, reduced_costs: measures.reduced_costs } : { duals: null, reduced_costs: null }),
    ...(ranging && count(ranging.costs) + count(ranging.rhs) > ROW_DUALS_MAX_ENTRIES ? { ranging: null } : {}),
    // The same budget for an explained infeasibility: a subset that large stays in the execution.
    ...(members > ROW_DUALS_MAX_ENTRIES ? { infeasibility: null } : {}),
  };
}

/** A comparison row filled from its execution's solve response (the row names the search time `solver_time_seconds`). */
export function rowOf(row: Row, response: SolveResponse, final: "completed" | "failed"): Row {
  const measures = measuresOf(response);
  return {
    ...row,
    ...measures,
    ...rowDuals(measures),
    status: final,
    execution_id: response.execution_id,
    solver_status: response.solver_status,
    solver_time_seconds: response.solve_time_seconds,
  };
}
