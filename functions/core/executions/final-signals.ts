/**
 * Wakes a plain solve's wait when its execution has become final, where this process hears of it:
 * the local stack hears its workers announce each final write on their output. A signal only says
 * "read again now"; the execution item stays the one truth, so a signal that never comes (a worker
 * outside the fleet, a crash, the sweeper's verdict) costs latency, never correctness.
 *
 * In AWS nothing carries a worker's signal to the API Lambda, and `heard` is false: the wait polls.
 */
export interface FinalSubscription {
  /** Resolves at the next signal for the execution since the last call, or after `timeoutMs`. */
  next(timeoutMs: number): Promise<void>;
  close(): void;
}

export class FinalSignals {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** `heard`: something in this process calls `signal` for executions that become final. */
  constructor(readonly heard = false) {}

  /** Listens for execution `id`: subscribe before reading the item, so no signal falls between. */
  subscribe(id: string): FinalSubscription {
    let signalled = false;
    let wake: (() => void) | null = null;
    const listener = () => {
      signalled = true;
      wake?.();
    };
    const set = this.listeners.get(id) ?? new Set();
    set.add(listener);
    this.listeners.set(id, set);
    return {
      next: (timeoutMs) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => done(), timeoutMs);
          const done = () => {
            clearTimeout(timer);
            signalled = false;
            wake = null;
            resolve();
          };
          if (signalled) done();
          else wake = done;
        }),
      close: () => {
        set.delete(listener);
        if (set.size === 0 && this.listeners.get(id) === set) this.listeners.delete(id);
      },
    };
  }

  /** Execution `id` has been written final (or may have been: waiters read it again). */
  signal(id: string): void {
    for (const listener of this.listeners.get(id) ?? []) listener();
  }
}
