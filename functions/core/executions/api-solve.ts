import { randomUUID } from "node:crypto";
import { loadPayload, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { SERVICE_METRIC } from "../observability/metric-names.js";
import type { ServiceMetrics } from "../observability/metrics.js";
import { type Problem, problemStats } from "../problem/schema.js";
import { numericsOf } from "../problem/numerics.js";
import { solveResponseOf } from "../solvers/result.js";
import { emptyResult, type SolverResult } from "../solvers/types.js";
import { type VerifiedSolve, verifiedSolve, verifyResult } from "../solvers/verification.js";
import { assessStart, warmStartOf } from "../solvers/warm-start.js";
import { isServing, type WorkerHeartbeats } from "../health/worker-heartbeats.js";
import type { MetricsStore } from "../observability/metrics-store.js";
import type { BlobStore } from "../blob/blob-store.js";
import type { Clock } from "../clock.js";
import type { SolveResponse } from "./schemas.js";
import type { ExecutionOutcome, ExecutionRecord, ExecutionStore } from "./store.js";
import { blobKeys } from "../blob/keys.js";
import type { AutoChoice } from "../solvers/recommendation/schemas.js";
import { solverShortName } from "../solvers/recommendation/recommender.js";
import type { SolverName } from "../solvers/types.js";

/**
 * Answers from zero: a plain solve small enough (at most `apiSolveMaxNonzeros` constraint nonzeros, no
 * quadratic terms, for jaos or `auto`) is solved by the API function itself, with jaos (Incumbent's own
 * engine, pure TypeScript: nothing to package but code), when no warm worker is there to take it:
 *
 *  - no worker is live (a stage idling at zero tasks): the execution is created running under the
 *    API's lease and never queued, so it wakes no task, and solved at once;
 *  - workers are live but none took it within `apiSolveTakeoverSeconds`: the API takes its lease (the
 *    queued message is then skipped by the worker that receives it, as any finished job's is).
 *
 * With `auto` the API answers only what `auto` would give jaos anyway, or what no warm worker is there
 * for (mayTakeOver, answeredHereChoice): a solve the recommendation (or the default rule) gives another
 * solver waits for a live fleet, busy or not, rather than run with a solver the evidence did not choose;
 * with no worker live it is answered here at once, and its `auto_choice` says so and what the
 * recommendation was (docs/decisions.md, "`auto` revisited", addendum of 2026-11-28).
 *
 * Recorded like any execution: a result blob, the lease's `finish`, `solved_by: "api"`, the solver
 * actually used (`jaos`), the service's totals. Every result passes the verification gate before it is kept.
 * A solve that reaches the API's budget before the user's time limit is not answered as `time_limit`:
 * the execution goes back to the queue for the fleet, as it would have without this path; so does an
 * `auto` solve jaos ends in an error (handsBackToFleet).
 */
export interface ApiSolveEngine {
  solve(problem: Problem, options: { timeLimitSeconds: number; gapTolerance: number; integralityTolerance?: number }): SolverResult;
  version: string;
}

export interface ApiSolverDeps {
  config: Pick<Config, "apiSolveMaxNonzeros" | "apiSolveTakeoverSeconds" | "workerHeartbeatSeconds" | "inlinePayloadMaxBytes" | "solveWaitSeconds">;
  clock: Clock;
  executionStore: ExecutionStore;
  blobs: BlobStore;
  metricsStore: MetricsStore;
  workerHeartbeats: Pick<WorkerHeartbeats, "list">;
  logger: Logger;
  metrics: ServiceMetrics;
  /** The engine, loaded on first use (the API's cold start does not parse it); absent: this path is off. */
  engine?: () => Promise<ApiSolveEngine>;
}

/** Where the API answers, and why not. */
export type ApiSolvePlan = { here: false; reason: string } | { here: true; now: boolean };

/** The solver name an API-side solve reports. */
export const API_SOLVER = "jaos";
/** What the API keeps of its time for reading, writing and answering after the solve. */
const API_SOLVE_MARGIN_MS = 3000;

/**
 * Whether the API may take over a launched execution that a live fleet left waiting: a named jaos, or an
 * `auto` that chose jaos. An `auto` that chose another solver waits for a worker: it is warm and will run
 * what the evidence chose.
 */
export const mayTakeOver = (record: Pick<ExecutionRecord, "solver_requested" | "solver_name">): boolean =>
  record.solver_requested !== "auto" || record.solver_name === API_SOLVER;

/**
 * The `auto_choice` of an `auto` solve the API answered: as chosen when that was jaos; else jaos, saying
 * that no warm worker was there and what the recommendation (or the default rule) had chosen. Undefined
 * for a named solver.
 */
export function answeredHereChoice(record: Pick<ExecutionRecord, "solver_requested" | "solver_name" | "auto_choice">): AutoChoice | undefined {
  if (record.solver_requested !== "auto") return record.auto_choice;
  if (record.solver_name === API_SOLVER && record.auto_choice) return record.auto_choice;
  const chosen = record.auto_choice ?? {
    solver: record.solver_name as SolverName,
    reason: `${solverShortName(record.solver_name as SolverName)} by the default rule.`,
    basis: "default_rule" as const,
    evidence: { comparisons: 0, similar_problems: [] },
  };
  if (chosen.solver === API_SOLVER) return chosen;
  const reason =
    `No solver worker was warm, so the API answered at once with jaos rather than wait for one to start; ` +
    `with a warm worker ${solverShortName(chosen.solver)} would have run. ${chosen.reason}`;
  return { ...chosen, solver: API_SOLVER, reason };
}

/**
 * Whether an API-side answer goes to the fleet instead of being kept: an `auto` solve that jaos answered
 * with `error` (its own, or a refuted answer). This process has no other solver to fall back to, and `auto`
 * never ends in its solver's error when the default can answer (jobs/auto-fallback.ts): a worker runs the
 * choice (jaos again when the evidence chose it) and falls back to the default there. A named jaos keeps its answer.
 */
export const handsBackToFleet = (record: Pick<ExecutionRecord, "solver_requested">, status: string): boolean =>
  record.solver_requested === "auto" && status === "error";

export class ApiSolver {
  constructor(private readonly deps: ApiSolverDeps) {}

  /** Whether a plain solve may be answered here: its size and solver, then whether any worker is live. */
  async plan(problem: Problem, solverRequested: string): Promise<ApiSolvePlan> {
    const max = this.deps.config.apiSolveMaxNonzeros;
    if (max <= 0 || !this.deps.engine) return { here: false, reason: "off" };
    if (solverRequested !== API_SOLVER && solverRequested !== "auto") return { here: false, reason: `solver ${solverRequested}` };
    const stats = problemStats(problem);
    if (stats.quadratic_term_count > 0) return { here: false, reason: "quadratic" };
    if (stats.nonzero_count > max) return { here: false, reason: `${stats.nonzero_count} nonzeros` };
    return { here: true, now: !(await this.anyWorkerLive()) };
  }

  private async anyWorkerLive(): Promise<boolean> {
    const now = this.deps.clock.now();
    const workers = await this.deps.workerHeartbeats.list().catch(() => []);
    // A worker still warming up does not take the job yet (its first beat is written before its warm-up).
    return workers.some((w) => isServing(w, now, this.deps.config.workerHeartbeatSeconds));
  }

  /** The API's lease owner for one request. */
  static owner(requestId: string): string {
    return `api:${requestId}`;
  }

  /** How long the API's lease holds: the longest the solve may run here, and a margin (nothing renews it while jaos runs). */
  leaseMs(): number {
    return (this.deps.config.solveWaitSeconds + 30) * 1000;
  }

  /**
   * Takes a queued execution no worker holds yet and solves it here. Null when a worker holds it (or
   * swept it); "released" when the API's budget ran out first, or an `auto` solve ended in jaos's error
   * (it is queued again, its message waits).
   */
  async takeOver(record: ExecutionRecord, owner: string, deadlineMs: number): Promise<ExecutionOutcome | "released" | null> {
    const { executionStore, clock } = this.deps;
    const held = await executionStore.acquire(record.org_id, { id: record.id, worker: owner, leaseMs: this.leaseMs(), nowMs: clock.now() });
    if (!held) return null;
    return this.solveHeld(held, owner, deadlineMs);
  }

  /**
   * Solves an execution this request holds (taken over, or created running under `owner`): its outcome;
   * "released" when the API's budget, not the user's time limit, stopped the solve — the execution is
   * queued again without a lease (a caller that created it unqueued must now queue its job); null when
   * the lease was lost meanwhile (swept) and that outcome stands.
   */
  async solveHeld(record: ExecutionRecord, owner: string, deadlineMs: number): Promise<ExecutionOutcome | "released" | null> {
    const { executionStore, blobs, clock, config, logger } = this.deps;
    const problem = await loadPayload<Problem>(blobs, record.problem);
    const budgetSeconds = Math.max(0, (deadlineMs - Date.now() - API_SOLVE_MARGIN_MS) / 1000);
    const asked = record.settings.time_limit_seconds;
    const timeLimitSeconds = Math.min(asked, budgetSeconds);
    // Through the verification gate like every worker's answer (solvers/verification.ts): the engine is
    // the solve port; a big-M trickle is repeated with its integrality tolerance tightened. No
    // cross-check here: this process has only jaos.
    let gate: VerifiedSolve;
    try {
      const engine = await this.deps.engine!();
      gate = await verifiedSolve({
        problem,
        solver: API_SOLVER,
        settings: { timeLimitSeconds, gapTolerance: record.settings.gap_tolerance, threads: 1 },
        solve: async (_solver, p, s) => ({
          ...engine.solve(p, { timeLimitSeconds: s.timeLimitSeconds, gapTolerance: s.gapTolerance, integralityTolerance: s.integralityTolerance }),
          solver_version: engine.version,
        }),
      });
    } catch (error) {
      const result = emptyResult("error", `API-side solve failed: ${(error as Error).message}`);
      gate = { status: "error", result, verification: verifyResult(problem, result).verification, numerics: numericsOf(problem) };
    }
    const accepted = gate.result;
    if (accepted.solver_status === "time_limit" && timeLimitSeconds < asked) {
      // The API's budget, not the user's limit, stopped it: the fleet gets the job as it would have.
      logger.info("API-side solve ran out of the API's budget; back to the fleet", { execution_id: record.id, budget_seconds: timeLimitSeconds });
      return (await executionStore.handBack(record.org_id, { id: record.id, worker: owner, nowMs: clock.now() })) ? "released" : null;
    }
    if (handsBackToFleet(record, gate.status)) {
      logger.info("API-side auto solve ended in an error; to the fleet, which falls back to the default", { execution_id: record.id });
      return (await executionStore.handBack(record.org_id, { id: record.id, worker: owner, nowMs: clock.now() })) ? "released" : null;
    }
    const start = record.settings.initial_solution;
    const autoChoice = answeredHereChoice(record);
    const response: SolveResponse = {
      ...solveResponseOf(record.id, { solver: API_SOLVER, result: accepted, gate }),
      ...(autoChoice ? { auto_choice: autoChoice } : {}),
      // jaos takes no MIP start: the result says so, with the start's own worth (solvers/warm-start.ts).
      ...(start ? { warm_start: warmStartOf(problem, { solver: API_SOLVER, assessment: assessStart(problem, start) }) } : {}),
    };
    const final = gate.status === "error" ? "failed" : "completed";
    const ref = await storePayload(blobs, blobKeys.executionResult(record.org_id, record.id, randomUUID()), {
      value: response,
      inlineMaxBytes: config.inlinePayloadMaxBytes,
    });
    const now = clock.now();
    const errorMessage = final === "failed" ? (accepted.error_message ?? "the solver failed") : null;
    const finished = await executionStore.finalizeHeld(record.org_id, {
      id: record.id,
      worker: owner,
      status: final,
      fields: {
        result: ref,
        error_message: errorMessage,
        completed_at: isoTime(now),
        solver_name: API_SOLVER,
        solved_by: "api",
        ...(autoChoice ? { auto_choice: autoChoice } : {}),
      },
    });
    if (!finished) return null; // swept meanwhile: that outcome stands
    this.deps.metrics.count(SERVICE_METRIC.apiSolves);
    this.deps.metrics.outcome(SERVICE_METRIC.solveOutcomes, gate.status);
    await this.deps.metricsStore.addTotals({ requests: 0, ok: 0, failed: 0, solved: 1, solveMs: accepted.wall_time_ms ?? 0 }, now).catch(() => undefined);
    return { id: record.id, status: final, result: ref, error_message: errorMessage };
  }
}
