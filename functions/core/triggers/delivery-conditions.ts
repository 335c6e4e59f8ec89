import { and, equals, isNull, lessThan, or, type Part } from "../store/conditions.js";
import { ConditionFailedError } from "../store/table.js";
import type { WebhookState } from "./store.js";

/**
 * The rules a webhook delivery's writes hold on, named. A delivery lives in its run's `webhook`
 * attribute; every write names the delivery it means, so a newer delivery of the same run (a webhook
 * re-sent) is never moved by a message of an older one.
 */

/** Delivery `deliveryId` is the run's current one and still has attempts to make. */
export const deliveryPending = (deliveryId: string): Part => and(equals("webhook.delivery_id", deliveryId), equals("webhook.status", "pending"));

/** Delivery `deliveryId` is pending and `attempt` is the attempt it expects next. */
export const deliveryAwaits = (deliveryId: string, attempt: number): Part => and(deliveryPending(deliveryId), equals("webhook.next_attempt", attempt));

/** No consumer holds a live claim on `attempt`: none claimed it yet, or the claim expired before `nowMs`. */
export const attemptUnclaimed = (attempt: number, nowMs: number): Part =>
  or(lessThan("webhook.claimed_attempt", attempt), lessThan("webhook.claim_until_ms", nowMs));

/** Delivery `deliveryId` ran out of attempts and was not yet handed to the dead-letter queue. */
export const deliveryExhaustedNotDeadLettered = (deliveryId: string): Part =>
  and(equals("webhook.delivery_id", deliveryId), equals("webhook.status", "exhausted"), isNull("webhook.dead_lettered_at"));

/**
 * A claim on a webhook attempt that did not hold: another consumer holds it, or the delivery moved on
 * (the attempt was recorded, or another delivery replaced it). Carries the run as it now stands.
 */
export class DeliveryClaimedError extends ConditionFailedError<{ webhook?: WebhookState | null }> {
  /** Whether the run's delivery `deliveryId` still waits for `attempt` (false: this message is a duplicate). */
  stillAwaits(deliveryId: string, attempt: number): boolean {
    const w = this.existing?.webhook;
    return w?.delivery_id === deliveryId && w.status === "pending" && w.next_attempt === attempt;
  }

  /** Until when the claim that won holds (ms since the epoch), when the delivery still waits for it. */
  get claimedUntilMs(): number | null {
    return this.existing?.webhook?.claim_until_ms ?? null;
  }
}
