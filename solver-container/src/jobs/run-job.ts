import { runComparison } from "../../../functions/core/jobs/run-comparison.js";
import { runExecution } from "../../../functions/core/jobs/run-execution.js";
import { runTrigger } from "../../../functions/core/jobs/run-trigger.js";
import { runTriggerSchedule } from "../../../functions/core/jobs/run-trigger-schedule.js";
import type { JobMessage } from "../../../functions/core/queue/messages.js";
import type { WorkerRuntime } from "../runtime.js";
import { jobPorts } from "./ports.js";

/**
 * Runs one job of the queue to its end (or to nothing, when it is done already or held elsewhere),
 * inside its organization's share of the fleet (functions/core/queue/fair-share.ts): the job holds one
 * of the organization's running slots while it runs, renewed with its lease; a job whose organization
 * is at its cap is parked instead (its message is then done with, nothing is received again); after
 * it, the slot is freed and the organization's next parked job sent.
 */
export async function runJob(runtime: WorkerRuntime, job: JobMessage): Promise<void> {
  const { fairShare, config, logger } = runtime.services;
  const hold = await fairShare.hold(job);
  if (hold.parked) return;
  const renewing =
    hold.slot === null
      ? null
      : setInterval(() => void fairShare.renew(job, hold.slot).catch(() => undefined), Math.max(200, (config.jobLeaseSeconds * 1000) / 3));
  renewing?.unref();
  try {
    await runHeldJob(runtime, job);
  } finally {
    if (renewing) clearInterval(renewing);
    await fairShare
      .settle(job, hold.slot)
      .catch((error: unknown) => logger.warn("settling a job's share of the fleet failed; its slot lapses with the lease", { error, job_id: job.id }));
  }
}

/**
 * Each job kind is one use case of core (functions/core/jobs/), run against this worker's ports. What
 * it throws reaches the queue worker, which reports it and lets the message be received again.
 */
async function runHeldJob(runtime: WorkerRuntime, job: JobMessage): Promise<void> {
  const ports = jobPorts(runtime);
  switch (job.type) {
    case "execution":
      return runExecution(ports, { orgId: job.org_id, id: job.id });
    case "comparison":
      return runComparison(ports, { orgId: job.org_id, id: job.id });
    case "trigger_run":
      if (!job.trigger_id) throw new Error("a trigger_run job names its trigger_id");
      return runTrigger(ports, { orgId: job.org_id, triggerId: job.trigger_id, runId: job.id, priority: job.priority });
    case "trigger_schedule":
      return runTriggerSchedule(ports, { orgId: job.org_id, triggerId: job.trigger_id ?? job.id, scheduledAt: job.scheduled_at });
  }
}
