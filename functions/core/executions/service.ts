import type { Principal } from "../auth/service.js";
import { loadPayload, storePayload, type BlobStore } from "../blob/blob-store.js";
import { isoTime, type Clock } from "../clock.js";
import type { Config } from "../config.js";
import { AppError, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { SolveCharges } from "../limits/charges.js";
import { problemStats, type Problem, type ProblemStats } from "../problem/schema.js";
import type { Queues } from "../queue/sqs.js";
import type { InventoryStore } from "../solvers/inventory.js";
import { pickAuto, unsupportedReason } from "../solvers/registry.js";
import { resolveSettings, type SettingsRequest } from "../solvers/settings.js";
import type { SolverChoice, SolverName, UnsupportedReason } from "../solvers/types.js";
import type { ExecutionOrigin, ExecutionView, SolveResponse } from "./schemas.js";
import { executionView, type ExecutionRecord, type ExecutionStore } from "./store.js";

/** 403 when a problem is past the instance's variable cap (0 = none). */
export function assertVariableCap(config: Pick<Config, "instanceMaxVariables">, stats: ProblemStats): void {
  const cap = config.instanceMaxVariables;
  if (cap > 0 && stats.variable_count > cap) {
    throw new AppError("variable_limit_exceeded", `The model has ${stats.variable_count} variables; this instance allows at most ${cap}.`, {
      variable_count: stats.variable_count,
      limit: cap,
    });
  }
}

export const problemKey = (orgId: string, id: string) => `problems/${orgId}/${id}.json`;
export const resultKey = (orgId: string, id: string) => `results/${orgId}/${id}.json`;

/**
 * Plain and async solves and builder-document runs: one execution, one solver. Launch validates,
 * picks the solver, charges, stores the problem, enqueues; the solver container does the rest.
 */
export class ExecutionService {
  constructor(
    private readonly deps: {
      config: Config;
      clock: Clock;
      executions: ExecutionStore;
      blobs: BlobStore;
      inventory: InventoryStore;
      charges: SolveCharges;
      queues: Queues;
    },
  ) {}

  /** Which solver runs: `auto` picks per problem class; a named one must be able to run it. */
  async chooseSolver(choice: SolverChoice, problem: Problem): Promise<SolverName> {
    const cls = problemStats(problem).problem_class;
    const available = await this.deps.inventory.available(this.deps.clock.now());
    if (choice === "auto") {
      const picked = pickAuto(cls, available);
      if (!picked) {
        throw new AppError("no_solver_can_run_this_model", `No available solver can run a ${cls} problem.`, { reasons: { auto: "not_available" } });
      }
      return picked;
    }
    const reason: UnsupportedReason | null = unsupportedReason(choice, cls, available);
    if (reason) {
      throw new AppError("no_solver_can_run_this_model", `Solver ${choice} cannot run this ${cls} problem: ${reason}.`, { reasons: { [choice]: reason } });
    }
    return choice;
  }

  async launch(
    principal: Principal,
    input: { problem: Problem; solver_name: SolverChoice; settings?: SettingsRequest },
    origin: ExecutionOrigin,
    notify: boolean,
  ): Promise<ExecutionRecord> {
    const { config, clock } = this.deps;
    const stats = problemStats(input.problem);
    assertVariableCap(config, stats);
    const solver = await this.chooseSolver(input.solver_name, input.problem);
    const settings = resolveSettings(config, input.settings);
    const credits = this.deps.charges.creditsFor(stats, settings.time_limit_seconds);
    await this.deps.charges.charge(principal.orgId, principal.userId, 1, credits);

    const now = clock.now();
    const id = newId("exe", now);
    const record: ExecutionRecord = {
      id,
      org_id: principal.orgId,
      created_by: principal.userId,
      status: "queued",
      origin,
      notify,
      solver_requested: input.solver_name,
      solver_name: solver,
      problem: await storePayload(this.deps.blobs, problemKey(principal.orgId, id), input.problem, config.inlinePayloadMaxBytes),
      problem_name: input.problem.name,
      problem_class: stats.problem_class,
      variable_count: stats.variable_count,
      constraint_count: stats.constraint_count,
      settings,
      credits_charged: credits,
      created_at: isoTime(now),
      started_at: null,
      completed_at: null,
      error_message: null,
      result: null,
      deadline_ms: null,
    };
    await this.deps.executions.create(record);
    try {
      await this.deps.queues.sendJob({ type: "execution", id, org_id: principal.orgId });
    } catch (error) {
      await this.deps.executions.fail(principal.orgId, id, ["queued"], `enqueue_failed: ${(error as Error).message}`, clock.now());
      throw error;
    }
    return record;
  }

  async view(principal: Principal, id: string): Promise<ExecutionView> {
    const record = await this.deps.executions.get(principal.orgId, id);
    if (!record) throw notFound("Execution");
    return executionView(record, await this.result(record));
  }

  async result(record: ExecutionRecord): Promise<SolveResponse | null> {
    return record.result ? loadPayload<SolveResponse>(this.deps.blobs, record.result) : null;
  }

  /**
   * Polls until the execution is final or `timeoutMs` passes (the plain solve's bounded wait).
   * Starts fast and backs off, so a quick solve is answered within a few milliseconds of finishing.
   */
  async waitForFinal(orgId: string, id: string, timeoutMs: number): Promise<ExecutionRecord | null> {
    const deadline = Date.now() + timeoutMs;
    let delay = 5;
    for (;;) {
      const record = await this.deps.executions.get(orgId, id);
      if (record && (record.status === "completed" || record.status === "failed" || record.status === "cancelled")) return record;
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(1, deadline - Date.now()))));
      delay = Math.min(50, delay * 1.3);
    }
  }
}
