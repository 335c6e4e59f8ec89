import { loadPayload, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { computeAgreement, type FinishedRow, refutedRows } from "../comparisons/agreement.js";
import type { Row } from "../comparisons/schemas.js";
import { shapeRows } from "../comparisons/rows.js";
import { changedRows, comparisonKey, type ComparisonRecord, type ComparisonStore } from "../comparisons/store.js";
import { finalComparisonStatus } from "../comparisons/views.js";
import type { Config } from "../config.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import type { ExecutionService } from "../executions/service.js";
import { type ExecutionRecord, executionKey } from "../executions/store.js";
import { newExecutionRecord } from "../executions/records.js";
import { closeCancelled } from "../executions/close-cancelled.js";
import { newId } from "../ids.js";
import { compileJModel, isJModelError, type ModelNames } from "../jmodel/index.js";
import { isModelCapExceeded, modelCaps } from "../limits/model-caps.js";
import { numericsOf } from "../problem/numerics.js";
import { structureCountsOf } from "../solvers/recommendation/structure.js";
import { problemStats, type Problem } from "../problem/schema.js";
import { workerErrorText } from "../solvers/public-text.js";
import type { InventoryStore } from "../solvers/inventory.js";
import { rowOf } from "../solvers/result.js";
import type { Leases } from "../store/leases.js";
import { type HeldLease, type JobPorts, leaseMsOf } from "./ports.js";
import { solveExecution } from "./solve-execution.js";

/** What a comparison's job needs besides every job's ports. */
export interface ComparisonJobPorts extends JobPorts {
  config: JobPorts["config"] & Pick<Config, "instanceMaxVariables" | "instanceMaxConstraints" | "instanceMaxNonzeros">;
  comparisonStore: Pick<ComparisonStore, "acquire" | "get" | "setFields" | "startRow" | "writeRow" | "replaceRunningRow" | "finalizeHeld"> & {
    leases: Pick<Leases, "renew">;
  };
  /** Reads an earlier row's stored result (its solution counts in the agreement). */
  executions: Pick<ExecutionService, "result">;
  /** The solvers the fleet has now: a matrix row's compiled class decides which rows are unsupported. */
  inventory: Pick<InventoryStore, "available">;
  /** What the comparison records as `machine_note`: which machine ran it. */
  machineNote: string;
}

/**
 * One comparison, one task: its rows in request order, one after another, with identical settings.
 * Each row is written as it finishes; before each next solver the cancel flag is honoured (the row's
 * start is conditional on it). A row's execution is held under the comparison's lease keeper, so both
 * leases are renewed while it solves. A worker that takes over a comparison whose worker died first
 * resolves the rows that worker left `running`. A matrix row compiles its own dataset first.
 */
export async function runComparison(ports: ComparisonJobPorts, job: { orgId: string; id: string }): Promise<void> {
  const { orgId, id } = job;
  const store = ports.comparisonStore;
  const leaseMs = leaseMsOf(ports);
  let record = await store.acquire(orgId, { id, worker: ports.workerId, leaseMs, nowMs: ports.clock.now() });
  if (!record) return;
  const lease = ports.lease.keep(() => store.leases.renew(comparisonKey(orgId, id), { worker: ports.workerId, leaseMs, nowMs: ports.clock.now() }));
  const holdExecution = (executionId: string | null) =>
    lease.holdAlso(
      executionId
        ? () => ports.executionStore.leases.renew(executionKey(orgId, executionId), { worker: ports.workerId, leaseMs, nowMs: ports.clock.now() })
        : null,
    );
  try {
    await store.setFields(orgId, { id, worker: ports.workerId, fields: { machine_note: ports.machineNote } });
    const problem = await problemFor(ports, record);
    if (!problem) return;
    record = (await store.get(orgId, id))!;

    const finished: FinishedRow[] = [];
    for (const [i, listed] of record.results.entries()) {
      let row = listed;
      if (row.status === "running") {
        // Left running by a worker that died: its outcome if it finished, else the row runs again.
        const resolved = await resolveAbandonedRow(ports, { record, index: i, row, problem, lease, holdExecution });
        if (resolved === "lost") return;
        row = resolved;
      }
      if (row.status === "completed" && row.solver_status !== "unsupported" && row.execution_id) {
        // A row finished by an earlier worker before it died: keep it, with its solution for agreement.
        const earlier = await ports.executions.result((await ports.executionStore.get(orgId, row.execution_id))!).catch(() => null);
        finished.push({ row, solution: earlier?.solution ?? null });
      }
      if (row.status !== "pending") continue;
      const executionId = newId("exe", ports.clock.now());
      const execution = rowExecution(ports, { comparison: record, solver: row.solver_name, executionId, problem });
      // The execution exists before the row names it: a client that follows a running row's
      // execution_id (the execution, its log, its progress) never finds nothing there.
      await ports.executionStore.createRunning(execution, { worker: ports.workerId, leaseMs, nowMs: ports.clock.now() });
      const started = await store.startRow(orgId, { id, index: i, worker: ports.workerId, executionId });
      if (started !== "started") {
        await closeUnstartedExecution(ports, execution, started);
        if (started === "lost") return;
        break;
      }
      holdExecution(executionId);
      const { response, final } = await solveExecution(ports, { record: execution, problem, signal: lease.signal });
      holdExecution(null);
      const done = rowOf(row, response, final);
      finished.push({ row: done, solution: response.solution });
      // A verified point refutes another row's infeasible verdict (agreement.ts): this row's, or an earlier one's.
      const refuted = new Map(refutedRows(finished).map((f) => [f.row.solver_name, f]));
      const own = refuted.get(done.solver_name);
      for (const [k, f] of finished.entries()) finished[k] = refuted.get(f.row.solver_name) ?? f;
      const agreement = computeAgreement(finished, record.settings.gap_tolerance, problem.sense);
      await store.writeRow(orgId, { id, index: i, worker: ports.workerId, row: own?.row ?? done, agreement });
      const earlier = [...refuted.values()].filter((f) => f !== own);
      if (earlier.length > 0) {
        const current = (await store.get(orgId, id))!;
        const byName = new Map(earlier.map((f) => [f.row.solver_name, f.row]));
        await store.setFields(orgId, {
          id,
          worker: ports.workerId,
          fields: { agreement },
          rows: changedRows(current.results, (r) => byName.get(r.solver_name) ?? null),
        });
      }
    }

    const latest = (await store.get(orgId, id))!;
    await store.finalizeHeld(orgId, {
      id,
      worker: ports.workerId,
      status: finalComparisonStatus(latest.results),
      fields: { completed_at: isoTime(ports.clock.now()), agreement: computeAgreement(finished, latest.settings.gap_tolerance, problem.sense) },
    });
  } catch (error) {
    // Only while this worker still holds it: a lost lease means another outcome stands.
    await store.finalizeHeld(orgId, {
      id,
      worker: ports.workerId,
      status: "failed",
      fields: { error_message: workerErrorText(error), completed_at: isoTime(ports.clock.now()) },
    });
    throw error;
  } finally {
    lease.stop();
  }
}

/** Why an execution created for a row ended without solving, in its `error_message`. */
export const UNSTARTED_ROW_MESSAGE = {
  cancelled: "the comparison was cancelled before this row started",
  lost: "the comparison was no longer this worker's when this row was to start",
} as const;

/**
 * Ends `cancelled` the execution created for a row that did not start (the comparison was cancelled or
 * lost meanwhile): no row names it, and an execution left `running` would wait for the sweeper.
 */
async function closeUnstartedExecution(ports: JobPorts, execution: ExecutionRecord, why: "cancelled" | "lost"): Promise<void> {
  await closeCancelled(ports, { record: execution, result: null, errorMessage: UNSTARTED_ROW_MESSAGE[why] });
}

/** A row a dead worker left `running`, with what resolving it needs. */
interface AbandonedRow {
  record: ComparisonRecord;
  index: number;
  row: Row;
  problem: Problem;
  lease: HeldLease;
  holdExecution: (executionId: string | null) => void;
}

/**
 * A row a dead worker left `running`: its execution is taken over once its lease lapsed (the same
 * execution is solved again by this worker, so the row keeps pointing at it); an execution that ended
 * meanwhile gives the row its outcome; one that ended without a result (swept, handed back) makes the
 * row pending again, to run as a new execution. Returns the row as it now stands, or "lost".
 */
async function resolveAbandonedRow(ports: ComparisonJobPorts, abandoned: AbandonedRow): Promise<Row | "lost"> {
  const { record, index, row, problem, lease, holdExecution } = abandoned;
  const store = ports.comparisonStore;
  const executionId = row.execution_id;
  let execution = executionId ? await takeOverExecution(ports, { orgId: record.org_id, id: executionId }) : null;
  if (execution) {
    holdExecution(execution.id);
    const { response, final } = await solveExecution(ports, { record: execution, problem, signal: lease.signal });
    holdExecution(null);
    const done = rowOf(row, response, final);
    const replaced = await store.replaceRunningRow(record.org_id, { id: record.id, index, worker: ports.workerId, seenExecutionId: executionId, row: done });
    return replaced ? done : "lost";
  }
  execution = executionId ? await ports.executionStore.get(record.org_id, executionId) : null;
  const result = execution?.result ? await ports.executions.result(execution).catch(() => null) : null;
  const next: Row =
    execution && result && (execution.status === "completed" || execution.status === "failed")
      ? rowOf(row, result, execution.status)
      : { ...row, status: "pending", execution_id: null };
  const replaced = await store.replaceRunningRow(record.org_id, { id: record.id, index, worker: ports.workerId, seenExecutionId: executionId, row: next });
  return replaced ? next : "lost";
}

/** Acquires a running execution whose worker died, waiting (at most one lease) for its lease to lapse. */
async function takeOverExecution(ports: JobPorts, execution: { orgId: string; id: string }): Promise<ExecutionRecord | null> {
  const { orgId, id } = execution;
  const leaseMs = leaseMsOf(ports);
  for (let attempt = 0; attempt < 2; attempt++) {
    const taken = await ports.executionStore.acquire(orgId, { id, worker: ports.workerId, leaseMs, nowMs: ports.clock.now() });
    if (taken) return taken;
    const current = await ports.executionStore.leases.leaseOf(executionKey(orgId, id));
    if (current?.status !== "running" || current.lease_expires_at_ms === null) return null;
    const wait = Math.min(leaseMs, Math.max(0, current.lease_expires_at_ms - ports.clock.now()) + 50);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return null;
}

/** The execution a comparison row runs: created running under this worker's lease, with the comparison's problem, settings and charge. */
function rowExecution(ports: JobPorts, of: { comparison: ComparisonRecord; solver: string; executionId: string; problem: Problem }): ExecutionRecord {
  const { comparison: c, solver, executionId, problem } = of;
  return newExecutionRecord({
    id: executionId,
    orgId: c.org_id,
    createdBy: c.created_by,
    origin: { kind: "comparison", id: c.id },
    notify: false,
    solverRequested: solver,
    solverName: solver,
    problem: c.problem!,
    modelNames: c.model_names,
    problemName: c.problem_name,
    stats: problemStats(problem),
    settings: c.settings,
    creditsCharged: c.credits_each,
    nowMs: ports.clock.now(),
    running: true,
  });
}

/**
 * The problem a comparison solves. A matrix row compiles its model and dataset here; a dataset that
 * does not fill the model fails only this row (the comparison ends failed with the compiler's words).
 */
async function problemFor(ports: ComparisonJobPorts, record: ComparisonRecord): Promise<Problem | null> {
  const store = ports.comparisonStore;
  if (record.problem) return loadPayload<Problem>(ports.blobs, record.problem);
  const model = await loadPayload<{ jmodel_source: string; data: Record<string, unknown> }>(ports.blobs, record.model!);
  let problem: Problem;
  let names: ModelNames;
  try {
    ({ problem, names } = compileJModel(model.jmodel_source, model.data, { caps: modelCaps(ports.config) }));
  } catch (error) {
    if (!isJModelError(error) && !isModelCapExceeded(error)) throw error;
    // A dataset past the caps stops where it passed them, and fails this row as a compile error would.
    const message = isModelCapExceeded(error)
      ? `dataset is too large for this instance: ${error.message}`
      : `dataset did not compile: ${error.message} (line ${error.line}, column ${error.column})`;
    await store.finalizeHeld(record.org_id, {
      id: record.id,
      worker: ports.workerId,
      status: "failed",
      fields: { error_message: message, completed_at: isoTime(ports.clock.now()) },
      rows: changedRows(record.results, (r) => (r.status === "pending" ? { ...r, status: "failed", error_message: message } : null)),
    });
    return null;
  }
  const stats = problemStats(problem);
  const available = await ports.inventory.available(ports.clock.now());
  // The class can differ from the first dataset's: a solver that cannot express this one is unsupported here.
  const reshaped = shapeRows(record.solver_names, stats.problem_class, available);
  await store.setFields(record.org_id, {
    id: record.id,
    worker: ports.workerId,
    fields: {
      problem: await storePayload(ports.blobs, blobKeys.comparisonProblem(record.org_id, record.id), {
        value: problem,
        inlineMaxBytes: ports.config.inlinePayloadMaxBytes,
      }),
      model_names: await storeModelNames(ports.blobs, blobKeys.comparisonModelNames(record.org_id, record.id), {
        names,
        inlinePayloadMaxBytes: ports.config.inlinePayloadMaxBytes,
      }),
      problem_class: stats.problem_class,
      variable_count: stats.variable_count,
      constraint_count: stats.constraint_count,
      nonzero_count: stats.nonzero_count,
      integer_variable_count: stats.integer_count + stats.binary_count,
      structure_counts: structureCountsOf(problem),
      numerics: numericsOf(problem),
    },
    rows: changedRows(record.results, (r, i) => (r.status === "pending" && reshaped[i]!.solver_status === "unsupported" ? reshaped[i]! : null)),
  });
  return problem;
}
