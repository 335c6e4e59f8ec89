import { isoTime } from "../../functions/core/clock.js";
import type { JobMessage } from "../../functions/core/queue/messages.js";
import type { WorkerRuntime } from "./runtime.js";

const STOPPED = "the worker was stopped mid-solve; its job went back to the queue and runs again on another worker";

/** A job moves on while it is handed back (a row starts, an execution is created): read again, a few times. */
const ATTEMPTS = 5;

/**
 * Gives a job this worker holds back, because the worker is stopping before the job could end: the item
 * returns to its waiting status without a lease, queued anew as of now (the sweeper's stale-queue window
 * starts again), so whichever worker receives the message next takes it
 * at once (instead of the sweeper failing it when the lease lapses). A solve that was under way ends
 * `cancelled` with the reason and is run anew; a trigger run keeps what it was charged.
 *
 * True when the job was handed back; false when this worker no longer holds it (it ended meanwhile, or
 * was swept) — then its message is done with.
 */
export async function handBackJob(runtime: WorkerRuntime, job: JobMessage): Promise<boolean> {
  const { services } = runtime;
  const cancelExecution = (orgId: string, id: string) =>
    services.executionStore.finalizeHeld(orgId, {
      id,
      worker: runtime.workerId,
      status: "cancelled",
      fields: { result: null, error_message: STOPPED, completed_at: isoTime(services.clock.now()) },
    });

  switch (job.type) {
    case "execution":
      return services.executionStore.handBack(job.org_id, { id: job.id, worker: runtime.workerId, nowMs: services.clock.now() });
    case "comparison":
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const record = await services.comparisonStore.get(job.org_id, job.id);
        if (record?.status !== "running") return false;
        const started = record.results.flatMap((row, i) => (row.status === "running" ? [i] : []));
        if (
          await services.comparisonStore.handBack(job.org_id, {
            id: job.id,
            worker: runtime.workerId,
            running: started,
            rowCount: record.results.length,
            nowMs: services.clock.now(),
          })
        ) {
          for (const i of started) {
            const executionId = record.results[i]!.execution_id;
            if (executionId) await cancelExecution(job.org_id, executionId);
          }
          return true;
        }
      }
      return false;
    case "trigger_run":
      for (let attempt = 0; attempt < ATTEMPTS && job.trigger_id; attempt++) {
        const run = await services.triggerStore.getRun(job.trigger_id, job.id);
        if (run?.status !== "running") return false;
        const execution = run.execution_id ? await services.executionStore.get(job.org_id, run.execution_id) : null;
        const paid = execution?.credits_charged ?? run.credits_charged ?? null;
        if (
          await services.triggerStore.handBackRun(job.trigger_id, {
            runId: job.id,
            worker: runtime.workerId,
            seenExecutionId: run.execution_id,
            creditsCharged: paid,
            nowMs: services.clock.now(),
          })
        ) {
          if (execution) await cancelExecution(job.org_id, execution.id);
          return true;
        }
      }
      return false;
    case "trigger_schedule":
      // Milliseconds of work (record and queue a run): nothing is held to hand back.
      return false;
  }
}
