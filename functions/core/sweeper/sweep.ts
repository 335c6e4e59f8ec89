import type { ComparisonStatus } from "../comparisons/schemas.js";
import type { ExecutionStatus } from "../executions/schemas.js";
import type { JobMessage } from "../queue/messages.js";
import type { ActiveRef } from "../store/leases.js";
import { ACTIVE_RUN_KIND } from "../triggers/store.js";
import type { Services } from "../services.js";
import { staleReason } from "./stale.js";
import { keys } from "../store/keys.js";
import { settleSweptEntrant, sweeperRacePorts } from "../races/settle.js";
import { RACE_ACTIVE_KIND } from "../races/store.js";
import { sweepRace } from "../races/sweep.js";
import { raceRunCompleter } from "../triggers/race-run.js";

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
  /** Parked jobs sent because their organization had room (queue/fair-share.ts). */
  promoted: number;
  /** Races whose settle step was lost, answered by this sweep (races/sweep.ts); those ended at their deadline are in `failed`. */
  settledRaces: string[];
}

/** A stale item a hook is asked to fail, and why. */
export interface StaleItem {
  kind: string;
  pk: string;
  sk: string;
  /** The item's status as the sweeper read it. */
  seenStatus: string;
  /** The item's `queued_at` as the sweeper read it (null: absent), for the write's condition. */
  seenQueuedAt: string | null;
  reason: string;
  nowMs: number;
}

/** Fails a stale item of one kind; true when it did. */
export type SweepHook = (item: StaleItem) => Promise<boolean>;

export async function sweep(services: Services, extraHooks: Record<string, SweepHook> = {}): Promise<SweepReport> {
  const now = services.clock.now();
  const active = await services.executionStore.leases.active();
  const report: SweepReport = { examined: active.length, failed: [], promoted: 0, settledRaces: [] };
  const parkedOrgs = new Set<string>();
  for (const item of active) {
    if (item.parked_at && item.org_id) parkedOrgs.add(item.org_id);
    if (item.kind === RACE_ACTIVE_KIND) {
      await sweepOneRace(services, item, report);
      continue;
    }
    const reason = staleReason(item, now, services.config.staleQueuedSeconds);
    if (!reason) continue;
    const seenQueuedAt = item.queued_at ?? null;
    const id = item.sk.slice(item.sk.indexOf("#") + 1);
    const orgId = keys.org.parse(item.pk) ?? "";
    let ended = false;
    if (item.kind === "execution") {
      const swept = await services.executionStore.failIfLeaseLapsed(orgId, {
        id,
        seenStatus: item.status as ExecutionStatus,
        seenQueuedAt,
        reason,
        nowMs: now,
      });
      ended = swept !== null;
      // A race's entrant (races/): its row is written failed, and the race ends if it was the last one running.
      if (swept?.origin?.kind === "race") await settleSweptEntrant({ ...services, raceEnded: raceRunCompleter(services) }, swept);
    } else if (item.kind === "comparison") {
      ended =
        (await services.comparisonStore.failIfLeaseLapsed(orgId, { id, seenStatus: item.status as ComparisonStatus, seenQueuedAt, reason, nowMs: now })) !==
        null;
    } else if (extraHooks[item.kind]) {
      ended = await extraHooks[item.kind]!({ kind: item.kind, pk: item.pk, sk: item.sk, seenStatus: item.status, seenQueuedAt, reason, nowMs: now });
    }
    if (ended) {
      report.failed.push({ kind: item.kind, id, reason });
      const job = jobOf(item);
      if (job) await services.fairShare.ended(job).catch((error) => services.logger.warn("freeing a swept job's slot failed", { error, job_id: job.id }));
    }
  }
  // Parked jobs of organizations with room: a worker that died holding a slot ended no job to send them.
  for (const orgId of parkedOrgs) {
    report.promoted += await services.fairShare.promote(orgId).catch((error) => {
      services.logger.warn("promoting parked jobs failed", { error, org_id: orgId });
      return 0;
    });
  }
  return report;
}

/** A race's own record: no lease to lapse, so races/sweep.ts judges it by its entrants and its deadline. */
async function sweepOneRace(services: Services, item: ActiveRef, report: SweepReport): Promise<void> {
  const orgId = keys.org.parse(item.pk) ?? "";
  const raceId = item.sk.slice(item.sk.indexOf("#") + 1);
  const ports = sweeperRacePorts({ ...services, raceEnded: raceRunCompleter(services) });
  const outcome = await sweepRace(ports, { orgId, raceId, waits: services.config }).catch((error: unknown) => {
    services.logger.warn("sweeping a race failed", { error, execution_id: raceId });
    return "running" as const;
  });
  if (outcome === "settled") report.settledRaces.push(raceId);
  if (outcome === "ended_past_deadline") report.failed.push({ kind: RACE_ACTIVE_KIND, id: raceId, reason: "the race was still open at its deadline" });
}

/** The queue job an active item is the work of (a comparison row's or a trigger run's execution names none of its own, harmlessly). */
function jobOf(item: ActiveRef): JobMessage | null {
  if (!item.id || !item.org_id) return null;
  if (item.kind === "execution" || item.kind === "comparison") return { type: item.kind, id: item.id, org_id: item.org_id };
  if (item.kind === ACTIVE_RUN_KIND && item.trigger_id) return { type: "trigger_run", id: item.id, org_id: item.org_id, trigger_id: item.trigger_id };
  return null;
}
