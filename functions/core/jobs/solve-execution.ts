import { randomUUID } from "node:crypto";
import { deleteStoredBlob, loadPayload, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { SolveResponse } from "../executions/schemas.js";
import { blobKeys } from "../blob/keys.js";
import type { ExecutionRecord } from "../executions/store.js";
import { closeCancelled } from "../executions/close-cancelled.js";
import { modelNamesOf, nameInfeasibility, type StoredModelNames } from "../jmodel/names.js";
import { hasIntegers, type Problem } from "../problem/schema.js";
import { ProgressRecorder } from "../progress/recorder.js";
import { isSolverName } from "../solvers/registry.js";
import { solveResponseOf } from "../solvers/result.js";
import { toSolveSettings } from "../solvers/settings.js";
import type { SolveSettings, SolverName } from "../solvers/types.js";
import { nameViolationPlace, verifiedSolve, type VerifiedSolve, verifyPool } from "../solvers/verification.js";
import { traceMark } from "../trace/solve-trace.js";
import { assessStart, basisWarmStart, startForSolver, warmStartOf } from "../solvers/warm-start.js";
import type { JobPorts, SolvedResult } from "./ports.js";
import { RACE_STOPPED_MESSAGE } from "../races/rules.js";
import { type FirstRun, fallbackNote, fallbackPlan, fallenBackChoice } from "./auto-fallback.js";

export interface SolveExecutionOptions {
  /** The execution, held by this worker (`running` under its lease). */
  record: ExecutionRecord;
  problem: Problem;
  /** Stops the solver (the job's lease was lost). */
  signal?: AbortSignal;
}

export interface SolvedExecution {
  response: SolveResponse;
  final: "completed" | "failed";
}

/** A solve stopped on request (a race entrant another solver beat): ended `cancelled`, with what it had reached. */
export interface StoppedExecution {
  response: SolveResponse;
  final: "cancelled";
  reached: { incumbent: number | null; bound: number | null };
}

/**
 * The step every job kind shares: one held execution solved under the kill switch and through the
 * verification gate, its result stored, the execution moved to completed (a verdict) or failed (the
 * solver errored), metrics and notifications recorded.
 */
export function solveExecution(ports: JobPorts, options: SolveExecutionOptions & { stop: AbortSignal }): Promise<SolvedExecution | StoppedExecution>;
export function solveExecution(ports: JobPorts, options: SolveExecutionOptions): Promise<SolvedExecution>;
/**
 * With `stop` (a race entrant, races/): the same solve, which `stop` ends early through the kill switch
 * like a lost lease; the execution then ends `cancelled` with the incumbent and bound it had reached.
 */
export async function solveExecution(ports: JobPorts, options: SolveExecutionOptions & { stop?: AbortSignal }): Promise<SolvedExecution | StoppedExecution> {
  const { record, problem, stop } = options;
  const signal = stop && options.signal ? AbortSignal.any([options.signal, stop]) : (stop ?? options.signal);
  traceMark("solve_start", record.id);
  const solver = record.solver_name as SolverName;
  // A MIP start is checked against the model before any solver sees it (solvers/warm-start.ts).
  const { initialSolution, initialBasis, ...plain } = toSolveSettings(record.settings);
  const start = initialSolution ? assessStart(problem, initialSolution) : null;
  const startValues = startForSolver(problem, start);
  // A starting basis is an LP's (a MILP's result notes it was ignored).
  const basis = initialBasis && !hasIntegers(problem) ? initialBasis : undefined;
  const settings: SolveSettings = { ...plain, ...(startValues ? { initialSolution: startValues } : {}), ...(basis ? { initialBasis: basis } : {}) };
  const recorder = new ProgressRecorder(ports.progress, { orgId: record.org_id, executionId: record.id }, { sense: problem.sense });
  // Every answer passes the verification gate (solvers/verification.ts); a repeat of the same solver
  // streams its progress too, a cross-check by another solver does not.
  const gated = (name: SolverName, s: SolveSettings) =>
    verifiedSolve<SolvedResult>({
      problem,
      solver: name,
      settings: s,
      solve: (checker, p, ss) =>
        ports.solver.solve(checker, {
          problem: p,
          settings: ss,
          signal,
          killGraceSeconds: ports.config.killGraceSeconds,
          progress: checker === name ? recorder.sink : undefined,
        }),
      crossCheckers: async () => (await ports.solver.inventory()).filter((e) => e.available && isSolverName(e.name)).map((e) => e.name as SolverName),
    });
  let gate: VerifiedSolve<SolvedResult>;
  // With `auto`: the execution as it answered (auto-fallback.ts: the default's run when the choice ended in an error).
  let answered = record;
  let incumbentsFrom = 0;
  try {
    const started = performance.now();
    gate = await gated(solver, settings);
    const first: FirstRun = {
      status: gate.status,
      errorMessage: gate.result.error_message ?? gate.verification.message ?? null,
      seconds: Math.max((performance.now() - started) / 1000, (gate.result.wall_time_ms ?? 0) / 1000),
    };
    const plan = record.auto_choice
      ? fallbackPlan(record, first, {
          available: new Set((await ports.solver.inventory()).filter((e) => e.available).map((e) => e.name)),
          timeLimitSeconds: settings.timeLimitSeconds,
          stopped: signal?.aborted === true,
        })
      : null;
    if (plan && record.auto_choice) {
      recorder.line(fallbackNote(solver, plan, first));
      // The first run's incumbents were not answers: the result's are the default's.
      incumbentsFrom = recorder.incumbents().length;
      gate = await gated(plan.solver, { ...settings, timeLimitSeconds: plan.timeLimitSeconds });
      answered = { ...record, solver_name: plan.solver, auto_choice: fallenBackChoice(record.auto_choice, solver, plan, first, record.problem_class) };
    }
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
    const names = modelNamesOf(await loadPayload<StoredModelNames>(ports.blobs, record.model_names));
    if (result.infeasibility) result.infeasibility = nameInfeasibility(result.infeasibility, names);
    gate.verification.where = nameViolationPlace(gate.verification.where, names);
  }
  const response = {
    ...solveResponseOf(record.id, { solver: answered.solver_name, result, gate }),
    ...finalProgress({ problem, settings, gate, recorder, incumbentsFrom }),
    // With `auto`: why this solver, where a result travels without its execution (a webhook, a trigger run).
    ...(answered.auto_choice ? { auto_choice: answered.auto_choice } : {}),
    ...warmStartField(problem, answered.solver_name, { start, basis: initialBasis, result }),
    ...(result.basis ? { basis: result.basis } : {}),
  };
  if (stop?.aborted) return stopped(ports, { record, response, recorder });
  const final = gate.status === "error" ? "failed" : "completed";
  const ref = await storePayload(ports.blobs, blobKeys.executionResult(record.org_id, record.id, randomUUID()), {
    value: response,
    inlineMaxBytes: ports.config.inlinePayloadMaxBytes,
  });
  const now = ports.clock.now();
  const errorMessage = final === "failed" ? (result.error_message ?? "the solver failed") : null;
  const held = await ports.executionStore.finalizeHeld(record.org_id, {
    id: record.id,
    worker: ports.workerId,
    status: final,
    fields: {
      result: ref,
      error_message: errorMessage,
      completed_at: isoTime(now),
      // The solver that answered, and the choice that says it fell back (no credits beyond the one solve charged).
      ...(answered !== record ? { solver_name: answered.solver_name, ...(answered.auto_choice ? { auto_choice: answered.auto_choice } : {}) } : {}),
    },
  });
  traceMark("result_written", record.id);
  // What this write made final (a final item never changes again); when it was not held, only "read it".
  ports.announceFinal?.(record.id, held ? { id: record.id, status: final, result: ref, error_message: errorMessage } : undefined);
  // Lost meanwhile (swept, or handed back by this stopping worker): another outcome stands; say nothing,
  // and take back this attempt's blob, which nothing references.
  if (!held) {
    if ("blob" in ref) await deleteStoredBlob(ports.blobs, "results/", ref.blob).catch(() => undefined);
    return { response, final };
  }
  await ports.metricsStore.addTotals({ requests: 0, ok: 0, failed: 0, solved: 1, solveMs: result.wall_time_ms ?? 0 }, now).catch(() => undefined);
  if (record.notify) await notifyExecution(ports, { record: answered, response, final });
  return { response, final };
}

/**
 * Ends a stopped solve `cancelled`: its result keeps the incumbents it found, with its best incumbent and
 * last bound as the objective and bound (no solution vector: a stopped process hands none over).
 */
async function stopped(
  ports: JobPorts,
  { record, response, recorder }: { record: ExecutionRecord; response: SolveResponse; recorder: ProgressRecorder },
): Promise<StoppedExecution> {
  const reached = recorder.reached();
  const kept: SolveResponse = { ...response, objective_value: reached.incumbent, dual_bound: reached.bound, error_message: RACE_STOPPED_MESSAGE };
  const ref = await storePayload(ports.blobs, blobKeys.executionResult(record.org_id, record.id, randomUUID()), {
    value: kept,
    inlineMaxBytes: ports.config.inlinePayloadMaxBytes,
  });
  const held = await closeCancelled(ports, { record, result: ref, errorMessage: RACE_STOPPED_MESSAGE });
  if (!held && "blob" in ref) await deleteStoredBlob(ports.blobs, "results/", ref.blob).catch(() => undefined);
  return { response: kept, final: "cancelled", reached };
}

/** The result's `warm_start`: an LP's basis when one was given, else the MIP start's; absent when neither was. */
function warmStartField(
  problem: Problem,
  solver: string,
  given: { start: ReturnType<typeof assessStart> | null; basis: unknown; result: SolvedResult },
): Partial<SolveResponse> {
  if (given.basis && !(hasIntegers(problem) && given.start)) return { warm_start: basisWarmStart(problem, solver, given.result.basis_use) };
  if (given.start) return { warm_start: warmStartOf(problem, { solver, assessment: given.start, use: given.result.start_use }) };
  return {};
}

/**
 * The incumbents the recorder saw (with the final objective when the solver's last report missed it) and,
 * when a pool was asked for, the pool: each member through the verification gate's rules (verifyPool),
 * or "unsupported".
 */
function finalProgress({
  problem,
  settings,
  gate,
  recorder,
  incumbentsFrom = 0,
}: {
  problem: Problem;
  settings: SolveSettings;
  gate: VerifiedSolve<SolvedResult>;
  recorder: ProgressRecorder;
  /** The recorder's incumbents before this index were a run that did not answer (auto-fallback.ts). */
  incumbentsFrom?: number;
}): Partial<SolveResponse> {
  const result = gate.result;
  const verified = gate.verification.status === "verified";
  const sign = problem.sense === "maximize" ? -1 : 1;
  const objective = verified ? result.objective_value : null;
  const near = (v: number, z: number) => Math.abs(v - z) <= 1e-6 * Math.max(1, Math.abs(z));
  let incumbents = recorder.incumbents().slice(incumbentsFrom);
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

async function notifyExecution(ports: JobPorts, solved: SolvedExecution & { record: ExecutionRecord }): Promise<void> {
  const { record, response, final } = solved;
  const org = await ports.identity.getOrganization(record.org_id);
  await ports.notifications.notify(record.created_by, {
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
