import type { PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { looksLikeId } from "../ids.js";
import type { Settings } from "../solvers/settings.js";
import { activeIndex, type LeaseClaim, Leases } from "../store/leases.js";
import { and, append, assign, assignAll, attributeNotExists, buildUpdate, equals, increment, itemExists, leaseHeldBy, or } from "../store/conditions.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";
import { attemptUnclaimed, DeliveryClaimedError, deliveryAwaits, deliveryExhaustedNotDeadLettered, deliveryPending } from "./delivery-conditions.js";
import type { RaceRequest } from "../races/schemas.js";
import type { DeliveryAttempt, RunStatus, TriggerView } from "./schemas.js";

/**
 * Triggers and their runs, in the single table (keys: see store/keys.ts). A trigger is also found from
 * its id alone (a fire has no organization context); a run's sort key is its id's time-sortable part,
 * so `run_…` and `trun_…` runs interleave by creation time.
 *
 * The trigger secret is stored as its SHA-256 hash and a short prefix; the webhook secret is stored as
 * given (it must sign), never returned and never logged (the logger redacts any `*secret*` key).
 * A run is in the ACTIVE gsi1 partition while queued, pending or running, for the sweeper.
 */
export interface TriggerRecord
  extends Pick<
    TriggerView,
    | "id"
    | "workspace_id"
    | "created_by"
    | "name"
    | "description"
    | "document_id"
    | "version_id"
    | "solver_name"
    | "override_schema"
    | "webhook_url"
    | "is_enabled"
    | "total_runs"
    | "last_fired_at"
    | "created_at"
    | "updated_at"
  > {
  org_id: string;
  secret_hash: string;
  secret_prefix: string;
  webhook_secret: string | null;
  /** The band its runs are queued on; absent on triggers from before priorities: 0. */
  priority?: number;
  /** Absent or null: no schedule. `anchor_at` is when it was set: a rate counts its periods from there. */
  schedule?: TriggerSchedule | null;
  /** Issue 29: runs start from the previous successful run's solution; absent or null: no warm start. */
  warm_start?: "previous_run" | null;
  /** Issue 29: a race's entrants when its runs' solver is `race`; absent or null: every available solver. */
  race?: RaceRequest | null;
}

export interface TriggerSchedule {
  expression: string;
  timezone: string;
  anchor_at: string;
}

export type WebhookEvent = "trigger.run.completed" | "trigger.run.failed";

/** The delivery of one run's outcome, kept on the run: every attempt is appended here. */
export interface WebhookState {
  delivery_id: string;
  event: WebhookEvent;
  status: "pending" | "delivered" | "exhausted" | "cancelled";
  /** The attempt the next message must carry; a message with another number is a duplicate. */
  next_attempt: number;
  next_attempt_at: string | null;
  attempts: DeliveryAttempt[];
  /** The exact bytes every attempt sends. */
  body: PayloadRef;
  created_at: string;
  delivered_at: string | null;
  reason: string | null;
  dead_lettered_at: string | null;
  /** The attempt a consumer is POSTing now, and until when its claim holds (ms; 0 = none). */
  claimed_attempt: number;
  claim_until_ms: number;
}

export interface RunRecord {
  id: string;
  trigger_id: string;
  org_id: string;
  /** Who gets the run's notifications: the trigger's creator for fires, the caller for run now and rerun. */
  created_by: string;
  status: RunStatus;
  source: "fire" | "run_now" | "rerun" | "schedule";
  rerun_of: string | null;
  override_data: Record<string, unknown>;
  solver_name: string;
  document_id: string;
  version_id: string;
  settings: Settings;
  /** Read by the Fargate task reaper. */
  time_limit_seconds: number;
  execution_id: string | null;
  /** Credits already taken for this run: set when a stopping worker handed it back after charging it. */
  credits_charged?: number | null;
  result: PayloadRef | null;
  error: string | null;
  validation: { code: string; params: Record<string, unknown> } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  webhook: WebhookState | null;
  /** The trigger's warm start when the run was started (triggers/warm-start.ts); absent: none. */
  warm_start?: "previous_run";
  /** The trigger's race entrants when the run was made (a `race` override in override_data wins); absent: none named. */
  race?: RaceRequest;
}

export const ACTIVE_RUN_KIND = "trigger_run";
export const triggerKey = (orgId: string, id: string) => keys.trigger({ orgId, id });
export const triggerIndexKey = (id: string) => keys.trigger.idIndex(id);

/** The key of a run; null for a string that is not a run id (so it is simply not found). */
export function runKey(triggerId: string, runId: string): { pk: string; sk: string } | null {
  if (!looksLikeId(runId, "run") && !looksLikeId(runId, "trun")) return null;
  return keys.triggerRun({ triggerId, id: runId });
}

export const WEBHOOK_OUTBOX = keys.webhookOutbox.partition;

/** The index entry that puts a run ending now in the webhook outbox. */
export const outboxIndex = (run: { trigger_id: string; id: string }, endedAtIso: string) => ({
  ...keys.webhookOutbox.index(endedAtIso, run.trigger_id, run.id),
});

/** What a run's final write sets: its outcome fields, and the outbox entry when a webhook is due. */
export type FinalRunFields = Partial<RunRecord> & { gsi1pk?: string; gsi1sk?: string };

export class TriggerStore {
  readonly leases: Leases;
  /** A trigger's organization never changes: fire reads the index once per trigger and process. */
  private readonly orgOfTrigger = new Map<string, string>();
  constructor(private readonly table: Table) {
    this.leases = new Leases(table);
  }

  // Triggers ------------------------------------------------------------------------------------

  async createTrigger(t: TriggerRecord): Promise<void> {
    await this.table.putNew({ ...triggerKey(t.org_id, t.id), ...triggerIndexKey(t.id), ...t });
  }

  async getTrigger(orgId: string, id: string): Promise<TriggerRecord | null> {
    const key = triggerKey(orgId, id);
    const item = await this.table.get(key.pk, key.sk);
    return item ? fromItem<TriggerRecord>(item) : null;
  }

  /**
   * A trigger from its id alone (fire). The index is read only for the organization, which never
   * changes; the trigger itself is then read consistently, so a disable or a secret change is seen at once.
   */
  async findTrigger(id: string): Promise<TriggerRecord | null> {
    if (!looksLikeId(id, "trg")) return null;
    let orgId = this.orgOfTrigger.get(id);
    if (!orgId) {
      const page = await this.table.queryPage<{ org_id: string }>({
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :p AND gsi1sk = :s",
        ExpressionAttributeValues: { ":p": triggerIndexKey(id).gsi1pk, ":s": triggerIndexKey(id).gsi1sk },
        ProjectionExpression: "org_id",
        Limit: 1,
      });
      orgId = page.items[0]?.org_id;
      if (!orgId) return null;
      if (this.orgOfTrigger.size >= 10_000) this.orgOfTrigger.clear();
      this.orgOfTrigger.set(id, orgId);
    }
    const trigger = await this.getTrigger(orgId, id);
    if (!trigger) this.orgOfTrigger.delete(id);
    return trigger;
  }

  /** Replaces the stored webhook secret `was` with `now` (its sealed form), only if it is still `was`. */
  async replaceWebhookSecret(orgId: string, { id, was, now }: { id: string; was: string; now: string }): Promise<boolean> {
    const out = await this.table.update({
      Key: triggerKey(orgId, id),
      ...buildUpdate({ set: [assign("webhook_secret", now)], condition: equals("webhook_secret", was) }),
    });
    return out !== null;
  }

  /** How many triggers the organization has (a COUNT query: the items are read, none is sent back). */
  countTriggers(orgId: string): Promise<number> {
    return this.table.countPrefix(keys.trigger.partition(orgId), keys.trigger.prefix);
  }

  async listTriggers(orgId: string): Promise<TriggerRecord[]> {
    return (await this.table.queryPrefix(keys.trigger.partition(orgId), keys.trigger.prefix, { newestFirst: true })).map((i) => fromItem<TriggerRecord>(i));
  }

  async updateTrigger(orgId: string, { id, fields, nowMs }: { id: string; fields: Partial<TriggerRecord>; nowMs: number }): Promise<TriggerRecord | null> {
    const out = await this.table.setFields<Record<string, unknown>>(triggerKey(orgId, id), { ...fields, updated_at: isoTime(nowMs) });
    return out ? fromItem<TriggerRecord>(out) : null;
  }

  /** Counts one recorded run: an atomic ADD. False when the trigger was deleted meanwhile. */
  async countRun(orgId: string, id: string, firedAt: string): Promise<boolean> {
    const out = await this.table.update({
      Key: triggerKey(orgId, id),
      ...buildUpdate({ set: [assign("last_fired_at", firedAt)], add: [increment("total_runs")], condition: itemExists() }),
    });
    return out !== null;
  }

  async deleteTrigger(orgId: string, id: string): Promise<boolean> {
    const key = triggerKey(orgId, id);
    return this.table.delete(key.pk, key.sk, itemExists());
  }

  // Runs ----------------------------------------------------------------------------------------

  /** Records a new run; false when a run with its id is there already (a schedule's firing delivered again). */
  async createRun(run: RunRecord): Promise<boolean> {
    const waiting = run.status === "queued" || run.status === "pending";
    const key = runKey(run.trigger_id, run.id)!;
    // No `started_at` attribute until a worker takes the run: the lease sets it with if_not_exists.
    const { started_at: _unset, ...item } = run;
    return this.table.putNew({ ...key, ...item, ...(waiting ? activeIndex(ACTIVE_RUN_KIND, `${run.trigger_id}#${run.id}`, run.created_at) : {}) });
  }

  async getRun(triggerId: string, runId: string): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const item = await this.table.get(key.pk, key.sk);
    return item && item.id === runId ? fromItem<RunRecord>(item) : null;
  }

  async deleteRun(triggerId: string, runId: string): Promise<void> {
    const key = runKey(triggerId, runId);
    if (key) await this.table.delete(key.pk, key.sk);
  }

  /** Every run of a trigger (deleting a trigger); results kept in the blob store are listed for deletion. */
  async allRuns(triggerId: string): Promise<{ pk: string; sk: string; result?: PayloadRef | null; webhook?: { body?: PayloadRef } | null }[]> {
    return this.table.queryAll({
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": keys.triggerRun.partition(triggerId), ":p": keys.triggerRun.prefix },
      ProjectionExpression: "pk, sk, #result, webhook.body",
      ExpressionAttributeNames: { "#result": "result" },
    });
  }

  deleteKeys(keys: { pk: string; sk: string }[]): Promise<void> {
    return this.table.deleteMany(keys);
  }

  /** One page of runs, newest first: the skipped runs are read as keys only. */
  async runPage(triggerId: string, page: number, pageSize: number): Promise<{ items: RunRecord[]; total: number }> {
    const base = {
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": keys.triggerRun.partition(triggerId), ":p": keys.triggerRun.prefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    };
    let start: Record<string, unknown> | undefined;
    let toSkip = (page - 1) * pageSize;
    let pastTheEnd = false;
    while (toSkip > 0) {
      const skipped = await this.table.queryPage({ ...base, ProjectionExpression: "pk, sk", Limit: toSkip, ExclusiveStartKey: start });
      toSkip -= skipped.items.length;
      start = skipped.next;
      if (!start) {
        pastTheEnd = true;
        break;
      }
    }
    const items: RunRecord[] = [];
    if (!pastTheEnd) {
      do {
        const got = await this.table.queryPage<Record<string, unknown>>({ ...base, Limit: pageSize - items.length, ExclusiveStartKey: start });
        items.push(...got.items.map((i) => fromItem<RunRecord>(i)));
        start = got.next;
      } while (start && items.length < pageSize);
    }
    return { items, total: await this.countRuns(triggerId) };
  }

  /** The newest runs, newest first (a warm start looks for the previous successful one among them). */
  async recentRuns(triggerId: string, limit: number): Promise<RunRecord[]> {
    const got = await this.table.queryPage<Record<string, unknown>>({
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": keys.triggerRun.partition(triggerId), ":p": keys.triggerRun.prefix },
      ScanIndexForward: false,
      Limit: limit,
    });
    return got.items.map((i) => fromItem<RunRecord>(i));
  }

  countRuns(triggerId: string): Promise<number> {
    return this.table.countPrefix(keys.triggerRun.partition(triggerId), keys.triggerRun.prefix);
  }

  async acquireRun(triggerId: string, { runId, ...claim }: LeaseClaim & { runId: string }): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const item = await this.leases.acquire<Record<string, unknown>>(key, { ...claim, waiting: ["queued", "pending"], startedAt: isoTime(claim.nowMs) });
    return item ? fromItem<RunRecord>(item) : null;
  }

  async renewRun(triggerId: string, { runId, ...claim }: LeaseClaim & { runId: string }): Promise<boolean> {
    const key = runKey(triggerId, runId);
    return key ? this.leases.renew(key, claim) : false;
  }

  /** Sets fields of a run the worker holds (its execution id once created). */
  async setRunFields(triggerId: string, { runId, worker, fields }: { runId: string; worker: string; fields: Partial<RunRecord> }): Promise<boolean> {
    const key = runKey(triggerId, runId);
    return key !== null && (await this.leases.update(key, worker, { set: assignAll(fields) })) !== null;
  }

  /**
   * Gives a run back to `queued` (its worker is stopping): the next worker takes it at once and starts a
   * new execution for it; `creditsCharged` records what this run has already paid, so it is not charged
   * twice. Only while its execution is still `seenExecutionId` (the worker moves on meanwhile: the caller
   * reads again). Null when that does not hold or the worker no longer holds it.
   */
  async handBackRun(
    triggerId: string,
    {
      runId,
      worker,
      seenExecutionId,
      creditsCharged,
      nowMs,
    }: { runId: string; worker: string; seenExecutionId: string | null; creditsCharged: number | null; nowMs: number },
  ): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const sameExecution = seenExecutionId ? equals("execution_id", seenExecutionId) : or(attributeNotExists("execution_id"), equals("execution_id", null));
    const item = await this.leases.handBack<Record<string, unknown>>(key, {
      worker,
      waiting: "queued",
      queuedAt: isoTime(nowMs),
      set: { execution_id: null, credits_charged: creditsCharged },
      extra: { condition: sameExecution },
    });
    return item ? fromItem<RunRecord>(item) : null;
  }

  /** Final state by the worker holding the run; null when it no longer holds it (swept, deleted). */
  async finalizeHeldRun(
    triggerId: string,
    { runId, worker, status, set }: { runId: string; worker: string; status: "completed" | "failed"; set: FinalRunFields },
  ): Promise<RunRecord | null> {
    const item = await this.leases.finalizeHeld<Record<string, unknown>>(runKey(triggerId, runId)!, { worker, status, set: set as Record<string, unknown> });
    return item ? fromItem<RunRecord>(item) : null;
  }

  /**
   * A run whose solver is `race` (triggers/race-run.ts): the worker that launched the race hands the run
   * to it — the run stays `running` with `execution_id` the race's, but without a lease and out of the
   * ACTIVE partition (its race's entrants are the work, each swept on its own, and the race's record is
   * swept too: races/sweep.ts, whose end completes the run), so no worker waits on it, a redelivered job
   * cannot take it again, and its job's slot of the fair share is freed (fair-share-store.ts itemState).
   * False when the worker no longer holds it.
   */
  async handRunToRace(triggerId: string, { runId, worker, raceId }: { runId: string; worker: string; raceId: string }): Promise<boolean> {
    const key = runKey(triggerId, runId);
    if (!key) return false;
    const item = await this.table.update({
      Key: key,
      ...buildUpdate({
        set: [assign("execution_id", raceId)],
        remove: ["lease_owner", "lease_expires_at_ms", "gsi1pk", "gsi1sk", "queued_at"],
        condition: leaseHeldBy(worker),
      }),
    });
    return item !== null;
  }

  /** The final write of a run handed to race `raceId` (by whoever sees the race end first); null when it is final already. */
  async finalizeRaceRun(
    triggerId: string,
    { runId, raceId, status, set }: { runId: string; raceId: string; status: "completed" | "failed"; set: FinalRunFields },
  ): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const handed = and(equals("execution_id", raceId), attributeNotExists("lease_owner"));
    const item = await this.leases.finalizeUnheld<Record<string, unknown>>(key, {
      from: ["running"],
      status,
      set: set as Record<string, unknown>,
      extra: { condition: handed },
    });
    return item ? fromItem<RunRecord>(item) : null;
  }

  /** Final state for a run no worker ever held (its enqueue was refused); null when it had moved on. */
  async finalizeUnheldRun(
    triggerId: string,
    { runId, from, status, set }: { runId: string; from: RunStatus[]; status: "failed"; set: FinalRunFields },
  ): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const item = await this.leases.finalizeUnheld<Record<string, unknown>>(key, { from, status, set: set as Record<string, unknown> });
    return item ? fromItem<RunRecord>(item) : null;
  }

  /**
   * The sweeper's write: fails a run whose lease (seen `running`) lapsed, or that waits unleased since
   * the `seenQueuedAt` the sweeper read; null when that no longer holds.
   */
  async failRunIfLeaseLapsed(
    triggerId: string,
    {
      runId,
      seenStatus,
      seenQueuedAt = null,
      nowMs,
      set,
    }: { runId: string; seenStatus: RunStatus; seenQueuedAt?: string | null; nowMs: number; set: FinalRunFields },
  ): Promise<RunRecord | null> {
    const key = runKey(triggerId, runId);
    if (!key) return null;
    const item = await this.leases.failIfLeaseLapsed<Record<string, unknown>>(key, { seenStatus, seenQueuedAt, nowMs, set: set as Record<string, unknown> });
    return item ? fromItem<RunRecord>(item) : null;
  }

  // Webhook deliveries --------------------------------------------------------------------------

  /**
   * A run that ends with a webhook to send sits in the sparse gsi1 partition WEBHOOK_OUTBOX (put there
   * by the final write itself) until its first attempt is on the queue; the sweeper sends what a crash
   * left there. The sort key starts with the time the run ended.
   */
  async leaveOutbox(triggerId: string, runId: string): Promise<void> {
    const key = runKey(triggerId, runId);
    if (!key) return;
    await this.table.update({
      Key: key,
      ...buildUpdate({ remove: ["gsi1pk", "gsi1sk"], condition: equals("gsi1pk", WEBHOOK_OUTBOX) }),
    });
  }

  /** Runs that ended before `beforeIso` and whose first webhook attempt is not known to be queued. */
  async outbox(beforeIso: string): Promise<{ trigger_id: string; id: string }[]> {
    return this.table.queryAll<{ trigger_id: string; id: string }>({
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :outbox AND gsi1sk < :before",
      ExpressionAttributeValues: { ":outbox": WEBHOOK_OUTBOX, ":before": beforeIso },
      ProjectionExpression: "trigger_id, id",
    });
  }

  /**
   * Records attempt `attempt` of delivery `deliveryId` and moves the delivery on, only if that attempt
   * is the one expected: a duplicate message (SQS delivers at least once) records nothing and gets false.
   */
  async recordAttempt(
    triggerId: string,
    {
      runId,
      deliveryId,
      attempt,
      next,
    }: {
      runId: string;
      deliveryId: string;
      attempt: DeliveryAttempt;
      next: Pick<WebhookState, "status" | "next_attempt" | "next_attempt_at" | "delivered_at" | "reason">;
    },
  ): Promise<RunRecord | null> {
    const out = await this.table.update<Record<string, unknown>>({
      Key: runKey(triggerId, runId)!,
      ...buildUpdate({
        set: [
          append("webhook.attempts", [attempt]),
          assign("webhook.next_attempt", next.next_attempt),
          assign("webhook.status", next.status),
          assign("webhook.next_attempt_at", next.next_attempt_at),
          assign("webhook.delivered_at", next.delivered_at),
          assign("webhook.reason", next.reason),
        ],
        condition: deliveryAwaits(deliveryId, attempt.attempt),
      }),
    });
    return out ? fromItem<RunRecord>(out) : null;
  }

  /**
   * Claims attempt `attempt` for one consumer until `untilMs`: two copies of one message (SQS delivers
   * at least once) never POST at the same time. A claim whose consumer died expires, so a redelivered
   * message can take over. Throws DeliveryClaimedError, with the run as it stands, when the claim fails.
   */
  async claimAttempt(
    triggerId: string,
    { runId, deliveryId, attempt, untilMs, nowMs }: { runId: string; deliveryId: string; attempt: number; untilMs: number; nowMs: number },
  ): Promise<void> {
    await this.table.updateOrExplain(
      {
        Key: runKey(triggerId, runId)!,
        ...buildUpdate({
          set: [assign("webhook.claimed_attempt", attempt), assign("webhook.claim_until_ms", untilMs)],
          condition: and(deliveryAwaits(deliveryId, attempt), attemptUnclaimed(attempt, nowMs)),
        }),
      },
      DeliveryClaimedError,
    );
  }

  /** Ends a pending delivery without an attempt: cancelled (webhook removed, trigger gone) or exhausted. */
  async stopDelivery(
    triggerId: string,
    { runId, deliveryId, status, reason }: { runId: string; deliveryId: string; status: "cancelled" | "exhausted"; reason: string },
  ): Promise<RunRecord | null> {
    const out = await this.table.update<Record<string, unknown>>({
      Key: runKey(triggerId, runId)!,
      ...buildUpdate({
        set: [assign("webhook.status", status), assign("webhook.reason", reason), assign("webhook.next_attempt_at", null)],
        condition: deliveryPending(deliveryId),
      }),
    });
    return out ? fromItem<RunRecord>(out) : null;
  }

  /** Marks an exhausted delivery as handed to the dead-letter queue; false when already marked. */
  async markDeadLettered(triggerId: string, { runId, deliveryId, nowMs }: { runId: string; deliveryId: string; nowMs: number }): Promise<boolean> {
    const out = await this.table.update({
      Key: runKey(triggerId, runId)!,
      ...buildUpdate({ set: [assign("webhook.dead_lettered_at", isoTime(nowMs))], condition: deliveryExhaustedNotDeadLettered(deliveryId) }),
    });
    return out !== null;
  }
}
