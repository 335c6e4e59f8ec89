import { sweep, type SweepHook, type SweepReport } from "../core/sweeper/sweep.js";
import type { Services } from "../core/services.js";

/**
 * The scheduled reconcile: EventBridge in AWS, a timer in the local stack. Abandoned work first, then
 * the webhooks a crash left in the outbox (including those of runs just failed here).
 */
export function createSweeper(services: Services, hooks: Record<string, SweepHook> = {}) {
  return async (): Promise<SweepReport> => {
    const report = await sweep(services, hooks);
    if (report.failed.length > 0) services.logger.warn("swept abandoned work", { failed: report.failed });
    const resent = await services.webhooks.sweepOutbox(services.config.webhookOutboxGraceSeconds * 1000);
    if (resent > 0) services.logger.warn("sent webhooks a crash had left unqueued", { count: resent });
    return report;
  };
}
