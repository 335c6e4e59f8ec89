import type { Logger } from "../logger.js";
import type { TriggerRuns } from "../triggers/runs.js";

/** What a schedule's firing needs: the trigger runs' service, and a logger. */
export interface TriggerScheduleJobPorts {
  triggerRuns: Pick<TriggerRuns, "scheduled">;
  logger: Logger;
}

/**
 * A trigger's schedule fired: record its run and queue it on the trigger's band (triggers/runs.ts), where
 * a worker takes it like a fired run. A firing with nothing to run, or delivered again, is only logged.
 */
export async function runTriggerSchedule(ports: TriggerScheduleJobPorts, job: { orgId: string; triggerId: string; scheduledAt?: string }): Promise<void> {
  const firing = await ports.triggerRuns.scheduled(job.orgId, job.triggerId, job.scheduledAt);
  if (firing.outcome === "nothing_to_run")
    ports.logger.info("a schedule fired with nothing to run (trigger gone, disabled or unscheduled)", { trigger_id: job.triggerId });
  if (firing.outcome === "already_fired")
    ports.logger.info("a schedule's firing was delivered again: its run is recorded already", {
      trigger_id: job.triggerId,
      scheduled_at: job.scheduledAt,
      run_id: firing.run_id,
    });
}
