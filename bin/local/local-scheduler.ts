import type { Logger } from "@aws-lambda-powertools/logger";
import type { Clock } from "../../functions/core/clock.js";
import type { TableSchedules } from "../../functions/core/triggers/schedules.js";

/**
 * EventBridge Scheduler's stand-in on the local stack: every `tickMs` it fires the triggers' schedules
 * that are due (functions/core/triggers/schedules.ts reads the same expressions AWS does). Each firing
 * is the schedule's message on the jobs queue, as EventBridge would send it. Tests pass a short tick,
 * or call `tick()` with a clock of their own.
 */
export class LocalScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly schedules: TableSchedules,
    private readonly options: { clock: Clock; tickMs: number; logger: Logger },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((error) => this.options.logger.warn("local scheduler tick failed", { error }))
        .finally(() => {
          this.running = null;
        });
    }, this.options.tickMs);
    this.timer.unref();
  }

  /** Fires what is due now; resolves to the triggers fired. */
  tick(nowMs = this.options.clock.now()): Promise<string[]> {
    return this.schedules.fireDue(nowMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
