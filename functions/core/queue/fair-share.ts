import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { type FairShareStore, jobHolder, type ParkedEntry } from "./fair-share-store.js";
import type { JobMessage } from "./messages.js";
import type { Queues } from "./sqs.js";

/**
 * The fair share of the solver fleet between organizations (docs/decisions.md, "Fair share of the
 * fleet"): an organization has at most ORG_MAX_RUNNING_JOBS jobs in the queue or running at once. Each
 * such job holds one of the organization's running slots (fair-share-store.ts); a job beyond them is
 * parked in the table, not sent to SQS, and is sent when one of the organization's jobs ends.
 *
 * Why at the door and not at the worker: a worker that receives a job it may not run can only hand the
 * message back (each receive counts towards the queue's maxReceiveCount, and a job handed back often
 * enough ends in the DLQ) or send it again (a flood of 1,000 jobs is then 1,000 receives, sends and
 * deletes per round, ahead of every other tenant's message). Parked jobs cost nothing while they wait,
 * and the queue never holds more than the cap of one organization's jobs: another organization's job
 * is at most (active organizations × cap) messages deep, whatever one tenant sends.
 *
 * Nothing is lost on a crash: a job is parked (its entry written) before anything forgets it; an entry
 * is dropped only after its message is sent (a crash in between sends it twice, and the work item's
 * conditional acquire runs it once); a slot is a lease that frees itself when its worker stops renewing
 * it; and the sweeper promotes parked jobs of every organization with room (after a worker died holding
 * a slot, no job of that organization ends to do it).
 *
 * The worker calls `hold` before a job (renews the job's slot for the lease, or takes a free one, or
 * parks the job when the organization is at its cap — a message sent before the cap existed, or one
 * whose slot lapsed), `renew` with its lease, and `settle` after (frees the slot of a job that is done
 * and promotes the organization's next parked jobs). A schedule's firing (milliseconds of work that
 * records and dispatches a trigger run) holds no slot.
 */
export interface FairShareDeps {
  store: FairShareStore;
  queues: Pick<Queues, "sendJob">;
  clock: Clock;
  config: Pick<Config, "orgMaxRunningJobs" | "jobLeaseSeconds" | "staleQueuedSeconds" | "sweepIntervalSeconds">;
  logger: Pick<Logger, "warn" | "info">;
}

/** What `hold` decided: run the job (holding `slot`, null when no cap applies), or it was parked (drop its message). */
export type Hold = { parked: false; slot: number | null } | { parked: true };

/** How long a promoter has an entry to itself (a crashed promoter's claim lapses after it). */
const PROMOTE_CLAIM_MS = 30_000;
/** Entries read per round of a promotion, and rounds at most (the sweeper goes on where one stops). */
const PROMOTE_BATCH = 10;
const PROMOTE_ROUNDS = 20;

type Promotion = "promoted" | "dropped" | "busy" | "org_full" | "broker_refused";

export class FairShare {
  constructor(private readonly deps: FairShareDeps) {}

  private get cap(): number {
    return this.deps.config.orgMaxRunningJobs;
  }

  /** A slot taken at the door is held while the job waits in the queue: as long as the sweeper lets a job wait there. */
  private get queuedHoldMs(): number {
    const { staleQueuedSeconds, sweepIntervalSeconds } = this.deps.config;
    return (staleQueuedSeconds + 2 * sweepIntervalSeconds) * 1000;
  }

  private get leaseMs(): number {
    return this.deps.config.jobLeaseSeconds * 1000;
  }

  private exempt(job: JobMessage): boolean {
    return this.cap <= 0 || job.type === "trigger_schedule";
  }

  /**
   * Sends a new job when its organization has a free slot, else parks it. A broker refusal frees the
   * slot and throws (the caller records `enqueue_failed`).
   */
  async dispatch(job: JobMessage): Promise<"queued" | "parked"> {
    if (this.exempt(job)) {
      await this.deps.queues.sendJob(job);
      return "queued";
    }
    const now = this.deps.clock.now();
    const slot = await this.take(job, now + this.queuedHoldMs, now);
    if (slot === null) {
      await this.park(job, now);
      return "parked";
    }
    try {
      await this.deps.queues.sendJob({ ...job, slot });
    } catch (error) {
      await this.deps.store.release(job.org_id, slot, jobHolder(job)).catch(() => undefined);
      throw error;
    }
    return "queued";
  }

  /** Before a worker runs a job it received: see the class comment. */
  async hold(job: JobMessage): Promise<Hold> {
    if (this.exempt(job)) return { parked: false, slot: null };
    const now = this.deps.clock.now();
    const until = now + this.leaseMs;
    if (job.slot !== undefined && (await this.deps.store.renew(job.org_id, { slot: job.slot, holder: jobHolder(job), expiresAtMs: until })))
      return { parked: false, slot: job.slot };
    const slot = await this.take(job, until, now);
    if (slot !== null) return { parked: false, slot };
    // At the cap: parked (its message is done with). When the item no longer waits there is nothing to
    // park; the job function finds it held elsewhere or done.
    return (await this.park(job, now)) ? { parked: true } : { parked: false, slot: null };
  }

  /** Keeps the job's slot while its lease is renewed. */
  async renew(job: JobMessage, slot: number | null): Promise<void> {
    if (slot === null) return;
    await this.deps.store.renew(job.org_id, { slot, holder: jobHolder(job), expiresAtMs: this.deps.clock.now() + this.leaseMs });
  }

  /**
   * After the job function returned: a job that is done frees its slot and promotes its organization's
   * next parked jobs; a job handed back keeps its slot while it waits in the queue again; a job another
   * worker runs (a second delivery) is that worker's to settle.
   */
  async settle(job: JobMessage, slot: number | null): Promise<void> {
    if (this.exempt(job)) return;
    const state = await this.deps.store.itemState(job);
    if (state === "running") return;
    if (state === "waiting") {
      if (slot !== null) await this.deps.store.renew(job.org_id, { slot, holder: jobHolder(job), expiresAtMs: this.deps.clock.now() + this.queuedHoldMs });
      return;
    }
    if (slot !== null) await this.deps.store.release(job.org_id, slot, jobHolder(job));
    await this.promote(job.org_id);
  }

  /** The sweeper ended a job's item: frees whatever slot the job held and promotes the organization's next. */
  async ended(job: JobMessage): Promise<void> {
    if (this.exempt(job)) return;
    const holder = jobHolder(job);
    for (const slot of await this.deps.store.slots(job.org_id)) {
      if (slot.job === holder) await this.deps.store.release(job.org_id, slot.slot, holder);
    }
    await this.promote(job.org_id);
  }

  /**
   * Sends the organization's parked jobs (high band first, then oldest) while it has free slots.
   * Returns how many were sent. With no cap (ORG_MAX_RUNNING_JOBS=0) every parked job is sent.
   */
  async promote(orgId: string): Promise<number> {
    let promoted = 0;
    // The listing is read from an index: an entry this call moved may be listed again for a moment.
    const handled = new Set<string>();
    for (let round = 0; round < PROMOTE_ROUNDS; round++) {
      const entries = (await this.deps.store.parked(orgId, PROMOTE_BATCH)).filter((e) => !handled.has(e.sk));
      if (entries.length === 0) return promoted;
      let moved = 0;
      for (const entry of entries) {
        handled.add(entry.sk);
        const outcome = await this.promoteEntry(entry);
        if (outcome === "org_full" || outcome === "broker_refused") return promoted;
        if (outcome === "promoted") promoted++;
        if (outcome !== "busy") moved++;
      }
      if (moved === 0) return promoted;
    }
    return promoted;
  }

  private async promoteEntry(entry: ParkedEntry): Promise<Promotion> {
    const { store, queues, clock, logger } = this.deps;
    const job = entry.job;
    const now = clock.now();
    if ((entry.claimed_until_ms ?? 0) >= now) return "busy";
    if ((await store.itemState(job)) !== "waiting") {
      // Cancelled, deleted or run meanwhile: nothing to send.
      await store.dropEntry(entry, now);
      return "dropped";
    }
    if (!(await store.claimEntry(entry, now, PROMOTE_CLAIM_MS))) return "busy";
    const slot = this.cap > 0 ? await this.take(job, now + this.queuedHoldMs, now) : null;
    if (this.cap > 0 && slot === null) {
      await store.unclaimEntry(entry);
      return "org_full";
    }
    try {
      await queues.sendJob(slot === null ? job : { ...job, slot });
    } catch (error) {
      if (slot !== null) await store.release(job.org_id, slot, jobHolder(job)).catch(() => undefined);
      await store.unclaimEntry(entry).catch(() => undefined);
      logger.warn("a parked job could not be sent; the sweeper tries again", { job_id: job.id, org_id: job.org_id, error });
      return "broker_refused";
    }
    await store.markQueued(job, now);
    await store.dropEntry(entry, now);
    return "promoted";
  }

  /**
   * The job's slot: the one it holds already (a second delivery, a job handed back), else the first
   * free one (absent or lapsed) of 0..cap-1, taken with a conditional put. Null when all are held.
   */
  private async take(job: JobMessage, expiresAtMs: number, nowMs: number): Promise<number | null> {
    const { store } = this.deps;
    const holder = jobHolder(job);
    const slots = await store.slots(job.org_id);
    const own = slots.find((s) => s.job === holder && s.expires_at_ms > nowMs);
    if (own && (await store.claim(job.org_id, { slot: own.slot, holder, expiresAtMs, nowMs }))) return own.slot;
    const held = new Set(slots.filter((s) => s.expires_at_ms > nowMs).map((s) => s.slot));
    for (let slot = 0; slot < this.cap; slot++) {
      if (!held.has(slot) && (await store.claim(job.org_id, { slot, holder, expiresAtMs, nowMs }))) return slot;
    }
    return null;
  }

  /**
   * Parks the job: the entry first (from then on nothing forgets the job), then the item's mark; an
   * item that no longer waits takes its entry back. False when there was nothing to park.
   */
  private async park(job: JobMessage, nowMs: number): Promise<boolean> {
    const entry = await this.deps.store.park(job, nowMs);
    if (await this.deps.store.markParked(job, nowMs)) {
      this.deps.logger.info("job parked: its organization is at its running-jobs cap", { job_id: job.id, org_id: job.org_id, cap: this.cap });
      return true;
    }
    await this.deps.store.dropEntry(entry, nowMs);
    return false;
  }
}
