import type { ComparisonStatus } from "../comparisons/schemas.js";
import type { ExecutionStatus } from "../executions/schemas.js";
import type { Services } from "../services.js";

/**
 * Reconciles work whose worker died: a running item whose lease expired (its worker stopped renewing)
 * becomes `failed` with the reason, and a waiting item that no worker took within `staleQueuedSeconds`
 * (its message went to the DLQ) too. Every write holds only while what was read still holds (the
 * lease still lapsed, the item still waiting unleased), so a worker that renewed meanwhile wins. After a sweep, history has no stale running entries.
 * Trigger runs are reconciled by the hook the triggers module registers (it also sends their webhook).
 */
export interface SweepReport {
  examined: number;
  failed: { kind: string; id: string; reason: string }[];
}

export type SweepHook = (kind: string, pk: string, sk: string, reason: string, nowMs: number) => Promise<boolean>;

export async function sweep(services: Services, extraHooks: Record<string, SweepHook> = {}): Promise<SweepReport> {
  const now = services.clock.now();
  const active = await services.executionStore.leases.active();
  const staleQueuedMs = services.config.staleQueuedSeconds * 1000;
  const report: SweepReport = { examined: active.length, failed: [] };
  for (const item of active) {
    let reason: string | null = null;
    if (item.status === "running" && item.lease_expires_at_ms !== null && item.lease_expires_at_ms < now) {
      reason = "the worker stopped responding (its lease expired); the solve did not finish";
    } else if ((item.status === "queued" || item.status === "pending") && now - Date.parse(item.created_at) > staleQueuedMs) {
      reason = `no worker started this within ${services.config.staleQueuedSeconds} s`;
    }
    if (!reason) continue;
    const id = item.sk.slice(item.sk.indexOf("#") + 1);
    const orgId = item.pk.slice("ORG#".length);
    let ended = false;
    if (item.kind === "execution") {
      ended = (await services.executionStore.failIfLapsed(orgId, id, item.status as ExecutionStatus, reason, now)) !== null;
    } else if (item.kind === "comparison") {
      ended = (await services.comparisonStore.failIfLapsed(orgId, id, item.status as ComparisonStatus, reason, now)) !== null;
    } else if (extraHooks[item.kind]) {
      ended = await extraHooks[item.kind]!(item.kind, item.pk, item.sk, reason, now);
    }
    if (ended) report.failed.push({ kind: item.kind, id, reason });
  }
  return report;
}
