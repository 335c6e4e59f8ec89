import { utimes, writeFile } from "node:fs/promises";

/**
 * The worker's liveness as the task's health check reads it: a file whose modification time is moved
 * every `everyMs` while `alive()` holds (the poll loop made progress recently, see
 * QueueWorker.lastProgressMs). A hung worker — a poll that never returns, a blocked event loop — stops
 * moving it, the check (lib/solver-fleet.ts SOLVER_HEALTHCHECK) fails on its age, and ECS replaces the
 * task. Off when no file is configured (locally).
 */
export class Liveness {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: { file: string; everyMs: number; alive: () => boolean; onError?: (error: unknown) => void }) {}

  async start(): Promise<void> {
    if (!this.options.file) return;
    await this.touch();
    this.timer = setInterval(() => void this.touch(), this.options.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async touch(): Promise<void> {
    if (!this.options.alive()) return;
    const now = new Date();
    try {
      await utimes(this.options.file, now, now);
    } catch {
      await writeFile(this.options.file, "").catch((error) => this.options.onError?.(error));
    }
  }
}
