/**
 * The service's own CloudWatch metrics, by name: the handlers and the worker emit them (embedded metric
 * format, Powertools Metrics), the stack's alarms and dashboard read them. One place, so the two cannot
 * drift apart. This module imports nothing: the CDK app reads it without loading a handler.
 *
 * Every metric carries one dimension, `service`: the emitting component's name, `<namePrefix>-<component>`
 * (`incumbent-prod-sweeper`, `incumbent-prod-worker`), which is also its log group's and its Powertools
 * service name, so two stages in one account never mix. Solve outcomes add `outcome`.
 */
export const SERVICE_METRICS_NAMESPACE = "Incumbent";

export const SERVICE_METRIC = {
  /** Jobs (executions, comparisons, trigger runs) the sweeper failed: a worker died, or no worker took them. */
  sweptJobs: "SweptJobs",
  /** Seconds from a job's `queued_at` (created, or handed back) to a worker starting it. */
  jobQueuedToStarted: "JobQueuedToStartedSeconds",
  /** Seconds from a job's `queued_at` to its final write. */
  jobQueuedToFinal: "JobQueuedToFinalSeconds",
  /** Solves that ended, one per execution, with the dimension `outcome` (optimal, infeasible, error, …). */
  solveOutcomes: "SolveOutcomes",
  /** Jobs a stopping worker handed back to the queue. */
  jobsHandedBack: "JobsHandedBack",
  /** Small solves the API answered itself because no worker took them in time (`solved_by: "api"`). */
  apiSolves: "ApiSolves",
} as const;

/** The dimension every metric of ours carries. */
export const SERVICE_DIMENSION = "service";
/** The extra dimension of `SolveOutcomes`. */
export const OUTCOME_DIMENSION = "outcome";

/** The `service` value of a component of a stage: also its function's (or the worker's) log group name. */
export const componentServiceName = (namePrefix: string, component: string): string => `${namePrefix}-${component}`;
