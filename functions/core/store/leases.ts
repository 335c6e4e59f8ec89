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
import { isoTime } from "../clock.js";
import type { Table } from "./table.js";
import { keys } from "./keys.js";

type Key = { pk: string; sk: string };

/**
 * Work items (executions, comparisons, trigger runs) move through their states with conditional
 * writes on the current status, so an SQS redelivery or a race can never move a finished item back
 * and two workers never run the same item:
 *
 *   waiting ──acquire──▶ running (lease: owner + expiry, renewed while working) ──finalizeHeld──▶ final
 *      ▲                    │ │ lease expired (worker died)   ▲
 *      └──── handBack ──────┘ └──────── sweeper ──────────────┘ failed
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
export interface ExtraWrite {
  set?: Part[];
  condition?: Part;
}

const withExtra = (condition: Part, extra?: ExtraWrite): Part => (extra?.condition ? and(condition, extra.condition) : condition);

/** Who takes or keeps a lease, for how long, and the time now. */
export interface LeaseClaim {
  worker: string;
  leaseMs: number;
  nowMs: number;
}

/** A lease taken: the claim, the statuses the item may wait in, and when its work starts. */
export interface AcquireClaim extends LeaseClaim {
  waiting: string[];
  startedAt: string;
}

/** A final write: the status it sets, the attributes it sets with it, and a repository's extra parts. */
export interface FinalWrite {
  status: string;
  set: Record<string, unknown>;
  extra?: ExtraWrite;
}

/**
 * What the sweeper read of an item whose worker is gone (see Leases.failIfLeaseLapsed) — its status and
 * `queued_at` — and why and when it fails it: the same for every record with a lease.
 */
export interface LapsedFailure<S extends string = string> {
  id: string;
  seenStatus: S;
  seenQueuedAt?: string | null;
  reason: string;
  nowMs: number;
}

/** A LapsedFailure as Leases.failIfLeaseLapsed writes it: the reason and the time it failed set on the item. */
export function lapsedFailureWrite({ seenStatus, seenQueuedAt = null, reason, nowMs }: LapsedFailure, extra?: ExtraWrite) {
  return { seenStatus, seenQueuedAt, nowMs, set: { error_message: reason, completed_at: isoTime(nowMs) }, extra };
}

/**
 * The one lease lifecycle of executions, comparisons and trigger runs. Every verb is a conditional
 * write; the sweeper's verb (`failIfLeaseLapsed`) holds only while the lease it saw as lapsed still is.
 */
export class Leases {
  constructor(private readonly table: Table) {}

  /**
   * Takes the item for `worker` if it is in one of `waiting`, or running under a lapsed lease (its worker
   * died). Returns the item as it now stands, or null when someone else holds it or it is final.
   */
  acquire<T>(key: Key, { waiting, worker, leaseMs, nowMs, startedAt }: AcquireClaim): Promise<T | null> {
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
  async renew(key: Key, { worker, leaseMs, nowMs }: LeaseClaim): Promise<boolean> {
    const out = await this.table.update({
      Key: key,
      ...buildUpdate({ set: [assign("lease_expires_at_ms", nowMs + leaseMs)], condition: leaseHeldBy(worker) }),
    });
    return out !== null;
  }

  /** Changes attributes of a running item `worker` holds (`extra`'s SET parts, on its condition too). Null when not held. */
  update<T = Record<string, unknown>>(key: Key, worker: string, extra: ExtraWrite): Promise<T | null> {
    return this.table.update<T>({ Key: key, ...buildUpdate({ set: extra.set ?? [], condition: withExtra(leaseHeldBy(worker), extra) }) });
  }

  /**
   * Gives a running item held by `worker` back to its waiting status `waiting` with `set`: the lease
   * goes, the item stays in the ACTIVE partition, and the next worker to receive its job acquires it
   * at once. It waits anew from `queuedAt`, so the sweeper's stale-queue window starts again (a long
   * job handed back is not failed for its age). Null when the worker no longer holds it (it ended
   * meanwhile, or was swept).
   */
  handBack<T>(
    key: Key,
    { worker, waiting, queuedAt, set = {}, extra }: { worker: string; waiting: string; queuedAt: string; set?: Record<string, unknown>; extra?: ExtraWrite },
  ): Promise<T | null> {
    return this.table.update<T>({
      Key: key,
      ...buildUpdate({
        set: [...assignAll({ ...set, status: waiting, queued_at: queuedAt }), ...(extra?.set ?? [])],
        remove: ["lease_owner", "lease_expires_at_ms"],
        condition: withExtra(leaseHeldBy(worker), extra),
      }),
    });
  }

  /**
   * Moves a running item held by `worker` to a final state with `set` (attribute → value), and takes it
   * out of the ACTIVE partition. Null when the worker no longer holds it.
   */
  finalizeHeld<T>(key: Key, { worker, ...write }: FinalWrite & { worker: string }): Promise<T | null> {
    return this.writeFinal<T>(key, write, withExtra(leaseHeldBy(worker), write.extra));
  }

  /**
   * The sweeper's verb: fails an item whose worker is gone — running under the lease the sweeper saw
   * lapse (still lapsed at the write, so a renewal in between wins), or still waiting with no lease
   * (`seenStatus` is the status the sweeper read) since the `queued_at` it read (absent: null) — a
   * hand-back in between set a new one, and the item waits afresh. Null when that no longer holds.
   */
  failIfLeaseLapsed<T>(
    key: Key,
    {
      seenStatus,
      seenQueuedAt = null,
      nowMs,
      set,
      extra,
    }: { seenStatus: string; seenQueuedAt?: string | null; nowMs: number; set: Record<string, unknown>; extra?: ExtraWrite },
  ): Promise<T | null> {
    const sameWait = seenQueuedAt === null ? attributeNotExists("queued_at") : equals("queued_at", seenQueuedAt);
    const lapsed = seenStatus === "running" ? leaseLapsed(nowMs) : and(waitingUnleased(seenStatus), sameWait);
    return this.writeFinal<T>(key, { status: "failed", set, extra }, withExtra(lapsed, extra));
  }

  /**
   * Moves an item still in one of `from` to a final state without a lease check: for items no worker
   * ever held (their enqueue was refused), with `set`. Null when it had already moved on.
   */
  finalizeUnheld<T>(key: Key, { from, ...write }: FinalWrite & { from: string[] }): Promise<T | null> {
    return this.writeFinal<T>(key, write, withExtra(statusIs(...from), write.extra));
  }

  /** The final write itself: `status` and `set`, the lease and the ACTIVE index entry removed, on `condition`. */
  private writeFinal<T>(key: Key, { status, set, extra }: FinalWrite, condition: Part): Promise<T | null> {
    return this.table.update<T>({
      Key: key,
      ...buildUpdate({ set: [...assignAll({ ...set, status }), ...(extra?.set ?? [])], remove: leaseAttributes(set), condition }),
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
