import { type BlobStore, loadPayload } from "../blob/blob-store.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { Problem } from "../problem/schema.js";
import type { Basis } from "../solvers/types.js";
import type { RunRecord, TriggerStore } from "./store.js";

/**
 * A trigger's `warm_start: "previous_run"` (issue 29): a run starts from the previous successful run's
 * solution, mapped by variable name onto the names its own compiled model still has (data that changes
 * between fires may add or drop variables). The start then goes through the same checks as any
 * `settings.initial_solution` (solvers/warm-start.ts), and the run's result says whether it was taken.
 */

/** How many of the newest runs are read to find the previous successful one (fires that failed in a row past this start cold). */
export const PREVIOUS_RUN_SEARCH = 25;

export interface PreviousRunDeps {
  triggerStore: Pick<TriggerStore, "recentRuns">;
  blobs: BlobStore;
}

/** What a run starts from: the previous successful run's solution and, for an LP HiGHS solved, its basis. */
export interface PreviousRunStart {
  initial_solution?: Record<string, number>;
  initial_basis?: Basis;
}

/**
 * The previous successful run's solution on `problem`'s variables, and its basis on the columns and
 * rows `problem` still has; empty when there is none (or nothing of it applies).
 */
export async function previousRunStart(deps: PreviousRunDeps, run: RunRecord, problem: Problem): Promise<PreviousRunStart> {
  const runs = await deps.triggerStore.recentRuns(run.trigger_id, PREVIOUS_RUN_SEARCH);
  for (const earlier of runs) {
    if (earlier.id === run.id || earlier.created_at > run.created_at) continue;
    if (earlier.status !== "completed" || !earlier.result) continue;
    const response = await loadPayload<SolveResponse>(deps.blobs, earlier.result).catch(() => null);
    if (!response?.solution) continue;
    const solution = startOnProblem(response.solution, problem);
    const basis = response.basis ? basisOnProblem(response.basis, problem) : null;
    return { ...(solution ? { initial_solution: solution } : {}), ...(basis ? { initial_basis: basis } : {}) };
  }
  return {};
}

/** A basis on the columns and rows `problem` still has (the rest start at their defaults: python-solve.ts); null when none. */
export function basisOnProblem(basis: Basis, problem: Problem): Basis | null {
  const columns = Object.fromEntries(problem.variables.filter((v) => basis.columns[v.name]).map((v) => [v.name, basis.columns[v.name]!]));
  const rows = Object.fromEntries(problem.constraints.filter((c) => basis.rows[c.name]).map((c) => [c.name, basis.rows[c.name]!]));
  return Object.keys(columns).length + Object.keys(rows).length > 0 ? { columns, rows } : null;
}

/** The values of a solution for the variables `problem` still has; null when none of them does. */
export function startOnProblem(solution: Record<string, number>, problem: Problem): Record<string, number> | null {
  const start: Record<string, number> = {};
  for (const v of problem.variables) {
    const value = solution[v.name];
    if (value !== undefined && Number.isFinite(value)) start[v.name] = value;
  }
  return Object.keys(start).length > 0 ? start : null;
}
