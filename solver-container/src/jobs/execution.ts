import { randomUUID } from "node:crypto";
import { deleteStoredBlob, loadPayload, storePayload } from "../../../functions/core/blob/blob-store.js";
import { isoTime } from "../../../functions/core/clock.js";
import { resultKey } from "../../../functions/core/executions/service.js";
import type { SolveResponse } from "../../../functions/core/executions/schemas.js";
import { type ExecutionRecord, executionKey } from "../../../functions/core/executions/store.js";
import { modelNamesOf, nameInfeasibility, type StoredModelNames } from "../../../functions/core/jmodel/names.js";
import { ProgressRecorder } from "../../../functions/core/progress/recorder.js";
import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import { checkSolution } from "../../../functions/core/solvers/checker.js";
import { solveResponseOf } from "../../../functions/core/solvers/result.js";
import { toSolveSettings } from "../../../functions/core/solvers/settings.js";
import { snapIntegerValues } from "../../../functions/core/solvers/solution.js";
import type { SolveSettings, SolverName } from "../../../functions/core/solvers/types.js";
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
  const recorder = new ProgressRecorder(services.progressStore, record.org_id, record.id, { sense: problem.sense });
  let result: AdapterResult;
  try {
    result = await rt.toolkit.solve(record.solver_name as SolverName, problem, settings, {
      signal,
      killGraceSeconds: services.config.killGraceSeconds,
      progress: recorder.sink,
    });
  } finally {
    // Every chunk is written before the execution turns final, so a reader that sees it final has read all.
    await recorder.close();
  }
  traceMark("solve_end", record.id);
  // Ranging asked of a solver whose adapter cannot give it (all but native HiGHS).
  if (settings.ranging && result.ranging === undefined) result.ranging = "unsupported";
  // A JModel model's infeasible subset in the modeller's words: each member's family and index tuple.
  if (result.infeasibility && record.model_names) {
    const names = await loadPayload<StoredModelNames>(services.blobs, record.model_names);
    result.infeasibility = nameInfeasibility(result.infeasibility, modelNamesOf(names));
  }
  const response = {
    ...solveResponseOf(record.id, record.solver_name, { ...result, solution: snapIntegerValues(problem, result.solution) }),
    ...finalProgress(problem, settings, result, recorder),
  };
  const final = result.solver_status === "error" ? "failed" : "completed";
  const ref = await storePayload(services.blobs, resultKey(record.org_id, record.id, randomUUID()), response, services.config.inlinePayloadMaxBytes);
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
 * when a pool was asked for, the pool: each solution checked against the problem, or "unsupported".
 */
function finalProgress(problem: Problem, settings: SolveSettings, result: AdapterResult, recorder: ProgressRecorder): Partial<SolveResponse> {
  const incumbents = recorder.incumbents();
  const objective = result.objective_value;
  if (objective !== null && result.solution !== null) {
    const sign = problem.sense === "maximize" ? -1 : 1;
    const last = incumbents.at(-1);
    const near = (v: number) => Math.abs(v - objective) <= 1e-6 * Math.max(1, Math.abs(objective));
    // A log prints fewer digits than the result carries: the same incumbent gets the result's value.
    if (last && near(last.objective_value)) last.objective_value = objective;
    else if (!last || sign * objective < sign * last.objective_value) {
      incumbents.push({ time_seconds: result.solver_time_seconds ?? (result.wall_time_ms ?? 0) / 1000, objective_value: objective });
    }
  }
  if ((settings.solutionPoolSize ?? 1) <= 1 || result.solution === null || objective === null) return { incumbents };
  // An LP has one reported optimum: its pool is that solution, whatever the solver.
  if (!hasIntegers(problem)) return { incumbents, solutions: [{ objective_value: objective, solution: result.solution }] };
  if (!Array.isArray(result.solution_pool)) return { incumbents, solution_pool: "unsupported" };
  // A pool member the checker rejects is left out, never reported as feasible.
  const solutions = result.solution_pool
    .map((s) => ({ objective_value: s.objective_value, solution: snapIntegerValues(problem, s.solution)! }))
    .filter((s) => checkSolution(problem, s.solution, { objective: s.objective_value, tolerance: 1e-6 }).length === 0);
  return { incumbents, solutions };
}

async function notifyExecution(rt: WorkerRuntime, record: ExecutionRecord, response: SolveResponse, final: "completed" | "failed"): Promise<void> {
  const org = await rt.services.identity.getOrganization(record.org_id);
  await rt.services.notifications.notify(record.created_by, {
    type: final === "completed" ? "execution_complete" : "execution_failed",
    title: final === "completed" ? `Solve finished: ${response.solver_status}` : "Solve failed",
    message:
      final === "completed"
        ? `${record.problem_name} with ${record.solver_name}: ${response.solver_status}${response.objective_value !== null ? `, objective ${response.objective_value}` : ""}.`
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
      error_message: `worker error: ${(error as Error).message}`,
      completed_at: isoTime(services.clock.now()),
    });
    rt.announceFinal?.(id);
    throw error;
  } finally {
    keeper.stop();
  }
}
