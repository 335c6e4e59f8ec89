/**
 * Keeps a lease alive while work runs: renews every third of the lease, and aborts the work when a
 * renewal finds the lease gone (the sweeper failed the item because this worker looked dead).
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  readonly controller = new AbortController();

  constructor(
    private readonly renew: () => Promise<boolean>,
    private readonly leaseMs: number,
  ) {}

  start(): this {
    const every = Math.max(200, Math.floor(this.leaseMs / 3));
    this.timer = setInterval(() => {
      this.renew()
        .then((held) => {
          if (!held) this.controller.abort(new Error("lease lost"));
        })
        .catch(() => undefined); // a failed renewal is retried on the next tick
    }, every);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }
}
