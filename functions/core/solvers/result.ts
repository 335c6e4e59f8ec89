import type { Row } from "../comparisons/schemas.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { Numerics } from "../problem/numerics.js";
import { type SolverMeasures, SolverMeasuresSchema, type SolverResult, type SolverStatus } from "./types.js";
import type { Verification } from "./verification-schema.js";

const MEASURES = SolverMeasuresSchema.keyof().options;

/** Exactly the measured fields: an adapter's extras (the settings it applied, its command line) never reach a response. */
function measuresOf(from: SolverMeasures): SolverMeasures {
  return Object.fromEntries(MEASURES.map((k) => [k, from[k]])) as SolverMeasures;
}

/** What the verification gate adds to an answer (solvers/verification.ts): the verdict, its check, the model's numerics. */
export interface GateFields {
  status: SolverStatus;
  verification: Verification;
  numerics: Numerics;
}

/**
 * An adapter's answer as the solve response (the spec names the search time `solve_time_seconds` there):
 * `status` is the gate's verdict, `solver_status` what the solver said. Without the gate's fields (an
 * answer from before the gate) the two are the same.
 */
export function solveResponseOf(executionId: string, { solver, result: r, gate }: { solver: string; result: SolverResult; gate?: GateFields }): SolveResponse {
  return {
    ...measuresOf(r),
    execution_id: executionId,
    status: gate?.status ?? r.solver_status,
    solver_status: r.solver_status,
    solution: r.solution,
    solve_time_seconds: r.solver_time_seconds,
    solver_name: solver,
    ...(gate ? { verification: gate.verification, numerics: gate.numerics } : {}),
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

/**
 * A comparison row filled from its execution's solve response (the row names the search time
 * `solver_time_seconds`). The spec makes a row's `solver_status` the verdict: it is the response's
 * `status`, and what the solver itself said is kept in `verification.claimed_status`.
 */
export function rowOf(row: Row, response: SolveResponse, final: "completed" | "failed"): Row {
  const measures = measuresOf(response);
  return {
    ...row,
    ...measures,
    ...rowDuals(measures),
    status: final,
    execution_id: response.execution_id,
    solver_status: response.status,
    solver_time_seconds: response.solve_time_seconds,
    verification: response.verification ?? null,
  };
}
