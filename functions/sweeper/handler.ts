import { SERVICE_METRIC } from "../core/observability/metric-names.js";
import { NO_METRICS, type ServiceMetrics } from "../core/observability/metrics.js";
import { sweep, type SweepHook, type SweepReport } from "../core/sweeper/sweep.js";
import type { Services } from "../core/services.js";

/**
 * The scheduled reconcile: EventBridge in AWS, a timer in the local stack. Abandoned work first, then
 * the webhooks a crash left in the outbox (including those of runs just failed here). Each sweep counts
 * the jobs it failed (`SweptJobs`, which the stack alarms on: each is a worker that died or a job no
 * worker took).
 */
export function createSweeper(services: Services, hooks: Record<string, SweepHook> = {}, metrics: ServiceMetrics = NO_METRICS) {
  return async (): Promise<SweepReport> => {
    try {
      const report = await sweep(services, hooks);
      metrics.count(SERVICE_METRIC.sweptJobs, report.failed.length);
      if (report.failed.length > 0) services.logger.warn("swept abandoned work", { failed: report.failed });
      const resent = await services.webhooks.sweepOutbox(services.config.webhookOutboxGraceSeconds * 1000);
      if (resent > 0) services.logger.warn("sent webhooks a crash had left unqueued", { count: resent });
      return report;
    } finally {
      metrics.flush();
    }
  };
}
