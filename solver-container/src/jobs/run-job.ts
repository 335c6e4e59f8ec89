import type { JobMessage } from "../../../functions/core/queue/messages.js";
import type { WorkerRuntime } from "../runtime.js";
import { runComparisonJob } from "./comparison.js";
import { runExecutionJob } from "./execution.js";
import { runTriggerRunJob } from "./trigger-run.js";

/**
 * Runs one job of the queue to its end (or to nothing, when it is done already or held elsewhere),
 * inside its organization's share of the fleet (functions/core/queue/fair-share.ts): the job holds one
 * of the organization's running slots while it runs, renewed with its lease; a job whose organization
 * is at its cap is parked instead (its message is then done with, nothing is received again); after
 * it, the slot is freed and the organization's next parked job sent.
 */
export async function runJob(rt: WorkerRuntime, job: JobMessage): Promise<void> {
  const { fairShare, config, logger } = rt.services;
  const hold = await fairShare.hold(job);
  if (hold.parked) return;
  const renewing =
    hold.slot === null
      ? null
      : setInterval(() => void fairShare.renew(job, hold.slot).catch(() => undefined), Math.max(200, (config.jobLeaseSeconds * 1000) / 3));
  renewing?.unref();
  try {
    await runHeldJob(rt, job);
  } finally {
    if (renewing) clearInterval(renewing);
    await fairShare
      .settle(job, hold.slot)
      .catch((error: unknown) => logger.warn("settling a job's share of the fleet failed; its slot lapses with the lease", { error, job_id: job.id }));
  }
}

async function runHeldJob(rt: WorkerRuntime, job: JobMessage): Promise<void> {
  switch (job.type) {
    case "execution":
      return runExecutionJob(rt, job.org_id, job.id);
    case "comparison":
      return runComparisonJob(rt, job.org_id, job.id);
    case "trigger_run":
      if (!job.trigger_id) throw new Error("a trigger_run job names its trigger_id");
      return runTriggerRunJob(rt, job.org_id, job.trigger_id, job.id);
    case "trigger_schedule": {
      // Records the run and queues it on the trigger's band; a worker takes it like a fired run.
      const firing = await rt.services.triggerRuns.scheduled(job.org_id, job.trigger_id ?? job.id, job.scheduled_at);
      if (firing.outcome === "nothing_to_run")
        rt.services.logger.info("a schedule fired with nothing to run (trigger gone, disabled or unscheduled)", { trigger_id: job.id });
      if (firing.outcome === "already_fired")
        rt.services.logger.info("a schedule's firing was delivered again: its run is recorded already", {
          trigger_id: job.id,
          scheduled_at: job.scheduled_at,
          run_id: firing.run_id,
        });
      return;
    }
  }
}
