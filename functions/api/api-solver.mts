/**
 * The API's solver for small plain solves no warm worker takes (functions/core/executions/api-solve.ts):
 * jaos, pure TypeScript. In AWS this module ships as a file of its own beside the API bundle
 * (lib/api.ts, separateModules), loaded on the first such solve, so the API's cold start does not parse
 * the engine.
 */
import type { Problem } from "../core/problem/schema.js";
import { JAOS_VERSION, solveJaos } from "../core/solvers/jaos-engine.js";
import type { SolverResult } from "../core/solvers/types.js";

export const version = `jaos ${JAOS_VERSION}`;

export function solve(problem: Problem, options: { timeLimitSeconds: number; gapTolerance: number; integralityTolerance?: number }): SolverResult {
  const { stats: _stats, ...result } = solveJaos(problem, options);
  return result;
}
