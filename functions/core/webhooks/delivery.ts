import type { Services } from "../services.js";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { loadPayload, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { SolveResponse } from "../executions/schemas.js";
import { newId } from "../ids.js";
import type { WebhookMessage } from "../queue/messages.js";
import type { DeliveryAttempt } from "../triggers/schemas.js";
import { DeliveryClaimedError } from "../triggers/delivery-conditions.js";
import type { RunRecord, TriggerRecord, WebhookEvent, WebhookState } from "../triggers/store.js";
import { postWebhook, type WebhookPoster } from "./http-post.js";
import { parseRetryAfter, retryDelaySeconds } from "./schedule.js";
import { isSealed, type WebhookSecretBox } from "./secret-box.js";
import { deliveryHeaders } from "./signing.js";
import { blobKeys } from "../blob/keys.js";

/** The body POSTed for a finished run (spec: Events). */
export interface WebhookPayload {
  event: WebhookEvent;
  trigger_id: string;
  run_id: string;
  timestamp: string;
  data: { status: "completed" | "failed"; result?: SolveResponse; error?: string; override_data: Record<string, unknown> };
}

/** Tolerance for a message that arrives a little before its due time (SQS delays are whole seconds). */
const EARLY_TOLERANCE_MS = 1000;

/**
 * Webhook delivery of run outcomes. A run that ends with a webhook_url gets a delivery state on its own
 * item (in the same write that ends it), then attempt 1 goes on the webhooks queue. Each message is one
 * attempt:
 *
 *   due later than now? ──▶ re-sent with the remaining delay (SQS caps one delay at 15 min)
 *   not the attempt the run expects? ──▶ duplicate (SQS delivers at least once): dropped
 *   webhook removed or trigger gone ──▶ delivery cancelled
 *   another consumer is POSTing this attempt ──▶ looked at again after its claim expires
 *   POST, signed ──2xx──▶ delivered
 *               ──else──▶ attempt recorded; next attempt sent with the next (jittered) delay, or
 *                         after the last one: exhausted, the message put on the webhooks DLQ, and
 *                         the trigger's creator told with a `system` notification
 *
 * An attempt is claimed before its POST and recorded with a condition on its number, so two copies of
 * one message neither POST together nor move the delivery on twice. A consumer that dies after its POST
 * but before recording leaves a claim that expires; the redelivered message then POSTs again — receivers
 * drop such duplicates by `webhook-id`, which is the same on every attempt.
 */
export class WebhookDeliveries {
  private readonly post: WebhookPoster;
  private readonly random: () => number;

  constructor(
    private readonly deps: Pick<Services, "config" | "clock" | "triggerStore" | "queues" | "sqs" | "blobs" | "notifications" | "logger"> & {
      post?: WebhookPoster;
      random?: () => number;
      webhookSecrets: Pick<WebhookSecretBox, "open" | "seal">;
    },
  ) {
    this.post = deps.post ?? postWebhook;
    this.random = deps.random ?? Math.random;
  }

  /** The delivery a run ending now will carry, or null when its trigger has no webhook. */
  async prepare(
    run: RunRecord,
    {
      trigger,
      outcome,
      nowMs,
    }: {
      trigger: TriggerRecord | null;
      outcome: { status: "completed" | "failed"; result: SolveResponse | null; error: string | null };
      nowMs: number;
    },
  ): Promise<WebhookState | null> {
    if (!trigger?.webhook_url || !trigger.webhook_secret) return null;
    const event: WebhookEvent = outcome.status === "completed" ? "trigger.run.completed" : "trigger.run.failed";
    const payload: WebhookPayload = {
      event,
      trigger_id: run.trigger_id,
      run_id: run.id,
      timestamp: isoTime(nowMs),
      data: {
        status: outcome.status,
        ...(outcome.status === "completed" && outcome.result ? { result: outcome.result } : {}),
        ...(outcome.status === "failed" ? { error: outcome.error ?? "the run failed" } : {}),
        override_data: run.override_data,
      },
    };
    const deliveryId = newId("dlv", nowMs);
    return {
      delivery_id: deliveryId,
      event,
      status: "pending",
      next_attempt: 1,
      next_attempt_at: isoTime(nowMs),
      attempts: [],
      body: await storePayload(this.deps.blobs, blobKeys.webhookBody(run.org_id, deliveryId), {
        value: payload,
        inlineMaxBytes: this.deps.config.inlinePayloadMaxBytes,
      }),
      created_at: isoTime(nowMs),
      delivered_at: null,
      reason: null,
      dead_lettered_at: null,
      claimed_attempt: 0,
      claim_until_ms: 0,
    };
  }

  /**
   * Queues attempt 1 of a run's delivery (after the run's final write), then takes the run out of the
   * outbox. If the send fails, the run stays there and the sweeper sends it (sweepWebhookOutbox).
   */
  async dispatch(run: RunRecord): Promise<void> {
    const w = run.webhook;
    if (w && w.status === "pending" && w.next_attempt === 1) {
      const now = this.deps.clock.now();
      try {
        await this.deps.queues.sendWebhook(
          { delivery_id: w.delivery_id, trigger_id: run.trigger_id, run_id: run.id, org_id: run.org_id, attempt: 1, due_at_ms: now },
          now,
        );
      } catch (error) {
        this.deps.logger.error("webhook not queued; it stays in the outbox for the sweeper", { delivery_id: w.delivery_id, run_id: run.id, error });
        return;
      }
    }
    await this.deps.triggerStore.leaveOutbox(run.trigger_id, run.id);
  }

  /** The sweeper's part: sends what a crash left in the outbox (runs ended more than `graceMs` ago). */
  async sweepOutbox(graceMs: number): Promise<number> {
    const waiting = await this.deps.triggerStore.outbox(isoTime(this.deps.clock.now() - graceMs));
    for (const ref of waiting) {
      const run = await this.deps.triggerStore.getRun(ref.trigger_id, ref.id);
      if (run) await this.dispatch(run);
    }
    return waiting.length;
  }

  /** One message of the webhooks queue. Throws only for infrastructure errors (the message is then retried by SQS). */
  async handle(message: WebhookMessage): Promise<void> {
    const { triggerStore: store, clock, queues } = this.deps;
    const now = clock.now();
    if (message.due_at_ms - now > EARLY_TOLERANCE_MS) {
      await queues.sendWebhook(message, now); // the next leg of a wait longer than one SQS delay
      return;
    }
    const log = { delivery_id: message.delivery_id, run_id: message.run_id, attempt: message.attempt };
    const run = await store.getRun(message.trigger_id, message.run_id);
    const w = run?.webhook;
    if (!run || !w || w.delivery_id !== message.delivery_id) {
      this.deps.logger.info("webhook message for no current delivery: dropped", log);
      return;
    }
    const last = w.attempts.at(-1)?.attempt ?? 0;
    // The last attempt was recorded but its dead-lettering did not finish (SQS handed the message back).
    if (last === message.attempt && w.status === "exhausted" && !w.dead_lettered_at) {
      await this.deadLetter(run, message, w.reason ?? "exhausted");
      return;
    }
    if (w.status !== "pending" || w.next_attempt !== message.attempt) {
      this.deps.logger.info("duplicate webhook message: dropped", log);
      return;
    }
    const trigger = await store.getTrigger(message.org_id, message.trigger_id);
    if (!trigger?.webhook_url || !trigger.webhook_secret) {
      await store.stopDelivery(run.trigger_id, {
        runId: run.id,
        deliveryId: w.delivery_id,
        status: "cancelled",
        reason: trigger ? "the trigger's webhook_url was removed" : "the trigger was deleted",
      });
      return;
    }
    // The claim outlives the attempt's timeout, so only a consumer that died loses it.
    const claimUntil = now + (this.deps.config.webhookTimeoutSeconds + 30) * 1000;
    try {
      await store.claimAttempt(run.trigger_id, { runId: run.id, deliveryId: w.delivery_id, attempt: message.attempt, untilMs: claimUntil, nowMs: now });
    } catch (error) {
      if (!(error instanceof DeliveryClaimedError)) throw error;
      // Another copy is POSTing this attempt (or has just recorded it). Look again once its claim has
      // expired: by then it was recorded (and this copy is dropped as a duplicate), or its consumer died
      // and this copy takes over. Re-queued even when the attempt was recorded meanwhile: if that
      // consumer dies before dead-lettering an exhausted delivery, this copy finishes it.
      const moved = !error.stillAwaits(w.delivery_id, message.attempt);
      this.deps.logger.info(moved ? "attempt recorded meanwhile: checked again later" : "attempt claimed by another consumer: checked again later", {
        ...log,
        claimed_until_ms: error.claimedUntilMs,
      });
      await queues.sendWebhook({ ...message, due_at_ms: claimUntil + 1000 }, now);
      return;
    }
    await this.attempt(trigger, { run, webhook: w, message });
  }

  /**
   * The trigger's webhook secret, opened. One stored before secrets were sealed signs as it is, and is
   * sealed in its place now (only if it is still the value read: a change meanwhile wins).
   */
  private async signingSecret(trigger: TriggerRecord): Promise<string> {
    const stored = trigger.webhook_secret!;
    const secret = await this.deps.webhookSecrets.open(stored, trigger.id);
    if (!isSealed(stored)) {
      const sealed = await this.deps.webhookSecrets.seal(secret, trigger.id);
      await this.deps.triggerStore
        .replaceWebhookSecret(trigger.org_id, { id: trigger.id, was: stored, now: sealed })
        .catch((error: unknown) =>
          this.deps.logger.warn("sealing a stored webhook secret failed; it is sealed at its next delivery", { error, trigger_id: trigger.id }),
        );
    }
    return secret;
  }

  private async attempt(
    trigger: TriggerRecord,
    { run, webhook: w, message }: { run: RunRecord; webhook: WebhookState; message: WebhookMessage },
  ): Promise<void> {
    const { config, clock, triggerStore: store } = this.deps;
    const body = JSON.stringify(await loadPayload<WebhookPayload>(this.deps.blobs, w.body));
    const startedAt = clock.now();
    const headers = deliveryHeaders(await this.signingSecret(trigger), { id: w.delivery_id, timestampSeconds: Math.floor(startedAt / 1000), rawBody: body });
    const result = await this.post(
      trigger.webhook_url!,
      { body, headers },
      {
        timeoutMs: config.webhookTimeoutSeconds * 1000,
        allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      },
    );
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const redirect = result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400;
    const attempt: DeliveryAttempt = {
      attempt: message.attempt,
      attempted_at: isoTime(startedAt),
      status_code: result.statusCode,
      error: result.error ?? (redirect ? "redirects are not followed" : ok ? null : `HTTP ${result.statusCode}`),
      duration_ms: result.durationMs,
      outcome: ok ? "delivered" : result.refused ? "refused" : "failed",
    };
    const now = clock.now();
    this.deps.logger.info("webhook attempt", {
      delivery_id: w.delivery_id,
      run_id: run.id,
      attempt: attempt.attempt,
      outcome: attempt.outcome,
      status_code: attempt.status_code,
      host: hostOf(trigger.webhook_url!),
    });
    if (ok) {
      await store.recordAttempt(run.trigger_id, {
        runId: run.id,
        deliveryId: w.delivery_id,
        attempt,
        next: {
          status: "delivered",
          next_attempt: message.attempt + 1,
          next_attempt_at: null,
          delivered_at: isoTime(now),
          reason: null,
        },
      });
      return;
    }
    // A refused destination will not become allowed by waiting: stop at once.
    const delay = result.refused
      ? null
      : retryDelaySeconds(config.webhookRetryDelaysSeconds, {
          failedAttempt: message.attempt,
          retryAfterSeconds: parseRetryAfter(result.retryAfter, now),
          random: this.random,
        });
    if (delay !== null) {
      const dueAt = now + Math.round(delay * 1000);
      const moved = await store.recordAttempt(run.trigger_id, {
        runId: run.id,
        deliveryId: w.delivery_id,
        attempt,
        next: {
          status: "pending",
          next_attempt: message.attempt + 1,
          next_attempt_at: isoTime(dueAt),
          delivered_at: null,
          reason: null,
        },
      });
      if (moved) await this.scheduleNext(moved, { ...message, attempt: message.attempt + 1, due_at_ms: dueAt });
      return;
    }
    const reason = result.refused ? `destination refused: ${result.error}` : `no 2xx answer after ${message.attempt} attempts`;
    const ended = await store.recordAttempt(run.trigger_id, {
      runId: run.id,
      deliveryId: w.delivery_id,
      attempt,
      next: {
        status: "exhausted",
        next_attempt: message.attempt + 1,
        next_attempt_at: null,
        delivered_at: null,
        reason,
      },
    });
    if (ended) await this.deadLetter(ended, message, reason);
  }

  /**
   * Sends the next attempt's message. Its attempt number is already recorded as the one expected, so if
   * the broker refuses it (after the SDK's own retries) nothing would ever carry it: the delivery ends
   * exhausted, with the reason, rather than stay pending forever.
   */
  private async scheduleNext(run: RunRecord, next: WebhookMessage): Promise<void> {
    try {
      await this.deps.queues.sendWebhook(next, this.deps.clock.now());
    } catch (error) {
      this.deps.logger.error("next webhook attempt not queued", { delivery_id: next.delivery_id, attempt: next.attempt, error });
      const reason = `the next attempt could not be queued (${(error as Error).name})`;
      const ended = await this.deps.triggerStore.stopDelivery(run.trigger_id, { runId: run.id, deliveryId: next.delivery_id, status: "exhausted", reason });
      if (ended) await this.deadLetter(ended, { ...next, attempt: next.attempt - 1 }, reason);
    }
  }

  /**
   * The end of an exhausted delivery: the last message goes to the webhooks DLQ (for operators to
   * inspect or redrive), and the trigger's creator gets a `system` notification, once.
   */
  private async deadLetter(run: RunRecord, message: WebhookMessage, reason: string): Promise<void> {
    const { config, sqs, triggerStore: store, clock } = this.deps;
    if (config.webhooksDlqUrl) {
      await sqs.send(new SendMessageCommand({ QueueUrl: config.webhooksDlqUrl, MessageBody: JSON.stringify({ ...message, reason }) }));
    } else {
      this.deps.logger.error("WEBHOOKS_DLQ_URL is not set: an exhausted delivery is recorded on its run only", { delivery_id: message.delivery_id });
    }
    if (!(await store.markDeadLettered(run.trigger_id, { runId: run.id, deliveryId: message.delivery_id, nowMs: clock.now() }))) return;
    const trigger = await store.getTrigger(run.org_id, run.trigger_id);
    if (!trigger) return;
    await this.deps.notifications.notify(trigger.created_by, {
      type: "system",
      title: `Webhook delivery failed: ${trigger.name}`,
      message: `The outcome of run ${run.id} could not be delivered to ${hostOf(trigger.webhook_url ?? "")}: ${reason}. The attempts are on the run.`,
      data: { trigger_id: trigger.id, run_id: run.id, delivery_id: message.delivery_id, attempts: message.attempt, execution_id: run.execution_id },
      link: `/triggers/${trigger.id}/runs/${run.id}`,
    });
  }
}

/** Only the host reaches logs and messages: a URL's path or query may carry the receiver's own token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
