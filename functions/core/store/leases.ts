import type { Table } from "./table.js";

/**
 * Work items (executions, comparisons, trigger runs) move through their states with conditional
 * writes on the current status, so an SQS redelivery or a race can never move a finished item back
 * and two workers never run the same item:
 *
 *   waiting ──acquire──▶ running (lease: owner + expiry, renewed while working) ──finish──▶ final
 *      ▲                    │ │ lease expired (worker died)   ▲
 *      └──── release ───────┘ └──────── sweeper ──────────────┘ failed
 *   (its worker is stopping: the next worker takes it at once)
 *
 * While an item is waiting or running it sits in the sparse `gsi1` partition ACTIVE, which is all the
 * sweeper reads.
 */
export const ACTIVE_PARTITION = "ACTIVE";

/** What a final write takes away: the lease, and the ACTIVE index entry — unless the write sets a new one. */
const leaseAttributes = (set: Record<string, unknown>) => ["gsi1pk", "gsi1sk", "lease_owner", "lease_expires_at_ms"].filter((a) => !(a in set));

export interface LeaseFields {
  status: string;
  lease_owner?: string | null;
  lease_expires_at_ms?: number | null;
  created_at: string;
  started_at?: string | null;
}

export interface ActiveRef {
  pk: string;
  sk: string;
  kind: string;
  status: string;
  lease_expires_at_ms: number | null;
  created_at: string;
  deadline_ms: number | null;
}

/**
 * Attributes of a new item that must be absent rather than null: `if_not_exists` treats a stored null
 * as present, so a null `started_at` would never be set by `acquire`.
 */
export function withoutUnsetTimes<T extends { started_at?: string | null; completed_at?: string | null }>(record: T): T {
  const out = { ...record };
  if (out.started_at === null) delete out.started_at;
  return out;
}

/** gsi1 attributes that put an item in the ACTIVE partition. */
export const activeIndex = (kind: string, id: string) => ({ gsi1pk: ACTIVE_PARTITION, gsi1sk: `${kind}#${id}`, active_kind: kind });

export class Leases {
  constructor(private readonly table: Table) {}

  /**
   * Takes the item for `worker` if it is waiting, or running under an expired lease (its worker
   * died). Returns the item as it now stands, or null when someone else holds it or it is final.
   */
  async acquire<T>(key: { pk: string; sk: string }, waiting: string[], worker: string, leaseMs: number, nowMs: number, startedAt: string): Promise<T | null> {
    const values: Record<string, unknown> = { ":running": "running", ":owner": worker, ":until": nowMs + leaseMs, ":now": nowMs, ":started": startedAt };
    waiting.forEach((s, i) => {
      values[`:w${i}`] = s;
    });
    // Without parentheses (AND binds before OR): every alternative compares the status, so a missing
    // item fails the condition as `attribute_exists(pk)` would; and the local emulator's parser takes
    // ~10 ms on the nested form, on every job's critical path.
    const waitingCondition = waiting.map((_, i) => `#status = :w${i}`).join(" OR ");
    return this.table.update<T>({
      Key: key,
      UpdateExpression: "SET #status = :running, lease_owner = :owner, lease_expires_at_ms = :until, started_at = if_not_exists(started_at, :started)",
      ConditionExpression: `${waitingCondition} OR #status = :running AND lease_owner = :owner OR #status = :running AND lease_expires_at_ms < :now`,
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: values,
    });
  }

  /** Extends the lease while the work goes on; false when the lease was lost (swept). */
  async renew(key: { pk: string; sk: string }, worker: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const out = await this.table.update({
      Key: key,
      UpdateExpression: "SET lease_expires_at_ms = :until",
      ConditionExpression: "#status = :running AND lease_owner = :owner",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":until": nowMs + leaseMs, ":running": "running", ":owner": worker },
    });
    return out !== null;
  }

  /**
   * Gives a running item held by `worker` back to its waiting status `waiting` with `set`: the lease
   * goes, the item stays in the ACTIVE partition, and the next worker to receive its job acquires it
   * at once. Null when the worker no longer holds it (it ended meanwhile, or was swept).
   */
  async release<T>(key: { pk: string; sk: string }, worker: string, waiting: string, set: Record<string, unknown> = {}): Promise<T | null> {
    return this.table.setFields<T>(
      key,
      { ...set, status: waiting },
      {
        condition: "#status = :running AND lease_owner = :owner",
        names: { "#status": "status" },
        values: { ":running": "running", ":owner": worker },
        remove: ["lease_owner", "lease_expires_at_ms"],
      },
    );
  }

  /**
   * Moves a running item held by `worker` to a final state with `set` (attribute → value), and takes it
   * out of the ACTIVE partition. Null when the worker no longer holds it.
   */
  async finish<T>(key: { pk: string; sk: string }, worker: string, status: string, set: Record<string, unknown>): Promise<T | null> {
    return this.table.setFields<T>(
      key,
      { ...set, status },
      {
        condition: "#status = :running AND lease_owner = :owner",
        names: { "#status": "status" },
        values: { ":running": "running", ":owner": worker },
        remove: leaseAttributes(set),
      },
    );
  }

  /**
   * Ends an item that is still in one of `from` (no lease check: the caller decided it is abandoned or
   * was never started), with `set`. Null when it had already moved on.
   */
  async end<T>(
    key: { pk: string; sk: string },
    from: string[],
    status: string,
    set: Record<string, unknown>,
    extraCondition?: { expression: string; values: Record<string, unknown> },
  ): Promise<T | null> {
    const values: Record<string, unknown> = { ...(extraCondition?.values ?? {}) };
    from.forEach((s, i) => {
      values[`:f${i}`] = s;
    });
    const fromCondition = from.map((_, i) => `#status = :f${i}`).join(" OR ");
    return this.table.setFields<T>(
      key,
      { ...set, status },
      {
        condition: `(${fromCondition})${extraCondition ? ` AND (${extraCondition.expression})` : ""}`,
        names: { "#status": "status" },
        values,
        remove: leaseAttributes(set),
      },
    );
  }

  /** Every waiting or running item (the sweeper's input). */
  async active(): Promise<ActiveRef[]> {
    return this.table
      .queryAll<ActiveRef>({
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :p",
        ExpressionAttributeValues: { ":p": ACTIVE_PARTITION },
        ProjectionExpression: "pk, sk, active_kind, #status, lease_expires_at_ms, created_at, deadline_ms",
        ExpressionAttributeNames: { "#status": "status" },
      })
      .then((items) => items.map((i) => ({ ...i, kind: (i as unknown as { active_kind: string }).active_kind })));
  }
}
