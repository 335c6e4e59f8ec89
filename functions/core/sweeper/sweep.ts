import type { ComparisonStatus } from "../comparisons/schemas.js";
import type { ExecutionStatus } from "../executions/schemas.js";
import type { Services } from "../services.js";
import { staleReason } from "./stale.js";

/**
 * Reconciles work whose worker died: a running item whose lease expired (its worker stopped renewing)
 * becomes `failed` with the reason, and a waiting item that no worker took within `staleQueuedSeconds`
 * of being queued (its message went to the DLQ) too — see `staleReason`. Every write holds only while
 * what was read still holds (the lease still lapsed, the item still waiting unleased since the same
 * `queued_at`), so a worker that renewed, or handed the item back, meanwhile wins. After a sweep,
 * history has no stale running entries.
 * Trigger runs are reconciled by the hook the triggers module registers (it also sends their webhook).
 */
export interface SweepReport {
  examined: number;
  failed: { kind: string; id: string; reason: string }[];
}

/** `seenQueuedAt`: the item's `queued_at` as the sweeper read it (null: absent), for the write's condition. */
export type SweepHook = (kind: string, pk: string, sk: string, reason: string, nowMs: number, seenQueuedAt: string | null) => Promise<boolean>;

export async function sweep(services: Services, extraHooks: Record<string, SweepHook> = {}): Promise<SweepReport> {
  const now = services.clock.now();
  const active = await services.executionStore.leases.active();
  const report: SweepReport = { examined: active.length, failed: [] };
  for (const item of active) {
    const reason = staleReason(item, now, services.config.staleQueuedSeconds);
    if (!reason) continue;
    const seenQueuedAt = item.queued_at ?? null;
    const id = item.sk.slice(item.sk.indexOf("#") + 1);
    const orgId = item.pk.slice("ORG#".length);
    let ended = false;
    if (item.kind === "execution") {
      ended = (await services.executionStore.failIfLapsed(orgId, id, item.status as ExecutionStatus, reason, now, seenQueuedAt)) !== null;
    } else if (item.kind === "comparison") {
      ended = (await services.comparisonStore.failIfLapsed(orgId, id, item.status as ComparisonStatus, reason, now, seenQueuedAt)) !== null;
    } else if (extraHooks[item.kind]) {
      ended = await extraHooks[item.kind]!(item.kind, item.pk, item.sk, reason, now, seenQueuedAt);
    }
    if (ended) report.failed.push({ kind: item.kind, id, reason });
  }
  return report;
}
