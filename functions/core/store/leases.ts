import {
  and,
  assign,
  assignAll,
  assignOnce,
  attributeNotExists,
  buildUpdate,
  equals,
  leaseHeldBy,
  leaseLapsed,
  or,
  type Part,
  statusIs,
  waitingUnleased,
} from "./conditions.js";
import type { Table } from "./table.js";
import { keys } from "./keys.js";

type Key = { pk: string; sk: string };

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
export const ACTIVE_PARTITION = keys.active.partition;

/** What a final write takes away: the lease, and the ACTIVE index entry — unless the write sets a new one. */
const leaseAttributes = (set: Record<string, unknown>) => ["gsi1pk", "gsi1sk", "lease_owner", "lease_expires_at_ms", "queued_at"].filter((a) => !(a in set));

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
  /** When the item last became waiting (created, or handed back); absent on items written before it existed. */
  queued_at?: string;
  deadline_ms: number | null;
  /** The item's own id, organization and (a trigger run's) trigger: the job its message names. */
  id?: string;
  org_id?: string;
  trigger_id?: string;
  /** Set while the job waits parked for its organization's share of the fleet (queue/fair-share.ts). */
  parked_at?: string;
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

/**
 * gsi1 attributes that put an item in the ACTIVE partition, and when it started waiting there
 * (`queued_at`: the sweeper judges a waiting item by it, and a hand-back sets it anew).
 */
export const activeIndex = (kind: string, id: string, queuedAt: string) => ({
  ...keys.active.index(kind, id),
  active_kind: kind,
  queued_at: queuedAt,
});

/** Extra SET parts and conditions a repository adds to a lease verb (a comparison's row attributes). */
export interface Also {
  set?: Part[];
  condition?: Part;
}

const withAlso = (condition: Part, also?: Also): Part => (also?.condition ? and(condition, also.condition) : condition);

/**
 * The one lease lifecycle of executions, comparisons and trigger runs. Every verb is a conditional
 * write; the sweeper's verb (`failIfLapsed`) holds only while the lease it saw as lapsed still is.
 */
export class Leases {
  constructor(private readonly table: Table) {}

  /**
   * Takes the item for `worker` if it is waiting, or running under a lapsed lease (its worker died).
   * Returns the item as it now stands, or null when someone else holds it or it is final.
   */
  acquire<T>(key: Key, waiting: string[], worker: string, leaseMs: number, nowMs: number, startedAt: string): Promise<T | null> {
    return this.table.update<T>({
      Key: key,
      ...buildUpdate({
        set: [assign("status", "running"), assign("lease_owner", worker), assign("lease_expires_at_ms", nowMs + leaseMs), assignOnce("started_at", startedAt)],
        // A job promoted while its parker was still marking it (queue/fair-share.ts) is not parked any more.
        remove: ["parked_at"],
        // Every alternative compares the status, so a missing item fails the condition as
        // attribute_exists(pk) would, and the expression stays flat (see Part).
        condition: or(statusIs(...waiting), leaseHeldBy(worker), leaseLapsed(nowMs)),
      }),
    });
  }

  /** Extends the lease while the work goes on; false when the lease was lost (swept, or handed back). */
  async renew(key: Key, worker: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const out = await this.table.update({
      Key: key,
      ...buildUpdate({ set: [assign("lease_expires_at_ms", nowMs + leaseMs)], condition: leaseHeldBy(worker) }),
    });
    return out !== null;
  }

  /** Changes attributes of a running item `worker` holds (`also`'s SET parts, on its condition too). Null when not held. */
  update<T = Record<string, unknown>>(key: Key, worker: string, also: Also): Promise<T | null> {
    return this.table.update<T>({ Key: key, ...buildUpdate({ set: also.set ?? [], condition: withAlso(leaseHeldBy(worker), also) }) });
  }

  /**
   * Gives a running item held by `worker` back to its waiting status `waiting` with `set`: the lease
   * goes, the item stays in the ACTIVE partition, and the next worker to receive its job acquires it
   * at once. It waits anew from `queuedAt`, so the sweeper's stale-queue window starts again (a long
   * job handed back is not failed for its age). Null when the worker no longer holds it (it ended
   * meanwhile, or was swept).
   */
  release<T>(key: Key, worker: string, waiting: string, queuedAt: string, set: Record<string, unknown> = {}, also?: Also): Promise<T | null> {
    return this.table.update<T>({
      Key: key,
      ...buildUpdate({
        set: [...assignAll({ ...set, status: waiting, queued_at: queuedAt }), ...(also?.set ?? [])],
        remove: ["lease_owner", "lease_expires_at_ms"],
        condition: withAlso(leaseHeldBy(worker), also),
      }),
    });
  }

  /**
   * Moves a running item held by `worker` to a final state with `set` (attribute → value), and takes it
   * out of the ACTIVE partition. Null when the worker no longer holds it.
   */
  finish<T>(key: Key, worker: string, status: string, set: Record<string, unknown>, also?: Also): Promise<T | null> {
    return this.final<T>(key, status, set, withAlso(leaseHeldBy(worker), also), also);
  }

  /**
   * The sweeper's verb: fails an item whose worker is gone — running under the lease the sweeper saw
   * lapse (still lapsed at the write, so a renewal in between wins), or still waiting with no lease
   * (`seen` is the status the sweeper read) since the `queued_at` it read (absent: null) — a hand-back
   * in between set a new one, and the item waits afresh. Null when that no longer holds.
   */
  failIfLapsed<T>(key: Key, seen: string, nowMs: number, set: Record<string, unknown>, also?: Also, seenQueuedAt: string | null = null): Promise<T | null> {
    const sameWait = seenQueuedAt === null ? attributeNotExists("queued_at") : equals("queued_at", seenQueuedAt);
    const lapsed = seen === "running" ? leaseLapsed(nowMs) : and(waitingUnleased(seen), sameWait);
    return this.final<T>(key, "failed", set, withAlso(lapsed, also), also);
  }

  /**
   * Ends an item still in one of `from` without a lease check: for items no worker ever held (their
   * enqueue was refused), with `set`. Null when it had already moved on.
   */
  end<T>(key: Key, from: string[], status: string, set: Record<string, unknown>, also?: Also): Promise<T | null> {
    return this.final<T>(key, status, set, withAlso(statusIs(...from), also), also);
  }

  private final<T>(key: Key, status: string, set: Record<string, unknown>, condition: Part, also?: Also): Promise<T | null> {
    return this.table.update<T>({
      Key: key,
      ...buildUpdate({ set: [...assignAll({ ...set, status }), ...(also?.set ?? [])], remove: leaseAttributes(set), condition }),
    });
  }

  /** An item's status and lease, read consistently. */
  leaseOf(key: Key): Promise<{ status: string; lease_owner: string | null; lease_expires_at_ms: number | null } | null> {
    return this.table
      .getAttributes<{ status: string; lease_owner?: string; lease_expires_at_ms?: number }>(key.pk, key.sk, ["status", "lease_owner", "lease_expires_at_ms"])
      .then((item) => (item ? { status: item.status, lease_owner: item.lease_owner ?? null, lease_expires_at_ms: item.lease_expires_at_ms ?? null } : null));
  }

  /** Every waiting or running item (the sweeper's input). */
  async active(): Promise<ActiveRef[]> {
    return this.table
      .queryAll<ActiveRef>({
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :p",
        ExpressionAttributeValues: { ":p": ACTIVE_PARTITION },
        ProjectionExpression: "pk, sk, active_kind, #status, lease_expires_at_ms, created_at, queued_at, deadline_ms, id, org_id, trigger_id, parked_at",
        ExpressionAttributeNames: { "#status": "status" },
      })
      .then((items) => items.map((i) => ({ ...i, kind: (i as unknown as { active_kind: string }).active_kind })));
  }
}
