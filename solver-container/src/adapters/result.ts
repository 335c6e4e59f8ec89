import { emptyResult, type SolverStatus } from "../../../functions/core/solvers/types.js";
import { relativeGap } from "../../../functions/core/solvers/gap.js";
import type { StopReason } from "./process.js";
import type { AdapterResult, Progress } from "./types.js";

export { relativeGap };

export function blankResult(status: SolverStatus, version: string | null, message: string | null = null): AdapterResult {
  return { ...emptyResult(status, message), solver_version: version, settings_applied: null };
}

/** Fills the fields every adapter computes the same way: the gap and the wall time of the whole call. */
export function finish(result: AdapterResult, startedAtMs: number): AdapterResult {
  const gap =
    result.solver_status === "optimal" || result.solver_status === "time_limit" || result.solver_status === "feasible"
      ? relativeGap(result.objective_value, result.dual_bound)
      : null;
  return { ...result, gap, wall_time_ms: Math.round(performance.now() - startedAtMs) };
}

/**
 * The answer when the kill switch stopped a solver: a time limit with the last incumbent and bound the
 * solver printed, or a cancellation. No solution vector: a killed process cannot hand one over.
 */
export function stoppedResult(
  reason: StopReason,
  { progress, version, limitSeconds, solverName }: { progress: Progress; version: string | null; limitSeconds: number; solverName: string },
): AdapterResult {
  if (reason === "aborted") return blankResult("error", version, "cancelled");
  const result = blankResult("time_limit", version, `${solverName} did not stop at its own time limit (${limitSeconds} s); the kill switch stopped it`);
  result.objective_value = progress.incumbent;
  result.dual_bound = progress.bound;
  result.nodes = progress.nodes;
  return result;
}

export function noProgress(): Progress {
  return { incumbent: null, bound: null, nodes: null };
}

/** The last `maxLines` non-empty lines of a text: the solver's own words for an error message. */
export function lastLines(text: string, maxLines = 6): string {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(-maxLines)
    .join(" | ");
}

/** The error of a solve stopped by its memory ceiling (config SOLVER_MEMORY_MB): `error`, naming memory. */
export function memoryLimitMessage(solverName: string, memoryMb: number | undefined): string {
  const ceiling = memoryMb ? `its memory ceiling of ${memoryMb} MB (SOLVER_MEMORY_MB)` : "the memory available";
  return `memory limit: ${solverName} needed more than ${ceiling}`;
}
