import { isoTime } from "../clock.js";
import type { StructureCounts } from "../solvers/recommendation/structure.js";
import type { PayloadRef } from "../blob/blob-store.js";
import type { Numerics } from "../problem/numerics.js";
import { and, assign, assignAll, buildUpdate, equals, leaseHeldBy, notEquals, type Part, statusIs } from "../store/conditions.js";
import { activeIndex, type ExtraWrite, type LapsedFailure, type LeaseClaim, Leases, lapsedFailureWrite, withoutUnsetTimes } from "../store/leases.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import { ConditionFailedError, type Table } from "../store/table.js";
import type { Agreement, ComparisonDetail, ComparisonStatus, Row } from "./schemas.js";

/**
 * A comparison (keys: see store/keys.ts) with its rows inside the item. Rows change one at a time with
 * `SET results[i] = …` on conditions (the worker's lease, the row still pending), so a poller sees them
 * fill in, a cancel never overwrites a row that started, and a redelivered job never redoes a row.
 */
export interface ComparisonRecord extends Omit<ComparisonDetail, "priority" | "numerics"> {
  org_id: string;
  created_by: string;
  /** Nonzero constraint coefficients, and integer and binary columns together; absent on records from before them. */
  nonzero_count?: number | null;
  integer_variable_count?: number | null;
  /** The rows by kind (solvers/recommendation/structure.ts), computed from the rows; absent on older records. */
  structure_counts?: StructureCounts | null;
  solver_names: string[];
  /** The problem to solve (inline comparisons, and matrix rows once compiled). */
  problem: PayloadRef | null;
  /** A matrix row's model and dataset, compiled by its worker: { jmodel_source, data }. */
  model: PayloadRef | null;
  /** A JModel project's generated names → family and index (jmodel/names.ts), passed to its rows' executions. */
  model_names?: PayloadRef;
  credits_each: number;
  cancel_requested: boolean;
  /** The band it is queued on (queue/priority.ts); absent on records from before priorities: 0. */
  priority?: number;
  /** The problem's coefficient ranges (problem/numerics.ts): at launch, or when a matrix row's worker compiles it. */
  numerics?: Numerics | null;
}

export const comparisonKey = (orgId: string, id: string) => keys.comparison({ orgId, id });

/** Row `index` is in `status`. */
const rowStatusIs = (index: number, status: Row["status"]): Part => equals(`results[${index}].status`, status);

/** Row `index` is running as execution `executionId` (the one the worker started, or saw). */
const rowRunsExecution = (index: number, executionId: string | null): Part =>
  and(rowStatusIs(index, "running"), equals(`results[${index}].execution_id`, executionId));

/** The comparison a stored item holds (times not set yet read as null). */
const comparisonOf = (item: Record<string, unknown>): ComparisonRecord => fromItem<ComparisonRecord>(item, { started_at: null, completed_at: null });

/**
 * Row changes as parts of one write: each changed row (`change` returns its new value, or null to keep
 * it) is set on its own, on the condition that its status is still the one read. No row is rewritten
 * from a stale read: a row that moved meanwhile fails the write, and the caller reads again.
 */
export function changedRows(rows: Row[], change: (row: Row, index: number) => Row | null): ExtraWrite {
  const set: Part[] = [];
  const conditions: Part[] = [];
  rows.forEach((row, i) => {
    const next = change(row, i);
    if (!next) return;
    set.push(assign(`results[${i}]`, next));
    conditions.push(rowStatusIs(i, row.status));
  });
  return { set, condition: conditions.length ? and(...conditions) : undefined };
}

export const FINAL_STATUSES: ComparisonStatus[] = ["completed", "failed", "cancelled"];

export class ComparisonStore {
  readonly leases: Leases;
  constructor(private readonly table: Table) {
    this.leases = new Leases(table);
  }

  async create(record: ComparisonRecord): Promise<void> {
    const active = FINAL_STATUSES.includes(record.status) ? {} : activeIndex("comparison", `${record.org_id}#${record.id}`, record.created_at);
    await this.table.putNew({ ...comparisonKey(record.org_id, record.id), ...withoutUnsetTimes(record), ...active });
  }

  async get(orgId: string, id: string): Promise<ComparisonRecord | null> {
    const key = comparisonKey(orgId, id);
    const item = await this.table.get(key.pk, key.sk);
    return item ? comparisonOf(item) : null;
  }

  async getMany(orgId: string, ids: string[]): Promise<ComparisonRecord[]> {
    const found = await Promise.all(ids.map((id) => this.get(orgId, id)));
    return found.filter((r): r is ComparisonRecord => r !== null);
  }

  /** Newest first; `total` counts every comparison of the organization. */
  async list(orgId: string, limit: number, offset: number): Promise<{ items: ComparisonRecord[]; total: number }> {
    const fields = "id, #status, problem_name, solver_names, batch_id, created_at, completed_at";
    const items: ComparisonRecord[] = [];
    let start: Record<string, unknown> | undefined;
    let skipped = 0;
    do {
      const page = await this.table.queryPage<Record<string, unknown>>({
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
        ExpressionAttributeValues: { ":pk": keys.comparison.partition(orgId), ":p": keys.comparison.prefix },
        ExpressionAttributeNames: { "#status": "status" },
        ProjectionExpression: fields,
        ScanIndexForward: false,
        ExclusiveStartKey: start,
      });
      for (const item of page.items) {
        if (skipped < offset) skipped++;
        else if (items.length < limit) items.push(item as unknown as ComparisonRecord);
      }
      start = items.length < limit ? page.next : undefined;
    } while (start);
    return { items, total: await this.count(orgId) };
  }

  private count(orgId: string): Promise<number> {
    return this.table.countPrefix(keys.comparison.partition(orgId), keys.comparison.prefix);
  }

  /** Takes a pending comparison (or one whose lease lapsed) for `claim.worker`; null when someone else holds it or it is final. */
  async acquire(orgId: string, { id, ...claim }: LeaseClaim & { id: string }): Promise<ComparisonRecord | null> {
    const item = await this.leases.acquire<Record<string, unknown>>(comparisonKey(orgId, id), {
      ...claim,
      waiting: ["pending"],
      startedAt: isoTime(claim.nowMs),
    });
    return item ? comparisonOf(item) : null;
  }

  /** Sets fields of a comparison the worker holds (compiled stats, the problem ref), and rows changed by `rows`. */
  async setFields(
    orgId: string,
    { id, worker, fields, rows }: { id: string; worker: string; fields: Partial<ComparisonRecord>; rows?: ExtraWrite },
  ): Promise<boolean> {
    const out = await this.leases.update(comparisonKey(orgId, id), worker, { set: [...assignAll(fields), ...(rows?.set ?? [])], condition: rows?.condition });
    return out !== null;
  }

  /**
   * Starts row `index` for the worker holding the comparison: only if the row is still pending and no
   * cancel was asked. Returns "started", or "cancelled" / "lost" when it must not run.
   */
  async startRow(
    orgId: string,
    { id, index, worker, executionId }: { id: string; index: number; worker: string; executionId: string },
  ): Promise<"started" | "cancelled" | "lost"> {
    try {
      await this.table.updateOrExplain({
        Key: comparisonKey(orgId, id),
        ...buildUpdate({
          set: [assign(`results[${index}].status`, "running"), assign(`results[${index}].execution_id`, executionId)],
          condition: and(leaseHeldBy(worker), rowStatusIs(index, "pending"), equals("cancel_requested", false)),
        }),
      });
      return "started";
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      return (error.existing as { cancel_requested?: boolean } | null)?.cancel_requested ? "cancelled" : "lost";
    }
  }

  /**
   * Gives a comparison back to `pending` (its worker is stopping): the rows it had started (`running`,
   * indexes into `rowCount` rows) become pending again, so the next worker solves them anew. Only if
   * exactly those rows are running still (the worker moves on meanwhile: the caller reads again); a
   * cancel that arrived meanwhile keeps its cancelled rows. Null when that does not hold.
   */
  async handBack(
    orgId: string,
    { id, worker, running, rowCount, nowMs }: { id: string; worker: string; running: number[]; rowCount: number; nowMs: number },
  ): Promise<ComparisonRecord | null> {
    const rows = Array.from({ length: rowCount }, (_, i) => (running.includes(i) ? rowStatusIs(i, "running") : notEquals(`results[${i}].status`, "running")));
    const item = await this.leases.handBack<Record<string, unknown>>(comparisonKey(orgId, id), {
      worker,
      waiting: "pending",
      queuedAt: isoTime(nowMs),
      extra: {
        set: running.flatMap((i) => [assign(`results[${i}].status`, "pending"), assign(`results[${i}].execution_id`, null)]),
        condition: rows.length ? and(...rows) : undefined,
      },
    });
    return item ? comparisonOf(item) : null;
  }

  /**
   * Writes a finished row (and the agreement so far) for the worker holding the comparison: only the
   * row's own attribute, and only while the row is still the run of `row.execution_id` this worker started.
   */
  async writeRow(
    orgId: string,
    { id, index, worker, row, agreement }: { id: string; index: number; worker: string; row: Row; agreement: Agreement | null },
  ): Promise<boolean> {
    const out = await this.leases.update(comparisonKey(orgId, id), worker, {
      set: [assign(`results[${index}]`, row), assign("agreement", agreement)],
      condition: rowRunsExecution(index, row.execution_id),
    });
    return out !== null;
  }

  /**
   * Replaces row `index` (running under `seenExecutionId`, left by a worker that died) with `row`, for
   * the worker that holds the comparison now. False when the row moved on.
   */
  async replaceRunningRow(
    orgId: string,
    { id, index, worker, seenExecutionId, row }: { id: string; index: number; worker: string; seenExecutionId: string | null; row: Row },
  ): Promise<boolean> {
    const out = await this.leases.update(comparisonKey(orgId, id), worker, {
      set: [assign(`results[${index}]`, row)],
      condition: rowRunsExecution(index, seenExecutionId),
    });
    return out !== null;
  }

  /** Moves a comparison `worker` holds to its final status, with its rows changed by `rows`; null when the worker no longer holds it. */
  async finalizeHeld(
    orgId: string,
    { id, worker, status, fields, rows }: { id: string; worker: string; status: ComparisonStatus; fields: Partial<ComparisonRecord>; rows?: ExtraWrite },
  ): Promise<ComparisonRecord | null> {
    const item = await this.leases.finalizeHeld<Record<string, unknown>>(comparisonKey(orgId, id), {
      worker,
      status,
      set: fields as Record<string, unknown>,
      extra: rows,
    });
    return item ? comparisonOf(item) : null;
  }

  /**
   * The sweeper's write: fails a comparison whose worker is gone (the lease it saw lapsed still is, or
   * it still waits unleased), with every row still pending or running failed for `reason` — each row
   * set on its own, on the condition that it still stands as read (else read again, a few times).
   */
  async failIfLeaseLapsed(orgId: string, failure: LapsedFailure<ComparisonStatus>): Promise<ComparisonRecord | null> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const current = await this.get(orgId, failure.id);
      if (current?.status !== failure.seenStatus) return null;
      const rows = changedRows(current.results, (r) =>
        r.status === "pending" || r.status === "running" ? { ...r, status: "failed" as const, error_message: failure.reason } : null,
      );
      const item = await this.leases.failIfLeaseLapsed<Record<string, unknown>>(comparisonKey(orgId, failure.id), lapsedFailureWrite(failure, rows));
      if (item) return comparisonOf(item);
    }
    return null;
  }

  /** Ends a comparison no worker ever held (its enqueue was refused), with its rows changed by `rows`. */
  async finalizeUnheld(
    orgId: string,
    {
      id,
      from,
      status,
      fields,
      rows,
    }: { id: string; from: ComparisonStatus[]; status: ComparisonStatus; fields: Partial<ComparisonRecord>; rows?: ExtraWrite },
  ): Promise<ComparisonRecord | null> {
    const item = await this.leases.finalizeUnheld<Record<string, unknown>>(comparisonKey(orgId, id), {
      from,
      status,
      set: fields as Record<string, unknown>,
      extra: rows,
    });
    return item ? comparisonOf(item) : null;
  }

  /**
   * Cancels what has not started: every pending row becomes cancelled and `cancel_requested` is set, in
   * one conditional update on the rows read (retried if the worker moved meanwhile). A comparison no
   * worker has taken yet ends `cancelled` at once; a running one is ended by its worker after the solve
   * in flight. A finished comparison is returned unchanged.
   */
  async cancel(orgId: string, id: string, nowMs: number): Promise<ComparisonRecord | null> {
    let current = await this.get(orgId, id);
    for (let attempt = 0; attempt < 8; attempt++) {
      if (!current || FINAL_STATUSES.includes(current.status)) return current;
      const pending = current.results.map((r, i) => (r.status === "pending" ? i : -1)).filter((i) => i >= 0);
      const set = [assign("cancel_requested", true), ...pending.map((i) => assign(`results[${i}].status`, "cancelled"))];
      const untaken = current.status === "pending";
      if (untaken) set.push(assign("status", "cancelled"), assign("completed_at", isoTime(nowMs)));
      try {
        const out = await this.table.updateOrExplain<Record<string, unknown>>({
          Key: comparisonKey(orgId, id),
          ...buildUpdate({
            set,
            remove: untaken ? ["gsi1pk", "gsi1sk"] : [],
            // Still as read: the same status, and the rows to cancel still pending.
            condition: and(statusIs(current.status), ...pending.map((i) => rowStatusIs(i, "pending"))),
          }),
        });
        return comparisonOf(out);
      } catch (error) {
        // Moved meanwhile (the worker started a row, or finished): go on from the item as it now stands.
        if (!(error instanceof ConditionFailedError)) throw error;
        current = error.existing ? comparisonOf(error.existing) : null;
      }
    }
    return current;
  }
}
