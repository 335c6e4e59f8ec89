/**
 * jaos (packages/jaos, `@incumbent/jaos`) as the service's solver: the canonical `Problem` in, a
 * `SolverResult` out. The engine knows nothing of the service; what is the service's is done here:
 * the duals of a verified LP optimum are put in the one sign convention (duals.ts) and judged by the
 * independent checker, and the wall time is extended over that check, so `wall_time_ms` stays
 * "around the whole solver call". Everything in the service solves with jaos through this module.
 */
import { type JaosOptions, type JaosStats, solveJaos as solveJaosModel } from "@incumbent/jaos";
import type { Problem } from "../problem/schema.js";
import { dualFields, normaliseDuals } from "./duals.js";
import type { SolverResult } from "./types.js";

export { JAOS_VERSION, type JaosOptions, type JaosStats, validTolerance } from "@incumbent/jaos";

export type JaosResult = SolverResult & { stats: JaosStats };

export function solveJaos(problem: Problem, options: JaosOptions): JaosResult {
  const started = performance.now();
  const { row_duals: rowDuals, stats, ...row } = solveJaosModel(problem, options);
  // Field order as the result always had: the row's fields, then the duals' (when any), then stats.
  const duals = rowDuals === undefined ? {} : dualFields(problem, row, normaliseDuals(problem, { reportedFor: "minimisation", rowDuals }));
  return { ...row, ...duals, wall_time_ms: Math.round(performance.now() - started), stats };
}
