import { loadPayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { executionKey } from "../executions/store.js";
import type { Problem } from "../problem/schema.js";
import { workerErrorText } from "../solvers/public-text.js";
import { traceMark } from "../trace/solve-trace.js";
import { type JobPorts, leaseMsOf } from "./ports.js";
import { solveExecution } from "./solve-execution.js";
import { settleFailedEntrant, solveRaceEntrant } from "../races/entrant.js";

/**
 * The job for a queued execution (plain and async solve, document runs): take it under this worker's
 * lease (a redelivery of one finished or held elsewhere does nothing), keep the lease alive while its
 * problem is read and solved (solve-execution.ts), and fail it with the worker's error when a step
 * throws — only while this worker still holds it, since a lost lease means another outcome stands.
 * The error is thrown on, for the container to report.
 */
export async function runExecution(ports: JobPorts, job: { orgId: string; id: string }): Promise<void> {
  const { orgId, id } = job;
  const leaseMs = leaseMsOf(ports);
  traceMark("job_start", id);
  const record = await ports.executionStore.acquire(orgId, { id, worker: ports.workerId, leaseMs, nowMs: ports.clock.now() });
  if (!record) return; // finished already, or another worker holds it: a redelivery does nothing
  traceMark("acquired", id);
  const lease = ports.lease.keep(() =>
    ports.executionStore.leases.renew(executionKey(orgId, id), { worker: ports.workerId, leaseMs, nowMs: ports.clock.now() }),
  );
  // A race's entrant (races/entrant.ts) also watches for being stopped and settles its end on the race.
  const races = record.origin.kind === "race" && ports.races ? { ...ports, races: ports.races } : null;
  let problem: Problem | null = null;
  try {
    problem = await loadPayload<Problem>(ports.blobs, record.problem);
    if (races) await solveRaceEntrant(races, { record, problem, signal: lease.signal });
    else await solveExecution(ports, { record, problem, signal: lease.signal });
  } catch (error) {
    await ports.executionStore.finalizeHeld(orgId, {
      id,
      worker: ports.workerId,
      status: "failed",
      fields: { result: null, error_message: workerErrorText(error), completed_at: isoTime(ports.clock.now()) },
    });
    ports.announceFinal?.(id);
    if (races) await settleFailedEntrant(races, { record, problem }).catch(() => undefined);
    throw error;
  } finally {
    lease.stop();
  }
}
