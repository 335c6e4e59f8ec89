import { epochSeconds, isoTime } from "../clock.js";
import {
  and,
  assign,
  atMost,
  attributeExists,
  attributeNotExists,
  buildUpdate,
  equals,
  itemAbsent,
  itemExists,
  lessThan,
  or,
  statusIs,
} from "../store/conditions.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";
import { runKey } from "../triggers/store.js";
import type { JobMessage } from "./messages.js";
import { PRIORITY_BANDS, priorityBand } from "./priority.js";

/**
 * The table side of the fair share (rules: fair-share.ts), in the organization's partition (keys: see
 * store/keys.ts): its running slots, each held by one job (`job`) until `expires_at_ms`, and its parked
 * jobs — a job waiting for a slot keeps its queue message here instead of in SQS, ordered by band (0 =
 * high first) then time, and listed in gsi1 while it waits.
 *
 * A slot is free when absent or expired: a worker that dies stops renewing its slot, and the slot frees
 * itself, as a lease does — nothing has to notice the death for the organization to get its share back.
 *
 * Nothing here deletes: workers hold no dynamodb:DeleteItem (lib/solver-fleet.ts). A slot is freed by
 * expiring it; a parked entry that was sent or is moot leaves the sparse gsi1 listing (its gsi1 keys
 * removed) and the table's TTL takes the item. The listing is read from the index (eventually
 * consistent): an entry seen after it left is refused by the conditional write that claims it.
 */
export interface RunSlot {
  slot: number;
  job: string;
  expires_at_ms: number;
}

export interface ParkedEntry {
  pk: string;
  sk: string;
  job: JobMessage;
  /** A promoter is moving this entry until then (ms); absent: nobody is. */
  claimed_until_ms?: number;
}

/** Whose a slot is: one job of the queue. */
export const jobHolder = (job: Pick<JobMessage, "type" | "id">): string => `${job.type}#${job.id}`;

/** The work item a job message names (its status says whether the job still waits), or null for a malformed id. */
export function jobItemKey(job: JobMessage): { pk: string; sk: string } | null {
  switch (job.type) {
    case "execution":
      return keys.execution({ orgId: job.org_id, id: job.id });
    case "comparison":
      return keys.comparison({ orgId: job.org_id, id: job.id });
    case "trigger_run":
      return job.trigger_id ? runKey(job.trigger_id, job.id) : null;
    case "trigger_schedule":
      return null;
  }
}

/** Statuses of a work item waiting for a worker (an execution `queued`, a comparison `pending`, a run either). */
const WAITING = ["queued", "pending"];
const FINAL_OR_GONE = (status: string | null) => status === null || !(WAITING.includes(status) || status === "running");

export class FairShareStore {
  constructor(private readonly table: Table) {}

  /** The organization's slot items, held or lapsed, in slot order (consistent read). */
  slots(orgId: string): Promise<RunSlot[]> {
    return this.table.queryPrefix<RunSlot>(keys.runSlot.partition(orgId), keys.runSlot.prefix);
  }

  /** Takes slot `slot` for `holder` until `expiresAtMs` when it is free (absent or lapsed) or already the holder's. */
  claim(orgId: string, { slot, holder, expiresAtMs, nowMs }: { slot: number; holder: string; expiresAtMs: number; nowMs: number }): Promise<boolean> {
    return this.table.put(
      { ...keys.runSlot({ orgId, slot }), slot, job: holder, expires_at_ms: expiresAtMs },
      or(itemAbsent(), atMost("expires_at_ms", nowMs), equals("job", holder)),
    );
  }

  /** Moves the slot's expiry while `holder` still holds it; false when it does not. */
  async renew(orgId: string, { slot, holder, expiresAtMs }: { slot: number; holder: string; expiresAtMs: number }): Promise<boolean> {
    const out = await this.table.update({
      Key: keys.runSlot({ orgId, slot }),
      ...buildUpdate({ set: [assign("expires_at_ms", expiresAtMs)], condition: equals("job", holder) }),
    });
    return out !== null;
  }

  /** Frees the slot if `holder` still holds it (expired now: the next claim takes it). */
  async release(orgId: string, slot: number, holder: string): Promise<boolean> {
    const out = await this.table.update({
      Key: keys.runSlot({ orgId, slot }),
      ...buildUpdate({ set: [assign("expires_at_ms", 0)], condition: equals("job", holder) }),
    });
    return out !== null;
  }

  /** Parks a job: its message, kept in the organization's partition, ordered by band then time. */
  async park(job: JobMessage, nowMs: number): Promise<ParkedEntry> {
    const band = PRIORITY_BANDS.indexOf(priorityBand(job.priority));
    const { slot: _slot, ...message } = job;
    const order = `${band}#${isoTime(nowMs)}#${job.type}#${job.id}`;
    const entry: ParkedEntry = { ...keys.parked({ orgId: job.org_id, id: order }), job: message };
    await this.table.put({ ...entry, ...keys.parked.orgIndex(job.org_id, order) });
    return entry;
  }

  /** The organization's parked jobs, first to promote first (high band, then oldest); from the index. */
  async parked(orgId: string, limit: number): Promise<ParkedEntry[]> {
    const { items } = await this.table.queryPage<ParkedEntry>({
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :p",
      ExpressionAttributeValues: { ":p": keys.parked.orgIndexPartition(orgId) },
      Limit: limit,
    });
    return items;
  }

  /** Takes an entry to promote it for `ms` (another promoter leaves it alone meanwhile); false when another has it. */
  async claimEntry(entry: ParkedEntry, nowMs: number, ms: number): Promise<boolean> {
    const out = await this.table.update({
      Key: { pk: entry.pk, sk: entry.sk },
      ...buildUpdate({
        set: [assign("claimed_until_ms", nowMs + ms)],
        condition: and(attributeExists("gsi1pk"), or(attributeNotExists("claimed_until_ms"), lessThan("claimed_until_ms", nowMs))),
      }),
    });
    return out !== null;
  }

  /** Gives an entry up for the next promoter (the organization had no room after all). */
  async unclaimEntry(entry: Pick<ParkedEntry, "pk" | "sk">): Promise<void> {
    await this.table.update({ Key: { pk: entry.pk, sk: entry.sk }, ...buildUpdate({ remove: ["claimed_until_ms"], condition: itemExists() }) });
  }

  /** Takes an entry out of the listing (sent, or moot); the table's TTL deletes it a day later. */
  async dropEntry(entry: Pick<ParkedEntry, "pk" | "sk">, nowMs: number): Promise<void> {
    await this.table.update({
      Key: { pk: entry.pk, sk: entry.sk },
      ...buildUpdate({ set: [assign("ttl", epochSeconds(nowMs) + 86_400)], remove: ["gsi1pk", "gsi1sk", "claimed_until_ms"], condition: itemExists() }),
    });
  }

  /**
   * Marks the job's work item parked (the sweeper does not fail a parked item for its wait: it is not
   * lost, it waits for its organization's share). False when the item no longer waits (it ran, ended,
   * or is gone), so there is nothing to park.
   */
  async markParked(job: JobMessage, nowMs: number): Promise<boolean> {
    const key = jobItemKey(job);
    if (!key) return false;
    const out = await this.table.update({ Key: key, ...buildUpdate({ set: [assign("parked_at", isoTime(nowMs))], condition: statusIs(...WAITING) }) });
    return out !== null;
  }

  /** Unmarks a promoted item, which waits in the queue as of now (the sweeper's stale-queue window starts again). */
  async markQueued(job: JobMessage, nowMs: number): Promise<void> {
    const key = jobItemKey(job);
    if (!key) return;
    await this.table.update({
      Key: key,
      ...buildUpdate({ set: [assign("queued_at", isoTime(nowMs))], remove: ["parked_at"], condition: statusIs(...WAITING) }),
    });
  }

  /**
   * Where the job's work item stands: waiting, running, or done with (final, or gone). A running item
   * that no worker leases is done with as a job: a trigger run handed to its race (triggers/race-run.ts)
   * stays `running` until the race ends, but its race's entrants are the work, each a job with its own
   * slot — were the run's slot kept, the entrants would wait for it (parked) instead of racing.
   */
  async itemState(job: JobMessage): Promise<"waiting" | "running" | "done"> {
    const key = jobItemKey(job);
    if (!key) return "done";
    const item = await this.table.getAttributes<{ status?: string; lease_owner?: string | null }>(key.pk, key.sk, ["status", "lease_owner"]);
    const status = item?.status ?? null;
    if (FINAL_OR_GONE(status)) return "done";
    if (status === "running") return item?.lease_owner ? "running" : "done";
    return "waiting";
  }
}
