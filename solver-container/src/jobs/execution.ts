import { randomUUID } from "node:crypto";
import { workerErrorText } from "../../../functions/core/solvers/public-text.js";
import { deleteStoredBlob, loadPayload, storePayload } from "../../../functions/core/blob/blob-store.js";
import { isoTime } from "../../../functions/core/clock.js";
import { blobKeys } from "../../../functions/core/blob/keys.js";
import type { SolveResponse } from "../../../functions/core/executions/schemas.js";
import { type ExecutionRecord, executionKey } from "../../../functions/core/executions/store.js";
import { modelNamesOf, nameInfeasibility, type StoredModelNames } from "../../../functions/core/jmodel/names.js";
import { ProgressRecorder } from "../../../functions/core/progress/recorder.js";
import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import { isSolverName } from "../../../functions/core/solvers/registry.js";
import { solveResponseOf } from "../../../functions/core/solvers/result.js";
import { toSolveSettings } from "../../../functions/core/solvers/settings.js";
import type { SolveSettings, SolverName } from "../../../functions/core/solvers/types.js";
import { nameViolationPlace, verifiedSolve, type VerifiedSolve, verifyPool } from "../../../functions/core/solvers/verification.js";
import { traceMark } from "../../../functions/core/trace/solve-trace.js";
import type { AdapterResult } from "../adapters/types.js";
import { LeaseKeeper } from "../heartbeat.js";
import type { WorkerRuntime } from "../runtime.js";

/**
 * Runs one held execution: the solver under the kill switch, the result stored, the execution moved
 * to completed (a verdict) or failed (the solver errored), metrics and notifications recorded.
 */
export async function solveExecution(
  rt: WorkerRuntime,
  record: ExecutionRecord,
  problem: Problem,
  signal?: AbortSignal,
): Promise<{ response: SolveResponse; final: "completed" | "failed" }> {
  const { services } = rt;
  traceMark("solve_start", record.id);
  const settings = toSolveSettings(record.settings);
  const solver = record.solver_name as SolverName;
  const recorder = new ProgressRecorder(services.progressStore, record.org_id, record.id, { sense: problem.sense });
  let gate: VerifiedSolve<AdapterResult>;
  try {
    // Every answer passes the verification gate (functions/core/solvers/verification.ts); a repeat of
    // the same solver streams its progress too, a cross-check by another solver does not.
    gate = await verifiedSolve<AdapterResult>({
      problem,
      solver,
      settings,
      solve: (name, p, s) =>
        rt.toolkit.solve(name, p, s, { signal, killGraceSeconds: services.config.killGraceSeconds, progress: name === solver ? recorder.sink : undefined }),
      crossCheckers: async () => (await rt.toolkit.inventory()).filter((s) => s.available && isSolverName(s.name)).map((s) => s.name as SolverName),
    });
  } finally {
    // Every chunk is written before the execution turns final, so a reader that sees it final has read all.
    await recorder.close();
  }
  traceMark("solve_end", record.id);
  const result = gate.result;
  // Ranging asked of a solver whose adapter cannot give it (all but native HiGHS).
  if (settings.ranging && result.ranging === undefined) result.ranging = "unsupported";
  // A JModel model's infeasible subset and broken row in the modeller's words: each name's family and index tuple.
  if ((result.infeasibility || gate.verification.where) && record.model_names) {
    const names = modelNamesOf(await loadPayload<StoredModelNames>(services.blobs, record.model_names));
    if (result.infeasibility) result.infeasibility = nameInfeasibility(result.infeasibility, names);
    gate.verification.where = nameViolationPlace(gate.verification.where, names);
  }
  const response = {
    ...solveResponseOf(record.id, record.solver_name, result, gate),
    ...finalProgress(problem, settings, gate, recorder),
  };
  const final = gate.status === "error" ? "failed" : "completed";
  const ref = await storePayload(
    services.blobs,
    blobKeys.executionResult(record.org_id, record.id, randomUUID()),
    response,
    services.config.inlinePayloadMaxBytes,
  );
  const now = services.clock.now();
  const errorMessage = final === "failed" ? (result.error_message ?? "the solver failed") : null;
  const held = await services.executionStore.finish(record.org_id, record.id, rt.workerId, final, {
    result: ref,
    error_message: errorMessage,
    completed_at: isoTime(now),
  });
  traceMark("result_written", record.id);
  // What this write made final (a final item never changes again); when it was not held, only "read it".
  rt.announceFinal?.(record.id, held ? { id: record.id, status: final, result: ref, error_message: errorMessage } : undefined);
  // Lost meanwhile (swept, or handed back by this stopping worker): another outcome stands; say nothing,
  // and take back this attempt's blob, which nothing references.
  if (!held) {
    if ("blob" in ref) await deleteStoredBlob(services.blobs, "results/", ref.blob).catch(() => undefined);
    return { response, final };
  }
  await services.metricsStore.addTotals({ requests: 0, ok: 0, failed: 0, solved: 1, solveMs: result.wall_time_ms ?? 0 }, now).catch(() => undefined);
  if (record.notify) await notifyExecution(rt, record, response, final);
  return { response, final };
}

/**
 * The incumbents the recorder saw (with the final objective when the solver's last report missed it) and,
 * when a pool was asked for, the pool: each member through the verification gate's rules (verifyPool),
 * or "unsupported".
 */
function finalProgress(problem: Problem, settings: SolveSettings, gate: VerifiedSolve<AdapterResult>, recorder: ProgressRecorder): Partial<SolveResponse> {
  const result = gate.result;
  const verified = gate.verification.status === "verified";
  const sign = problem.sense === "maximize" ? -1 : 1;
  const objective = verified ? result.objective_value : null;
  const near = (v: number, z: number) => Math.abs(v - z) <= 1e-6 * Math.max(1, Math.abs(z));
  let incumbents = recorder.incumbents();
  // A repeat's answer is the one that holds: the first run's incumbents better than it were not points of the model.
  if (gate.verification.retried_with && objective !== null)
    incumbents = incumbents.filter((i) => sign * i.objective_value >= sign * objective || near(i.objective_value, objective));
  if (objective !== null && result.solution !== null) {
    const last = incumbents.at(-1);
    // A log prints fewer digits than the result carries: the same incumbent gets the result's value.
    if (last && near(last.objective_value, objective)) last.objective_value = objective;
    else if (!last || sign * objective < sign * last.objective_value) {
      incumbents.push({ time_seconds: result.solver_time_seconds ?? (result.wall_time_ms ?? 0) / 1000, objective_value: objective });
    }
  }
  if ((settings.solutionPoolSize ?? 1) <= 1 || result.solution === null || objective === null) return { incumbents };
  // An LP has one reported optimum: its pool is that solution, whatever the solver.
  if (!hasIntegers(problem)) return { incumbents, solutions: [{ objective_value: objective, solution: result.solution }] };
  if (!Array.isArray(result.solution_pool)) return { incumbents, solution_pool: "unsupported" };
  // A pool member the gate rejects is left out, never reported as feasible.
  return { incumbents, solutions: verifyPool(problem, result.solution_pool) };
}

async function notifyExecution(rt: WorkerRuntime, record: ExecutionRecord, response: SolveResponse, final: "completed" | "failed"): Promise<void> {
  const org = await rt.services.identity.getOrganization(record.org_id);
  await rt.services.notifications.notify(record.created_by, {
    type: final === "completed" ? "execution_complete" : "execution_failed",
    title: final === "completed" ? `Solve finished: ${response.status}` : "Solve failed",
    message:
      final === "completed"
        ? `${record.problem_name} with ${record.solver_name}: ${response.status}${response.objective_value !== null ? `, objective ${response.objective_value}` : ""}.`
        : `${record.problem_name} with ${record.solver_name} failed: ${response.error_message ?? "unknown error"}.`,
    data: { execution_id: record.id, objective_value: response.objective_value, credits_remaining: org?.credit_balance ?? null },
    link: `/executions/${record.id}`,
  });
}

/** The job for a queued execution (plain and async solve, document runs). */
export async function runExecutionJob(rt: WorkerRuntime, orgId: string, id: string): Promise<void> {
  const { services } = rt;
  const leaseMs = services.config.jobLeaseSeconds * 1000;
  traceMark("job_start", id);
  const record = await services.executionStore.acquire(orgId, id, rt.workerId, leaseMs, services.clock.now());
  if (!record) return; // finished already, or another worker holds it: a redelivery does nothing
  traceMark("acquired", id);
  const keeper = new LeaseKeeper(
    () => services.executionStore.leases.renew(executionKey(orgId, id), rt.workerId, leaseMs, services.clock.now()),
    leaseMs,
  ).start();
  try {
    const problem = await loadPayload<Problem>(services.blobs, record.problem);
    await solveExecution(rt, record, problem, keeper.signal);
  } catch (error) {
    // Only while this worker still holds it: a lost lease means another outcome stands.
    await services.executionStore.finish(orgId, id, rt.workerId, "failed", {
      result: null,
      error_message: workerErrorText(error),
      completed_at: isoTime(services.clock.now()),
    });
    rt.announceFinal?.(id);
    throw error;
  } finally {
    keeper.stop();
  }
}
