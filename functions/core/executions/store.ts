import { isoTime } from "../clock.js";
import type { PayloadRef } from "../blob/blob-store.js";
import type { Settings } from "../solvers/settings.js";
import { activeIndex, type LapsedFailure, type LeaseClaim, Leases, lapsedFailureWrite, withoutUnsetTimes } from "../store/leases.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";
import type { ExecutionOrigin, ExecutionStatus, ExecutionView, SolveResponse } from "./schemas.js";
import type { AutoChoice } from "../solvers/recommendation/schemas.js";
import type { RaceView } from "../races/schemas.js";

/**
 * One solver run (keys: see store/keys.ts). Created queued by the API (plain and async
 * solve, document runs) or running by a comparison's worker for each row it starts.
 */
export interface ExecutionRecord {
  id: string;
  org_id: string;
  created_by: string;
  status: ExecutionStatus;
  origin: ExecutionOrigin;
  /** The band it was queued on (queue/priority.ts); absent on records from before priorities: 0. */
  priority?: number;
  /** Create in-app notifications for `created_by` when it ends (async runs). */
  notify: boolean;
  solver_requested: string;
  solver_name: string;
  problem: PayloadRef;
  problem_name: string;
  problem_class: string;
  variable_count: number;
  constraint_count: number;
  settings: Settings;
  credits_charged: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error_message: string | null;
  result: PayloadRef | null;
  /** When the sweeper may call a waiting execution abandoned (ms). */
  deadline_ms: number | null;
  /** A JModel model's generated names → family and index (jmodel/names.ts StoredModelNames); absent for other problems. */
  model_names?: PayloadRef;
  /** Set when the API answered it itself (no warm worker took it, api-solve.ts); absent: a worker did. */
  solved_by?: "api";
  /** An explanation (POST …/explain): the infeasible execution it explains. */
  explains_execution_id?: string;
  /** An explained execution: its latest explanation. */
  explanation_execution_id?: string;
  /** With solver `auto`: how it chose (solvers/recommendation/); absent when a solver was named or before issue 29. */
  auto_choice?: AutoChoice;
  /** With solver_name `race`: its entrants and, once decided, the winner (issue 29). */
  race?: RaceView;
  /** A race's objective sense (kept for whoever settles it, even the sweeper); absent on other executions. */
  race_sense?: "minimize" | "maximize";
  /** A race's loser asked to stop: when (its end minus this is how long the stop took; bench race). */
  cancel_requested_at?: string;
  /** A trigger run's race: the run's trigger (the run's key needs it), so that the race's end completes the run. */
  race_trigger_id?: string;
}

/** What a waiting caller needs to answer: the status, and the result or the reason. */
export type ExecutionOutcome = Pick<ExecutionRecord, "id" | "status" | "result" | "error_message">;

export const executionKey = (orgId: string, id: string) => keys.execution({ orgId, id });

const executionOf = (item: Record<string, unknown>): ExecutionRecord => fromItem<ExecutionRecord>(item, { started_at: null, completed_at: null });

export class ExecutionStore {
  readonly leases: Leases;
  constructor(private readonly table: Table) {
    this.leases = new Leases(table);
  }

  async create(record: ExecutionRecord): Promise<void> {
    const active =
      record.status === "queued" || record.status === "running" ? activeIndex("execution", `${record.org_id}#${record.id}`, record.created_at) : {};
    await this.table.putNew({ ...executionKey(record.org_id, record.id), ...withoutUnsetTimes(record), ...active });
  }

  /** A running execution created by a worker that already holds the work (comparison rows). */
  async createRunning(record: ExecutionRecord, { worker, leaseMs, nowMs }: LeaseClaim): Promise<void> {
    await this.table.putNew({
      ...executionKey(record.org_id, record.id),
      ...record,
      status: "running",
      lease_owner: worker,
      lease_expires_at_ms: nowMs + leaseMs,
      ...activeIndex("execution", `${record.org_id}#${record.id}`, record.created_at),
    });
  }

  async get(orgId: string, id: string): Promise<ExecutionRecord | null> {
    const item = await this.table.get(executionKey(orgId, id).pk, executionKey(orgId, id).sk);
    return item ? executionOf(item) : null;
  }

  /** Where an execution stands, without its problem (polling an item that may hold it inline). */
  async outcome(orgId: string, id: string): Promise<ExecutionOutcome | null> {
    const key = executionKey(orgId, id);
    const item = await this.table.getAttributes<ExecutionOutcome>(key.pk, key.sk, ["id", "status", "result", "error_message"]);
    return item ? { id: item.id, status: item.status, result: item.result ?? null, error_message: item.error_message ?? null } : null;
  }

  /** Takes a queued execution (or one whose lease lapsed) for `claim.worker`; null when someone else holds it or it is final. */
  async acquire(orgId: string, { id, ...claim }: LeaseClaim & { id: string }): Promise<ExecutionRecord | null> {
    const item = await this.leases.acquire<Record<string, unknown>>(executionKey(orgId, id), {
      ...claim,
      waiting: ["queued"],
      startedAt: isoTime(claim.nowMs),
    });
    return item ? executionOf(item) : null;
  }

  /** Moves an execution `worker` holds to its final status; false when the worker no longer holds it. */
  async finalizeHeld(
    orgId: string,
    {
      id,
      worker,
      status,
      fields,
    }: {
      id: string;
      worker: string;
      status: "completed" | "failed" | "cancelled";
      fields: {
        result: PayloadRef | null;
        error_message: string | null;
        completed_at: string;
        solver_name?: string;
        solved_by?: "api";
        /** The API answered an `auto` solve with jaos (api-solve.ts): the choice as it was made. */
        auto_choice?: AutoChoice;
      };
    },
  ): Promise<boolean> {
    return (await this.leases.finalizeHeld(executionKey(orgId, id), { worker, status, set: fields })) !== null;
  }

  /** Points an execution at its (latest) explanation. */
  async linkExplanation(orgId: string, id: string, explanationId: string): Promise<boolean> {
    return (await this.table.setFields(executionKey(orgId, id), { explanation_execution_id: explanationId })) !== null;
  }

  /** Gives a queued execution's job back (its worker is stopping): queued again, for the next worker. */
  async handBack(orgId: string, { id, worker, nowMs }: { id: string; worker: string; nowMs: number }): Promise<boolean> {
    return (await this.leases.handBack(executionKey(orgId, id), { worker, waiting: "queued", queuedAt: isoTime(nowMs) })) !== null;
  }

  /** Fails an execution that never got a worker (its enqueue was refused), if it is still in one of `from`. */
  async failUnheld(
    orgId: string,
    { id, from, reason, nowMs }: { id: string; from: ExecutionStatus[]; reason: string; nowMs: number },
  ): Promise<ExecutionRecord | null> {
    const item = await this.leases.finalizeUnheld<Record<string, unknown>>(executionKey(orgId, id), {
      from,
      status: "failed",
      set: { error_message: reason, completed_at: isoTime(nowMs) },
    });
    return item ? executionOf(item) : null;
  }

  /**
   * The sweeper's write: fails an execution whose lease (seen `running`) lapsed, or that waits unleased
   * (`seenStatus` queued) since the `seenQueuedAt` the sweeper read.
   */
  async failIfLeaseLapsed(orgId: string, failure: LapsedFailure<ExecutionStatus>): Promise<ExecutionRecord | null> {
    const item = await this.leases.failIfLeaseLapsed<Record<string, unknown>>(executionKey(orgId, failure.id), lapsedFailureWrite(failure));
    return item ? executionOf(item) : null;
  }
}

export function executionView(record: ExecutionRecord, result: SolveResponse | null): ExecutionView {
  return {
    id: record.id,
    status: record.status,
    solver_name: record.solver_name,
    solver_requested: record.solver_requested,
    problem_name: record.problem_name,
    problem_class: record.problem_class,
    variable_count: record.variable_count,
    constraint_count: record.constraint_count,
    settings: record.settings,
    credits_charged: record.credits_charged,
    priority: record.priority ?? 0,
    origin: record.origin,
    created_at: record.created_at,
    started_at: record.started_at,
    completed_at: record.completed_at,
    error_message: record.error_message,
    explains_execution_id: record.explains_execution_id ?? null,
    explanation_execution_id: record.explanation_execution_id ?? null,
    solved_by: record.solved_by ?? (record.result ? "worker" : null),
    auto_choice: record.auto_choice ?? null,
    race: record.race ?? null,
    result,
  };
}
