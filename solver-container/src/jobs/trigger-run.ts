import { storePayload } from "../../../functions/core/blob/blob-store.js";
import { isoTime } from "../../../functions/core/clock.js";
import { isAppError } from "../../../functions/core/errors.js";
import { assertVariableCap, problemKey } from "../../../functions/core/executions/service.js";
import { executionKey, type ExecutionRecord } from "../../../functions/core/executions/store.js";
import { newId } from "../../../functions/core/ids.js";
import { problemStats, type Problem } from "../../../functions/core/problem/schema.js";
import type { SolverChoice } from "../../../functions/core/solvers/types.js";
import type { RunOutcome } from "../../../functions/core/triggers/outcomes.js";
import { SOLVER_OVERRIDE } from "../../../functions/core/triggers/overrides.js";
import type { RunRecord } from "../../../functions/core/triggers/store.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";
import { solveExecution } from "./execution.js";

/**
 * One trigger run: take it (queued or pending → running, under a lease), compile the pinned version
 * with the run's overrides, pick the solver, charge it, solve it as an execution, and end the run
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
  const keeper = new LeaseKeeper(async () => {
    const held = await store.renewRun(triggerId, runId, rt.workerId, leaseMs, services.clock.now());
    // The run's execution is held by the same worker: keep its lease too, or the sweeper would fail it mid-solve.
    if (held && executionId) await services.executionStore.leases.renew(executionKey(orgId, executionId), rt.workerId, leaseMs, services.clock.now());
    return held;
  }, leaseMs).start();

  let outcome: RunOutcome;
  let workerError: unknown = null;
  try {
    outcome = await solveRun(rt, run, keeper.signal, (id) => (executionId = id));
  } catch (error) {
    workerError = error;
    outcome = { status: "failed", result: null, error: `worker error: ${(error as Error).message}` };
  } finally {
    keeper.stop();
  }
  const trigger = await store.getTrigger(orgId, triggerId);
  const fields = await services.runOutcomes.finalFields(trigger, run, outcome, services.clock.now());
  const finished = await store.finishRun(triggerId, runId, rt.workerId, outcome.status, { ...fields, execution_id: executionId });
  if (finished) await services.runOutcomes.announce(finished, trigger, outcome.result);
  if (workerError) throw workerError;
}

const failed = (error: string): RunOutcome => ({ status: "failed", result: null, error });

async function solveRun(rt: WorkerRuntime, run: RunRecord, signal: AbortSignal, onExecution: (id: string) => void): Promise<RunOutcome> {
  const { services } = rt;
  const version = await services.documents.findVersion(run.org_id, run.document_id, run.version_id);
  if (!version) return failed("the trigger's pinned version no longer exists");
  const document = await services.documentStore.get(run.org_id, run.document_id);
  const { [SOLVER_OVERRIDE]: _solver, ...modelOverrides } = run.override_data;

  let problem: Problem;
  let solver: string;
  let credits: number;
  try {
    problem = services.documents.compile(await services.documents.model(version), modelOverrides, document?.name ?? run.document_id);
    assertVariableCap(services.config, problemStats(problem));
    solver = await services.executions.chooseSolver(run.solver_name as SolverChoice, problem);
    credits = services.charges.creditsFor(problemStats(problem), run.settings.time_limit_seconds);
    await services.charges.charge(run.org_id, run.created_by, 1, credits);
  } catch (error) {
    // A refusal the fire could not foresee (the model does not compile with these values, no solver can
    // run its class, the organization is out of credits or quota): the run fails with the reason.
    if (isAppError(error)) return failed(`${error.code}: ${error.detail}`);
    throw error;
  }

  const now = services.clock.now();
  const stats = problemStats(problem);
  const id = newId("exe", now);
  const execution: ExecutionRecord = {
    id,
    org_id: run.org_id,
    created_by: run.created_by,
    status: "running",
    origin: { kind: "trigger_run", id: run.id },
    notify: false, // the run's own notification names the trigger and the run
    solver_requested: run.solver_name,
    solver_name: solver,
    problem: await storePayload(services.blobs, problemKey(run.org_id, id), problem, services.config.inlinePayloadMaxBytes),
    problem_name: problem.name,
    problem_class: stats.problem_class,
    variable_count: stats.variable_count,
    constraint_count: stats.constraint_count,
    settings: run.settings,
    credits_charged: credits,
    created_at: isoTime(now),
    started_at: isoTime(now),
    completed_at: null,
    error_message: null,
    result: null,
    deadline_ms: null,
  };
  await services.executionStore.createRunning(execution, rt.workerId, services.config.jobLeaseSeconds * 1000, now);
  onExecution(execution.id);
  await services.triggerStore.setRunFields(run.trigger_id, run.id, rt.workerId, { execution_id: execution.id, solver_name: solver });
  const { response, final } = await solveExecution(rt, execution, problem, signal);
  return { status: final, result: response, error: final === "failed" ? (response.error_message ?? "the solver failed") : null };
}
