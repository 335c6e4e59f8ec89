import type { Services } from "../services.js";
import { createHash, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { roleAtLeast } from "../auth/roles.js";
import type { Principal } from "../auth/service.js";
import { loadPayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { AppError, forbidden, notFound, TriggerInputError, unauthorized } from "../errors.js";
import type { SolveResponse } from "../executions/schemas.js";
import { derivedId } from "../ids.js";
import { enqueueOrFail } from "../queue/enqueue-or-fail.js";
import { assertAllowed } from "../limits/rate-limits.js";
import { resolveSettings } from "../solvers/settings.js";
import type { SolverChoice } from "../solvers/types.js";
import type { ConsumeResult } from "../limits/counters.js";
import { resolveRunInput, type ResolvedInput } from "./overrides.js";
import type { RunListItemSchema, RunViewSchema } from "./schemas.js";
import { newRunRecord } from "./records.js";
import type { RunRecord, TriggerRecord } from "./store.js";

type RunListItem = z.infer<typeof RunListItemSchema>;
type RunView = z.infer<typeof RunViewSchema>;

/** Compares a presented secret with the stored SHA-256 hash in constant time (both are 32-byte digests). */
export function secretMatches(storedHashHex: string, presented: string): boolean {
  const stored = Buffer.from(storedHashHex, "hex");
  const given = createHash("sha256").update(presented, "utf8").digest();
  return stored.length === given.length && timingSafeEqual(stored, given);
}

/** A trigger secret as the service issues it (`inc_trg_…`). */
export const isTriggerSecret = (credential: string): boolean => credential.startsWith("inc_trg_");

/**
 * The secret a fire presents: the Authorization header's when it holds a trigger secret, else the
 * body's `trigger_secret` (so a client that sends its API key in the header and the secret in the
 * body is served), else whatever the header holds (refused as an invalid secret).
 */
export function presentedTriggerSecret(authorization: string | null, bodySecret: string | undefined): string | null {
  if (authorization && isTriggerSecret(authorization)) return authorization;
  return bodySecret ?? authorization;
}

/**
 * Shows the caller a window's rate-limit state (response headers), refused or not; with
 * `onlyIfBinding`, only when it binds before (or instead of) what was shown already.
 */
export type RateLimitObserver = (result: ConsumeResult, nowMs: number, options?: { onlyIfBinding?: boolean }) => void;

interface StartOptions {
  source: RunRecord["source"];
  sent: Record<string, unknown>;
  createdBy: string;
  rerunOf: string | null;
  /** Fire records a refused input as a validation_failed run; run now and rerun record nothing. */
  recordRefusal: boolean;
  /** The run's id when it must be made once only (a schedule's slot); else a new one. */
  runId?: string;
}

/** What a schedule's firing came to (the worker logs it). */
export type ScheduledFiring =
  | { outcome: "started"; run: RunRecord }
  /** This slot's run was recorded by an earlier delivery of the same firing: nothing more is done. */
  | { outcome: "already_fired"; run_id: string }
  /** The trigger is gone, disabled or unscheduled, or its input was refused (recorded as a validation_failed run). */
  | { outcome: "nothing_to_run" };

/** A run id taken already: the same slot's firing was recorded by an earlier delivery. */
class RunAlreadyRecorded extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} is recorded already`);
  }
}

/**
 * The id of the run a schedule's firing for `scheduledAt` makes: the same for every delivery of that
 * firing (EventBridge Scheduler and SQS deliver at least once), so only the first records a run.
 * Undefined when the firing names no instant (a message from a schedule set before it did).
 */
export function scheduledRunId(triggerId: string, scheduledAt: string | undefined): string | undefined {
  const slotMs = scheduledAt ? Date.parse(scheduledAt) : Number.NaN;
  return Number.isFinite(slotMs) ? derivedId("run", slotMs, `${triggerId}@${isoTime(slotMs)}`) : undefined;
}

/**
 * Making runs: fire (trigger secret), run now (session or API key) and rerun (API key). Fire checks,
 * in order: a secret was sent (401), the trigger exists (404), the secret matches (401), the trigger is
 * enabled (409), the per-trigger rate limit (429) — none of these records anything — then the input
 * (422 with a recorded validation_failed run), then records the run, counts it and queues it.
 */
export class TriggerRuns {
  private readonly versionSolvers = new Map<string, SolverChoice>();

  constructor(
    private readonly deps: Pick<
      Services,
      "config" | "clock" | "triggerStore" | "documents" | "inventory" | "limiter" | "fairShare" | "priorityBudget" | "runOutcomes" | "auth" | "blobs"
    >,
  ) {}

  async fire(
    triggerId: string,
    { presentedSecret, overrideData, observe }: { presentedSecret: string | null; overrideData: Record<string, unknown>; observe: RateLimitObserver },
  ): Promise<RunRecord> {
    if (!presentedSecret) throw unauthorized("Missing trigger secret: send Authorization: Bearer <trigger secret>, or trigger_secret in the body.");
    const trigger = await this.deps.triggerStore.findTrigger(triggerId);
    if (!trigger) throw notFound("Trigger");
    if (!secretMatches(trigger.secret_hash, presentedSecret)) throw unauthorized("Invalid trigger secret.");
    this.assertEnabled(trigger);
    await this.takeSlot(trigger, observe);
    await this.takeOrganizationSlot(trigger, observe);
    return this.start(trigger, { source: "fire", sent: overrideData, createdBy: trigger.created_by, rerunOf: null, recordRefusal: true });
  }

  async runNow(principal: Principal, triggerId: string, observe: RateLimitObserver): Promise<RunRecord> {
    const trigger = await this.triggerFor(principal, triggerId);
    await this.assertCanRun(principal, trigger);
    this.assertEnabled(trigger);
    await this.takeSlot(trigger, observe);
    return this.start(trigger, { source: "run_now", sent: {}, createdBy: principal.userId, rerunOf: null, recordRefusal: false });
  }

  /**
   * A run the trigger's schedule started (the worker that took the schedule's message calls this):
   * recorded and queued like a fired run, with the trigger's creator as its owner and no override data.
   * Nothing to run when the trigger is gone, disabled or unscheduled (a schedule removed after it
   * fired), or its input was refused (recorded as a validation_failed run, as fire records it). One run
   * per slot `scheduledAt`: a second delivery of the same firing is answered `already_fired`, with no
   * second run, count or charge.
   */
  async scheduled(orgId: string, triggerId: string, scheduledAt?: string): Promise<ScheduledFiring> {
    const trigger = await this.deps.triggerStore.getTrigger(orgId, triggerId);
    if (!trigger?.schedule || !trigger.is_enabled) return { outcome: "nothing_to_run" };
    const runId = scheduledRunId(trigger.id, scheduledAt);
    try {
      const run = await this.start(trigger, { source: "schedule", sent: {}, createdBy: trigger.created_by, rerunOf: null, recordRefusal: true, runId });
      return { outcome: "started", run };
    } catch (error) {
      if (error instanceof RunAlreadyRecorded) return { outcome: "already_fired", run_id: error.runId };
      // A refused input is recorded as a validation_failed run; a trigger deleted meanwhile takes its run with it.
      if (error instanceof TriggerInputError || (error instanceof AppError && error.code === "not_found")) return { outcome: "nothing_to_run" };
      throw error;
    }
  }

  /** A new run from an earlier run's override data; the input is checked before anything is counted or recorded. */
  async rerun(principal: Principal, { triggerId, runId, observe }: { triggerId: string; runId: string; observe: RateLimitObserver }): Promise<RunRecord> {
    const trigger = await this.triggerFor(principal, triggerId);
    await this.assertCanRun(principal, trigger);
    const earlier = await this.deps.triggerStore.getRun(trigger.id, runId);
    if (!earlier) throw notFound("Run");
    this.assertEnabled(trigger);
    await this.resolve(trigger, earlier.override_data);
    await this.takeSlot(trigger, observe);
    return this.start(trigger, { source: "rerun", sent: earlier.override_data, createdBy: principal.userId, rerunOf: earlier.id, recordRefusal: false });
  }

  async triggerFor(principal: Principal, triggerId: string): Promise<TriggerRecord> {
    const trigger = await this.deps.triggerStore.getTrigger(principal.orgId, triggerId);
    if (!trigger) throw notFound("Trigger");
    return trigger;
  }

  private async assertCanRun(principal: Principal, trigger: TriggerRecord): Promise<void> {
    const role = await this.deps.auth.workspaceRole(principal, trigger.workspace_id);
    if (!roleAtLeast(role, "solver")) throw forbidden("Running a trigger needs the solver role in its workspace.");
  }

  private assertEnabled(trigger: TriggerRecord): void {
    if (!trigger.is_enabled)
      throw new AppError("trigger_disabled", "The trigger is disabled; nothing was queued. Enable it with POST /api/v2/triggers/{trigger_id}/toggle.");
  }

  /** Fire, run now and rerun share one per-trigger window (TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE). */
  private async takeSlot(trigger: TriggerRecord, observe: RateLimitObserver): Promise<void> {
    const now = this.deps.clock.now();
    const result = (await this.deps.limiter.consume("trigger", { subject: trigger.id, nowMs: now }))!;
    observe(result, now);
    assertAllowed(result, { nowMs: now, what: "runs of this trigger" });
  }

  /**
   * A fire also counts against its organization's every-request windows (statement A), as run now and
   * rerun do at their admission: otherwise a hundred triggers fired at their own limit would be a
   * hundred times the organization's. The headers show whichever window binds first.
   */
  private async takeOrganizationSlot(trigger: TriggerRecord, observe: RateLimitObserver): Promise<void> {
    const now = this.deps.clock.now();
    const result = await this.deps.limiter.consume("organization", { subject: trigger.org_id, nowMs: now });
    if (!result) return;
    observe(result, now, { onlyIfBinding: true });
    assertAllowed(result, { nowMs: now, what: "requests of this trigger's organization" });
  }

  private async resolve(trigger: TriggerRecord, sent: Record<string, unknown>): Promise<ResolvedInput> {
    return resolveRunInput(trigger.override_schema, sent, {
      version: await this.versionSolver(trigger),
      chosen: trigger.solver_name,
      race: trigger.race ?? null,
      available: await this.deps.inventory.available(this.deps.clock.now()),
    });
  }

  /** The solver a pinned version names. A version's solver never changes, and a pinned version is never pruned. */
  private async versionSolver(trigger: TriggerRecord): Promise<SolverChoice> {
    const cached = this.versionSolvers.get(trigger.version_id);
    if (cached) return cached;
    const version = await this.deps.documents.findVersion(trigger.org_id, trigger.document_id, trigger.version_id);
    if (!version) throw new AppError("conflict", "The trigger's pinned version no longer exists; create a new trigger.");
    if (this.versionSolvers.size >= 10_000) this.versionSolvers.clear();
    this.versionSolvers.set(version.id, version.solver_name);
    return version.solver_name;
  }

  private async start(trigger: TriggerRecord, options: StartOptions): Promise<RunRecord> {
    const { triggerStore: store, clock, config } = this.deps;
    const now = clock.now();
    const base = newRunRecord({
      trigger,
      source: options.source,
      createdBy: options.createdBy,
      rerunOf: options.rerunOf,
      overrideData: options.sent,
      settings: resolveSettings(config, undefined),
      nowMs: now,
      id: options.runId,
    });
    let resolved: ResolvedInput;
    try {
      resolved = await this.resolve(trigger, options.sent);
    } catch (error) {
      if (!(error instanceof TriggerInputError) || !options.recordRefusal) throw error;
      const refused: RunRecord = {
        ...base,
        status: "validation_failed",
        error: error.detail,
        validation: { code: error.fireCode, params: error.params },
        completed_at: isoTime(now),
      };
      await this.record(trigger, refused);
      throw error.withRun(refused.id);
    }
    const run: RunRecord = { ...base, override_data: resolved.effective, solver_name: resolved.solver };
    await this.record(trigger, run);
    await enqueueOrFail(
      this.deps.fairShare,
      async () => ({ type: "trigger_run", id: run.id, org_id: run.org_id, trigger_id: run.trigger_id, priority: await this.queuedPriority(trigger) }),
      async (reason) => {
        const outcome = { status: "failed" as const, result: null, error: reason };
        const ended = await store.finalizeUnheldRun(run.trigger_id, {
          runId: run.id,
          from: [run.status],
          status: "failed",
          set: await this.deps.runOutcomes.finalFields(run, { trigger, outcome, nowMs: clock.now() }),
        });
        if (ended) await this.deps.runOutcomes.announce(ended, trigger, null);
      },
    );
    return run;
  }

  /**
   * The band a run is queued in: the trigger's priority while the organization's priority budget lasts
   * (limits/priority-budget.ts), else 0 — a fire is a third party's request, not refused for the
   * owner's budget; the run waits among the normal band's jobs instead.
   */
  private async queuedPriority(trigger: TriggerRecord): Promise<number> {
    const priority = trigger.priority ?? 0;
    if (priority <= 0 || (await this.deps.priorityBudget.tryTake(trigger.org_id, this.deps.clock.now()))) return priority;
    return 0;
  }

  /**
   * Records a run and counts it on the trigger; a trigger deleted meanwhile takes the run with it (404).
   * A run whose id is taken (its slot fired already) is neither.
   */
  private async record(trigger: TriggerRecord, run: RunRecord): Promise<void> {
    if (!(await this.deps.triggerStore.createRun(run))) throw new RunAlreadyRecorded(run.id);
    if (!(await this.deps.triggerStore.countRun(trigger.org_id, trigger.id, run.created_at))) {
      await this.deps.triggerStore.deleteRun(trigger.id, run.id);
      throw notFound("Trigger");
    }
  }

  // Reading ------------------------------------------------------------------------------------

  async page(principal: Principal, { triggerId, page, pageSize }: { triggerId: string; page: number; pageSize: number }) {
    const trigger = await this.triggerFor(principal, triggerId);
    const { items, total } = await this.deps.triggerStore.runPage(trigger.id, page, pageSize);
    return { items: await Promise.all(items.map((r) => this.listItem(r))), total, page, page_size: pageSize };
  }

  async get(principal: Principal, triggerId: string, runId: string): Promise<RunView> {
    const trigger = await this.triggerFor(principal, triggerId);
    const run = await this.deps.triggerStore.getRun(trigger.id, runId);
    if (!run) throw notFound("Run");
    return this.view(run);
  }

  async listItem(run: RunRecord): Promise<RunListItem> {
    return {
      id: run.id,
      trigger_id: run.trigger_id,
      status: run.status,
      override_data: run.override_data,
      result_data: run.result ? await loadPayload<SolveResponse>(this.deps.blobs, run.result) : null,
      created_at: run.created_at,
      completed_at: run.completed_at,
    };
  }

  async view(run: RunRecord): Promise<RunView> {
    const w = run.webhook;
    return {
      ...(await this.listItem(run)),
      source: run.source,
      rerun_of: run.rerun_of,
      solver_name: run.solver_name,
      execution_id: run.execution_id,
      error: run.error,
      validation: run.validation,
      started_at: run.started_at ?? null,
      webhook: w
        ? {
            delivery_id: w.delivery_id,
            event: w.event,
            status: w.status,
            attempts: w.attempts,
            next_attempt_at: w.next_attempt_at,
            delivered_at: w.delivered_at,
            reason: w.reason,
          }
        : null,
    };
  }
}
