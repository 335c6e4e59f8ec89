import type { ComparisonJobPorts } from "../../../functions/core/jobs/run-comparison.js";
import type { TriggerRunJobPorts } from "../../../functions/core/jobs/run-trigger.js";
import type { TriggerScheduleJobPorts } from "../../../functions/core/jobs/run-trigger-schedule.js";
import { raceRunCompleter } from "../../../functions/core/triggers/race-run.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";

/** Every port a job's use case (functions/core/jobs/) may ask for. */
export type WorkerJobPorts = ComparisonJobPorts & TriggerRunJobPorts & TriggerScheduleJobPorts;

/**
 * The ports of the job use cases, from this worker's runtime: its services' stores, its solvers (the
 * toolkit is the solve port), and its lease keeping — a LeaseKeeper renewing every third of the lease,
 * which aborts the solve when the lease is lost.
 */
export function jobPorts(runtime: WorkerRuntime): WorkerJobPorts {
  const { services } = runtime;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  return {
    workerId: runtime.workerId,
    machineNote: runtime.machineNote,
    config: services.config,
    clock: services.clock,
    logger: services.logger,
    solver: runtime.toolkit,
    lease: { keep: (renew) => new LeaseKeeper(renew, leaseMs).start() },
    blobs: services.blobs,
    progress: services.progressStore,
    metricsStore: services.metricsStore,
    identity: services.identity,
    notifications: services.notifications,
    executionStore: services.executionStore,
    races: services.raceStore,
    raceEnded: raceRunCompleter(services),
    executions: services.executions,
    inventory: services.inventory,
    comparisonStore: services.comparisonStore,
    triggerStore: services.triggerStore,
    runOutcomes: services.runOutcomes,
    triggerRuns: services.triggerRuns,
    documents: services.documents,
    documentStore: services.documentStore,
    // Read at each call: the worker program sets its announcer after the runtime is built.
    announceFinal: (executionId, outcome) => runtime.announceFinal?.(executionId, outcome),
  };
}
