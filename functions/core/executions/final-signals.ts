import type { ExecutionOutcome } from "./store.js";

/**
 * Wakes a plain solve's wait when its execution has become final, where this process hears of it:
 * the local stack hears its workers announce each final write on their output. A signal says "read
 * again now", or carries the outcome the worker's own conditional write made final (a final item never
 * changes again, so it is what a read would return). A signal that never comes (a worker outside the
 * fleet, a crash, the sweeper's verdict) costs latency, never correctness: the wait still reads the item.
 *
 * In AWS nothing carries a worker's signal to the API Lambda, and `heard` is false: the wait polls.
 */
export interface FinalSubscription {
  /**
   * Resolves at the next signal for the execution since the last call (with the outcome it carried), or
   * with null after `timeoutMs`.
   */
  next(timeoutMs: number): Promise<{ outcome: ExecutionOutcome | null } | null>;
  close(): void;
}

type Listener = (outcome: ExecutionOutcome | null) => void;

export class FinalSignals {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** `heard`: something in this process calls `signal` for executions that become final. */
  readonly heard: boolean;

  constructor({ heard = false }: { heard?: boolean } = {}) {
    this.heard = heard;
  }

  /** Listens for execution `id`: subscribe before reading the item, so no signal falls between. */
  subscribe(id: string): FinalSubscription {
    let pending: { outcome: ExecutionOutcome | null } | null = null;
    let wake: (() => void) | null = null;
    const listener: Listener = (outcome) => {
      pending = { outcome: outcome ?? pending?.outcome ?? null };
      wake?.();
    };
    const set = this.listeners.get(id) ?? new Set();
    set.add(listener);
    this.listeners.set(id, set);
    return {
      next: (timeoutMs) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => done(), timeoutMs);
          const done = () => {
            clearTimeout(timer);
            const signal = pending;
            pending = null;
            wake = null;
            resolve(signal);
          };
          if (pending) done();
          else wake = done;
        }),
      close: () => {
        set.delete(listener);
        if (set.size === 0 && this.listeners.get(id) === set) this.listeners.delete(id);
      },
    };
  }

  /** Execution `id` has been written final: `outcome` is what that write made final, when known. */
  signal(id: string, outcome?: ExecutionOutcome): void {
    for (const listener of this.listeners.get(id) ?? []) listener(outcome ?? null);
  }
}
