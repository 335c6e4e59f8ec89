import { loadPayload, storePayload } from "../../../functions/core/blob/blob-store.js";
import { blobKeys } from "../../../functions/core/blob/keys.js";
import { storeModelNames } from "../../../functions/core/blob/model-names.js";
import { workerErrorText } from "../../../functions/core/solvers/public-text.js";
import { isoTime } from "../../../functions/core/clock.js";
import { computeAgreement, type FinishedRow, refutedRows } from "../../../functions/core/comparisons/agreement.js";
import { shapeRows } from "../../../functions/core/comparisons/rows.js";
import { changedRows, comparisonKey, type ComparisonRecord } from "../../../functions/core/comparisons/store.js";
import type { Row } from "../../../functions/core/comparisons/schemas.js";
import { finalComparisonStatus } from "../../../functions/core/comparisons/views.js";
import { type ExecutionRecord, executionKey } from "../../../functions/core/executions/store.js";
import { newId } from "../../../functions/core/ids.js";
import { compileJModel, isJModelError, type ModelNames } from "../../../functions/core/jmodel/index.js";
import { numericsOf } from "../../../functions/core/problem/numerics.js";
import { isModelCapExceeded, modelCaps } from "../../../functions/core/limits/model-caps.js";
import { problemStats, type Problem } from "../../../functions/core/problem/schema.js";
import { rowOf } from "../../../functions/core/solvers/result.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";
import { solveExecution } from "./execution.js";

/**
 * One comparison, one task: its rows in request order, one after another, with identical settings.
 * Each row is written as it finishes; before each next solver the cancel flag is honoured (the row's
 * start is conditional on it). A row's execution is held under the comparison's lease keeper, so both
 * leases are renewed while it solves. A worker that takes over a comparison whose worker died first
 * resolves the rows that worker left `running`. A matrix row compiles its own dataset first.
 */
export async function runComparisonJob(rt: WorkerRuntime, orgId: string, id: string): Promise<void> {
  const { services } = rt;
  const store = services.comparisonStore;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  let record = await store.acquire(orgId, id, rt.workerId, leaseMs, services.clock.now());
  if (!record) return;
  const keeper = new LeaseKeeper(() => store.leases.renew(comparisonKey(orgId, id), rt.workerId, leaseMs, services.clock.now()), leaseMs).start();
  const holdExecution = (executionId: string | null) =>
    keeper.holdAlso(
      executionId ? () => services.executionStore.leases.renew(executionKey(orgId, executionId), rt.workerId, leaseMs, services.clock.now()) : null,
    );
  try {
    await store.setFields(orgId, id, rt.workerId, { machine_note: rt.machineNote });
    const problem = await problemFor(rt, record);
    if (!problem) return;
    record = (await store.get(orgId, id))!;

    const finished: FinishedRow[] = [];
    for (const [i, listed] of record.results.entries()) {
      let row = listed;
      if (row.status === "running") {
        // Left running by a worker that died: its outcome if it finished, else the row runs again.
        const resolved = await resolveAbandonedRow(rt, record, i, row, problem, keeper, holdExecution);
        if (resolved === "lost") return;
        row = resolved;
      }
      if (row.status === "completed" && row.solver_status !== "unsupported" && row.execution_id) {
        // A row finished by an earlier worker before it died: keep it, with its solution for agreement.
        const earlier = await services.executions.result((await services.executionStore.get(orgId, row.execution_id))!).catch(() => null);
        finished.push({ row, solution: earlier?.solution ?? null });
      }
      if (row.status !== "pending") continue;
      const executionId = newId("exe", services.clock.now());
      const started = await store.startRow(orgId, id, i, rt.workerId, executionId);
      if (started === "lost") return;
      if (started === "cancelled") break;
      const execution = rowExecution(rt, record, row.solver_name, executionId, problem);
      await services.executionStore.createRunning(execution, rt.workerId, leaseMs, services.clock.now());
      holdExecution(executionId);
      const { response, final } = await solveExecution(rt, execution, problem, keeper.signal);
      holdExecution(null);
      const done = rowOf(row, response, final);
      finished.push({ row: done, solution: response.solution });
      // A verified point refutes another row's infeasible verdict (agreement.ts): this row's, or an earlier one's.
      const refuted = new Map(refutedRows(finished).map((f) => [f.row.solver_name, f]));
      const own = refuted.get(done.solver_name);
      for (const [k, f] of finished.entries()) finished[k] = refuted.get(f.row.solver_name) ?? f;
      const agreement = computeAgreement(finished, record.settings.gap_tolerance, problem.sense);
      await store.writeRow(orgId, id, i, rt.workerId, own?.row ?? done, agreement);
      const earlier = [...refuted.values()].filter((f) => f !== own);
      if (earlier.length > 0) {
        const current = (await store.get(orgId, id))!;
        const byName = new Map(earlier.map((f) => [f.row.solver_name, f.row]));
        await store.setFields(
          orgId,
          id,
          rt.workerId,
          { agreement },
          changedRows(current.results, (r) => byName.get(r.solver_name) ?? null),
        );
      }
    }

    const latest = (await store.get(orgId, id))!;
    await store.finish(orgId, id, rt.workerId, finalComparisonStatus(latest.results), {
      completed_at: isoTime(services.clock.now()),
      agreement: computeAgreement(finished, latest.settings.gap_tolerance, problem.sense),
    });
  } catch (error) {
    // Only while this worker still holds it: a lost lease means another outcome stands.
    await store.finish(orgId, id, rt.workerId, "failed", {
      error_message: workerErrorText(error),
      completed_at: isoTime(services.clock.now()),
    });
    throw error;
  } finally {
    keeper.stop();
  }
}

/**
 * A row a dead worker left `running`: its execution is taken over once its lease lapsed (the same
 * execution is solved again by this worker, so the row keeps pointing at it); an execution that ended
 * meanwhile gives the row its outcome; one that ended without a result (swept, handed back) makes the
 * row pending again, to run as a new execution. Returns the row as it now stands, or "lost".
 */
async function resolveAbandonedRow(
  rt: WorkerRuntime,
  record: ComparisonRecord,
  index: number,
  row: Row,
  problem: Problem,
  keeper: LeaseKeeper,
  holdExecution: (executionId: string | null) => void,
): Promise<Row | "lost"> {
  const { services } = rt;
  const store = services.comparisonStore;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  const executionId = row.execution_id;
  let execution = executionId ? await takeOverExecution(rt, record.org_id, executionId, leaseMs) : null;
  if (execution) {
    holdExecution(execution.id);
    const { response, final } = await solveExecution(rt, execution, problem, keeper.signal);
    holdExecution(null);
    const done = rowOf(row, response, final);
    return (await store.replaceRunningRow(record.org_id, record.id, index, rt.workerId, executionId, done)) ? done : "lost";
  }
  execution = executionId ? await services.executionStore.get(record.org_id, executionId) : null;
  const result = execution?.result ? await services.executions.result(execution).catch(() => null) : null;
  const next: Row =
    execution && result && (execution.status === "completed" || execution.status === "failed")
      ? rowOf(row, result, execution.status)
      : { ...row, status: "pending", execution_id: null };
  return (await store.replaceRunningRow(record.org_id, record.id, index, rt.workerId, executionId, next)) ? next : "lost";
}

/** Acquires a running execution whose worker died, waiting (at most one lease) for its lease to lapse. */
async function takeOverExecution(rt: WorkerRuntime, orgId: string, id: string, leaseMs: number): Promise<ExecutionRecord | null> {
  const { services } = rt;
  for (let attempt = 0; attempt < 2; attempt++) {
    const taken = await services.executionStore.acquire(orgId, id, rt.workerId, leaseMs, services.clock.now());
    if (taken) return taken;
    const current = await services.executionStore.leases.leaseOf(executionKey(orgId, id));
    if (current?.status !== "running" || current.lease_expires_at_ms === null) return null;
    const wait = Math.min(leaseMs, Math.max(0, current.lease_expires_at_ms - services.clock.now()) + 50);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return null;
}

function rowExecution(rt: WorkerRuntime, c: ComparisonRecord, solver: string, executionId: string, problem: Problem): ExecutionRecord {
  const stats = problemStats(problem);
  return {
    id: executionId,
    org_id: c.org_id,
    created_by: c.created_by,
    status: "running",
    origin: { kind: "comparison", id: c.id },
    notify: false,
    solver_requested: solver,
    solver_name: solver,
    problem: c.problem!,
    ...(c.model_names ? { model_names: c.model_names } : {}),
    problem_name: c.problem_name,
    problem_class: stats.problem_class,
    variable_count: stats.variable_count,
    constraint_count: stats.constraint_count,
    settings: c.settings,
    credits_charged: c.credits_each,
    created_at: isoTime(rt.services.clock.now()),
    started_at: isoTime(rt.services.clock.now()),
    completed_at: null,
    error_message: null,
    result: null,
    deadline_ms: null,
  };
}

/**
 * The problem a comparison solves. A matrix row compiles its model and dataset here; a dataset that
 * does not fill the model fails only this row (the comparison ends failed with the compiler's words).
 */
async function problemFor(rt: WorkerRuntime, record: ComparisonRecord): Promise<Problem | null> {
  const { services } = rt;
  const store = services.comparisonStore;
  if (record.problem) return loadPayload<Problem>(services.blobs, record.problem);
  const model = await loadPayload<{ jmodel_source: string; data: Record<string, unknown> }>(services.blobs, record.model!);
  let problem: Problem;
  let names: ModelNames;
  try {
    ({ problem, names } = compileJModel(model.jmodel_source, model.data, { caps: modelCaps(services.config) }));
  } catch (error) {
    if (!isJModelError(error) && !isModelCapExceeded(error)) throw error;
    // A dataset past the caps stops where it passed them, and fails this row as a compile error would.
    const message = isModelCapExceeded(error)
      ? `dataset is too large for this instance: ${error.message}`
      : `dataset did not compile: ${error.message} (line ${error.line}, column ${error.column})`;
    await store.finish(
      record.org_id,
      record.id,
      rt.workerId,
      "failed",
      { error_message: message, completed_at: isoTime(services.clock.now()) },
      changedRows(record.results, (r) => (r.status === "pending" ? { ...r, status: "failed", error_message: message } : null)),
    );
    return null;
  }
  const stats = problemStats(problem);
  const available = await services.inventory.available(services.clock.now());
  // The class can differ from the first dataset's: a solver that cannot express this one is unsupported here.
  const reshaped = shapeRows(record.solver_names, stats.problem_class, available);
  await store.setFields(
    record.org_id,
    record.id,
    rt.workerId,
    {
      problem: await storePayload(services.blobs, blobKeys.comparisonProblem(record.org_id, record.id), problem, services.config.inlinePayloadMaxBytes),
      model_names: await storeModelNames(services.blobs, blobKeys.comparisonModelNames(record.org_id, record.id), names, services.config.inlinePayloadMaxBytes),
      problem_class: stats.problem_class,
      variable_count: stats.variable_count,
      constraint_count: stats.constraint_count,
      numerics: numericsOf(problem),
    },
    changedRows(record.results, (r, i) => (r.status === "pending" && reshaped[i]!.solver_status === "unsupported" ? reshaped[i]! : null)),
  );
  return problem;
}
