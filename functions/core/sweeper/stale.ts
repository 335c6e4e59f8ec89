import type { ActiveRef } from "../store/leases.js";

/** What the sweeper reads of an active item to judge it. */
export type SweptItem = Pick<ActiveRef, "status" | "lease_expires_at_ms" | "created_at" | "queued_at" | "parked_at">;

/**
 * When a waiting item began its current wait: when it was last queued (created, or handed back by a
 * stopping worker), or, on items written before `queued_at` existed, when it was created.
 */
export const waitingSinceMs = (item: SweptItem): number => Date.parse(item.queued_at ?? item.created_at);

/**
 * Why the sweeper fails this item now, or null when it is left alone: a running item whose lease
 * lapsed (its worker died), or a waiting item (not parked) no worker took within `staleQueuedSeconds` of being
 * queued — judged by its latest queueing, so a long job handed back late waits a whole window again.
 */
export function staleReason(item: SweptItem, nowMs: number, staleQueuedSeconds: number): string | null {
  if (item.status === "running") {
    return item.lease_expires_at_ms !== null && item.lease_expires_at_ms < nowMs
      ? "the worker stopped responding (its lease expired); the solve did not finish"
      : null;
  }
  // A parked job is not lost: it waits in the table for its organization's share of the fleet, and its
  // wait in the queue starts when it is sent (queue/fair-share.ts).
  if (item.parked_at) return null;
  if ((item.status === "queued" || item.status === "pending") && nowMs - waitingSinceMs(item) > staleQueuedSeconds * 1000) {
    return `no worker started this within ${staleQueuedSeconds} s`;
  }
  return null;
}
