import { loadPayload, storePayload } from "../../../functions/core/blob/blob-store.js";
import { isoTime } from "../../../functions/core/clock.js";
import { computeAgreement, type FinishedRow } from "../../../functions/core/comparisons/agreement.js";
import { shapeRows } from "../../../functions/core/comparisons/service.js";
import { comparisonKey, type ComparisonRecord } from "../../../functions/core/comparisons/store.js";
import { finalComparisonStatus } from "../../../functions/core/comparisons/views.js";
import { problemKey } from "../../../functions/core/executions/service.js";
import type { ExecutionRecord } from "../../../functions/core/executions/store.js";
import { newId } from "../../../functions/core/ids.js";
import { compileJModel, isJModelError } from "../../../functions/core/jmodel/index.js";
import { problemStats, type Problem } from "../../../functions/core/problem/schema.js";
import { rowOf } from "../../../functions/core/solvers/result.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";
import { solveExecution } from "./execution.js";

/**
 * One comparison, one task: its rows in request order, one after another, with identical settings.
 * Each row is written as it finishes; before each next solver the cancel flag is honoured (the row's
 * start is conditional on it). A matrix row compiles its own dataset first.
 */
export async function runComparisonJob(rt: WorkerRuntime, orgId: string, id: string): Promise<void> {
  const { services } = rt;
  const store = services.comparisonStore;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  let record = await store.acquire(orgId, id, rt.workerId, leaseMs, services.clock.now());
  if (!record) return;
  const keeper = new LeaseKeeper(() => store.leases.renew(comparisonKey(orgId, id), rt.workerId, leaseMs, services.clock.now()), leaseMs).start();
  try {
    await store.setFields(orgId, id, rt.workerId, { machine_note: rt.machineNote });
    const problem = await problemFor(rt, record);
    if (!problem) return;
    record = (await store.get(orgId, id))!;

    const finished: FinishedRow[] = [];
    for (const [i, row] of record.results.entries()) {
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
      const { response, final } = await solveExecution(rt, execution, problem, keeper.signal);
      const done = rowOf(row, response, final);
      finished.push({ row: done, solution: response.solution });
      await store.writeRow(orgId, id, i, rt.workerId, done, computeAgreement(finished, record.settings.gap_tolerance));
    }

    const latest = (await store.get(orgId, id))!;
    await store.finish(orgId, id, rt.workerId, finalComparisonStatus(latest.results), {
      completed_at: isoTime(services.clock.now()),
      agreement: computeAgreement(finished, latest.settings.gap_tolerance),
    });
  } catch (error) {
    await store.end(orgId, id, ["running"], "failed", {
      error_message: `worker error: ${(error as Error).message}`,
      completed_at: isoTime(services.clock.now()),
    });
    throw error;
  } finally {
    keeper.stop();
  }
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
  try {
    problem = compileJModel(model.jmodel_source, model.data).problem;
  } catch (error) {
    if (!isJModelError(error)) throw error;
    const message = `dataset did not compile: ${error.message} (line ${error.line}, column ${error.column})`;
    await store.finish(record.org_id, record.id, rt.workerId, "failed", {
      error_message: message,
      completed_at: isoTime(services.clock.now()),
      results: record.results.map((r) => (r.status === "pending" ? { ...r, status: "failed" as const, error_message: message } : r)),
    });
    return null;
  }
  const stats = problemStats(problem);
  const available = await services.inventory.available(services.clock.now());
  // The class can differ from the first dataset's: a solver that cannot express this one is unsupported here.
  const reshaped = shapeRows(record.solver_names, stats.problem_class, available);
  const results = record.results.map((r, i) => (r.status === "pending" && reshaped[i]!.solver_status === "unsupported" ? reshaped[i]! : r));
  await store.setFields(record.org_id, record.id, rt.workerId, {
    problem: await storePayload(services.blobs, problemKey(record.org_id, record.id), problem, services.config.inlinePayloadMaxBytes),
    problem_class: stats.problem_class,
    variable_count: stats.variable_count,
    constraint_count: stats.constraint_count,
    results,
  });
  return problem;
}
