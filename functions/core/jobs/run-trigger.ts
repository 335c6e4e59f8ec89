import { executionKey } from "../executions/store.js";
import { workerErrorText } from "../solvers/public-text.js";
import type { RunOutcome, RunOutcomes } from "../triggers/outcomes.js";
import { completeRaceRunIfEnded } from "../triggers/race-run.js";
import { type RunExecutionDeps, startRunExecution } from "../triggers/run-execution.js";
import type { RunRecord, TriggerStore } from "../triggers/store.js";
import { type HeldLease, type JobPorts, leaseMsOf } from "./ports.js";
import { solveExecution } from "./solve-execution.js";

/** What a trigger run's job needs besides every job's ports: the run's store, its outcome's rules, and what starts its execution. */
export interface TriggerRunJobPorts extends JobPorts, Omit<RunExecutionDeps, "executionStore" | "triggerStore"> {
  triggerStore: Pick<
    TriggerStore,
    "acquireRun" | "renewRun" | "getTrigger" | "finalizeHeldRun" | "setRunFields" | "recentRuns" | "getRun" | "handRunToRace" | "finalizeRaceRun"
  >;
  /** The run's final fields (its webhook decided in the same write), then its webhook queued and its notification. */
  runOutcomes: Pick<RunOutcomes, "finalFields" | "announce">;
}

/**
 * One trigger run: take it (queued or pending → running, under a lease), start its execution
 * (triggers/run-execution.ts compiles, admits and records it), solve it, and end the run `completed`
 * (a verdict) or `failed` — in one conditional write that also decides its webhook — then queue the
 * webhook and notify. A redelivered job finds the run taken or final and does nothing. A step that
 * throws fails the run with the worker's error, which is then thrown on for the container to report.
 */
export async function runTrigger(ports: TriggerRunJobPorts, job: { orgId: string; triggerId: string; runId: string; priority?: number }): Promise<void> {
  const { orgId, triggerId, runId } = job;
  const store = ports.triggerStore;
  const leaseMs = leaseMsOf(ports);
  const run = await store.acquireRun(triggerId, { runId, worker: ports.workerId, leaseMs, nowMs: ports.clock.now() });
  if (!run) return;
  let executionId: string | null = null;
  const lease = ports.lease.keep(() => store.renewRun(triggerId, { runId, worker: ports.workerId, leaseMs, nowMs: ports.clock.now() }));
  const onExecution = (id: string) => {
    executionId = id;
    // The run's execution is held by the same worker: keep its lease too, or the sweeper would fail it mid-solve.
    lease.holdAlso(() => ports.executionStore.leases.renew(executionKey(orgId, id), { worker: ports.workerId, leaseMs, nowMs: ports.clock.now() }));
  };

  let outcome: RunOutcome | { race: string };
  let workerError: unknown = null;
  try {
    outcome = await solveRun(ports, { run, lease, onExecution, band: job.priority ?? 0 });
  } catch (error) {
    workerError = error;
    outcome = { status: "failed", result: null, error: workerErrorText(error) };
  } finally {
    lease.stop();
  }
  if ("race" in outcome) {
    // Handed to its race (triggers/race-run.ts): the race's end completes the run; this worker takes its next job.
    const raceId = outcome.race;
    if ((await store.handRunToRace(triggerId, { runId, worker: ports.workerId, raceId })) && ports.races) {
      await completeRaceRunIfEnded({ ...ports, races: ports.races }, orgId, raceId);
    }
    return;
  }
  const trigger = await store.getTrigger(orgId, triggerId);
  const fields = await ports.runOutcomes.finalFields(run, { trigger, outcome, nowMs: ports.clock.now() });
  const finished = await store.finalizeHeldRun(triggerId, {
    runId,
    worker: ports.workerId,
    status: outcome.status,
    set: { ...fields, execution_id: executionId },
  });
  if (finished) await ports.runOutcomes.announce(finished, trigger, outcome.result);
  if (workerError) throw workerError;
}

async function solveRun(
  ports: TriggerRunJobPorts,
  held: { run: RunRecord; lease: HeldLease; onExecution: (id: string) => void; band: number },
): Promise<RunOutcome | { race: string }> {
  // The band the run was queued on (its message's priority): a race's entrants queue there too.
  const started = await startRunExecution(ports, { run: held.run, worker: ports.workerId, leaseMs: leaseMsOf(ports), band: held.band });
  if ("refused" in started) return { status: "failed", result: null, error: started.refused };
  if ("race" in started) return { race: started.race.id };
  held.onExecution(started.execution.id);
  const { response, final } = await solveExecution(ports, { record: started.execution, problem: started.problem, signal: held.lease.signal });
  return { status: final, result: response, error: final === "failed" ? (response.error_message ?? "the solver failed") : null };
}
