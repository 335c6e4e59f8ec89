import type { HeldLease, Renew } from "../../functions/core/jobs/ports.js";

/**
 * Keeps the leases of the work a worker holds alive while it runs: the job's own lease, and the lease of
 * the execution it is solving for it (a comparison row's, a trigger run's), renewed together every third
 * of the lease. A renewal that finds the job's lease gone (the sweeper failed it because this worker
 * looked dead, or it was handed back) aborts the work.
 */
export class LeaseKeeper implements HeldLease {
  private timer: NodeJS.Timeout | null = null;
  private companion: Renew | null = null;
  readonly controller = new AbortController();

  constructor(
    private readonly renew: Renew,
    private readonly leaseMs: number,
  ) {}

  start(): this {
    const every = Math.max(200, Math.floor(this.leaseMs / 3));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
    return this;
  }

  /** Renews `renew` (an execution started for the job) with the job's lease from now on; null stops it. */
  holdAlso(renew: Renew | null): void {
    this.companion = renew;
  }

  private async tick(): Promise<void> {
    try {
      const held = await this.renew();
      if (!held) return void this.controller.abort(new Error("lease lost"));
      await this.companion?.();
    } catch {
      // a failed renewal is retried on the next tick
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }
}
