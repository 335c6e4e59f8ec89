import type { ExecutionRecord } from "../executions/store.js";
import { PROBLEM_CLASSES, type ProblemClass } from "../problem/schema.js";
import { solverShortName } from "../solvers/recommendation/recommender.js";
import type { AutoChoice } from "../solvers/recommendation/schemas.js";
import { pickAuto } from "../solvers/registry.js";
import type { SolverName } from "../solvers/types.js";
import { MIN_FOLLOW_UP_SECONDS } from "../solvers/verification.js";

/**
 * `auto` never ends in its choice's error when the default can answer (issue 29, Build 2): when `auto`
 * chose a solver other than the class's default (today's rule, registry.ts pickAuto, as the recommender
 * names it) and that solver ends in `error` — its own error, or an answer the verification gate refuted
 * and could not repair — the same job solves again with the default within what is left of the caller's
 * time limit. No history foresees a deterministic failure such as CBC's on pilotnov (docs/bench/auto.md),
 * so the service catches it where it happens. A time-limit outcome never falls back: the limit is the caller's.
 */

/** The first run's outcome, as far as the fallback reads it. */
export interface FirstRun {
  /** The gate's verdict. */
  status: string;
  /** The solver's own words, or the gate's. */
  errorMessage: string | null;
  /** How long the first run took (wall clock, the gate's repeats and cross-checks included). */
  seconds: number;
}

/** The default to solve with, and the time it gets; null: no fallback. */
export interface FallbackPlan {
  solver: SolverName;
  timeLimitSeconds: number;
}

/**
 * Whether `record`'s first run falls back, and to what: only an `auto` solve whose choice is not the
 * default, ended in `error`, not stopped (a lost lease, a race's stop), with at least MIN_FOLLOW_UP_SECONDS
 * of the caller's limit left. The default ending in an error itself is final (it is never tried twice).
 */
export function fallbackPlan(
  record: Pick<ExecutionRecord, "solver_requested" | "solver_name" | "auto_choice" | "problem_class">,
  first: FirstRun,
  context: { available: ReadonlySet<string>; timeLimitSeconds: number; stopped: boolean },
): FallbackPlan | null {
  if (record.solver_requested !== "auto" || !record.auto_choice || record.auto_choice.fallback) return null;
  if (first.status !== "error" || context.stopped) return null;
  if (!(PROBLEM_CLASSES as readonly string[]).includes(record.problem_class)) return null;
  const fallback = pickAuto(record.problem_class as ProblemClass, context.available);
  if (!fallback || fallback === record.solver_name) return null;
  const left = context.timeLimitSeconds - first.seconds;
  if (left < MIN_FOLLOW_UP_SECONDS) return null;
  return { solver: fallback, timeLimitSeconds: left };
}

/** The progress log's line between the two runs. */
export const fallbackNote = (from: string, plan: FallbackPlan, first: FirstRun): string =>
  `auto: ${from} ended in an error after ${first.seconds.toFixed(2)} s${first.errorMessage ? ` (${first.errorMessage})` : ""}; ` +
  `solving again with ${plan.solver}, the default, in the ${plan.timeLimitSeconds.toFixed(1)} s left of the time limit`;

/** The `auto_choice` of a solve that fell back: the default answered, and why. */
export function fallenBackChoice(choice: AutoChoice, from: SolverName, plan: FallbackPlan, first: FirstRun, problemClass: string): AutoChoice {
  const words = first.errorMessage ? `: ${first.errorMessage}` : "";
  const reason =
    `${solverShortName(from)} ended in an error after ${first.seconds.toFixed(2)} s${words}; so ${solverShortName(plan.solver)}, ` +
    `the default for ${problemClass}, solved it again with the ${plan.timeLimitSeconds.toFixed(1)} s left of the time limit.`;
  return { ...choice, solver: plan.solver, fallback: { from, seconds: first.seconds, reason } };
}
