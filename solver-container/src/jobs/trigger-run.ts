import { executionKey } from "../../../functions/core/executions/store.js";
import { workerErrorText } from "../../../functions/core/solvers/public-text.js";
import type { RunOutcome } from "../../../functions/core/triggers/outcomes.js";
import { startRunExecution } from "../../../functions/core/triggers/run-execution.js";
import type { RunRecord } from "../../../functions/core/triggers/store.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";
import { solveExecution } from "./execution.js";

/**
 * One trigger run: take it (queued or pending → running, under a lease), start its execution (core:
 * triggers/run-execution.ts compiles, admits and records it), solve it, and end the run
 * `completed` (a verdict) or `failed` — in one conditional write that also decides its webhook — then
 * queue the webhook and notify. A redelivered job finds the run taken or final and does nothing.
 */
export async function runTriggerRunJob(rt: WorkerRuntime, orgId: string, triggerId: string, runId: string): Promise<void> {
  const { services } = rt;
  const store = services.triggerStore;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  const run = await store.acquireRun(triggerId, runId, rt.workerId, leaseMs, services.clock.now());
  if (!run) return;
  let executionId: string | null = null;
  const keeper = new LeaseKeeper(() => store.renewRun(triggerId, runId, rt.workerId, leaseMs, services.clock.now()), leaseMs).start();
  const onExecution = (id: string) => {
    executionId = id;
    // The run's execution is held by the same worker: keep its lease too, or the sweeper would fail it mid-solve.
    keeper.holdAlso(() => services.executionStore.leases.renew(executionKey(orgId, id), rt.workerId, leaseMs, services.clock.now()));
  };

  let outcome: RunOutcome;
  let workerError: unknown = null;
  try {
    outcome = await solveRun(rt, run, keeper.signal, onExecution);
  } catch (error) {
    workerError = error;
    outcome = { status: "failed", result: null, error: workerErrorText(error) };
  } finally {
    keeper.stop();
  }
  const trigger = await store.getTrigger(orgId, triggerId);
  const fields = await services.runOutcomes.finalFields(trigger, run, outcome, services.clock.now());
  const finished = await store.finishRun(triggerId, runId, rt.workerId, outcome.status, { ...fields, execution_id: executionId });
  if (finished) await services.runOutcomes.announce(finished, trigger, outcome.result);
  if (workerError) throw workerError;
}

async function solveRun(rt: WorkerRuntime, run: RunRecord, signal: AbortSignal, onExecution: (id: string) => void): Promise<RunOutcome> {
  const started = await startRunExecution(rt.services, run, rt.workerId, rt.services.config.jobLeaseSeconds * 1000);
  if ("refused" in started) return { status: "failed", result: null, error: started.refused };
  onExecution(started.execution.id);
  const { response, final } = await solveExecution(rt, started.execution, started.problem, signal);
  return { status: final, result: response, error: final === "failed" ? (response.error_message ?? "the solver failed") : null };
}
