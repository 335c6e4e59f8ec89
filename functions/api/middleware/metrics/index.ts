import type { MiddlewareHandler } from "hono";
import type { Clock } from "../../../core/clock.js";
import type { MetricsRecorder } from "../../../core/observability/metrics-store.js";
import type { ApiEnv } from "../../http/context.js";

export interface MetricsOptions {
  recorder: Pick<MetricsRecorder, "recordRequest" | "flushIfDue">;
  clock: Clock;
  /** Milliseconds from a monotonic source, for the duration. */
  now?: () => number;
  /** Takes a flush off the response's path (a long-lived server); absent, the request awaits it. */
  inBackground?: (work: Promise<unknown>) => void;
}

/** What the recent list shows for a request no route matched (an unknown path, a method a path lacks). */
export const UNMATCHED_PATH = "(no route)";

/**
 * Counts every request (method, route, final status, duration) for /health/metrics. The path recorded
 * is the matched route's template (`/api/v2/executions/:execution_id`), never the request's own path:
 * the recent list is public, and a path names other tenants' resource ids. The recorder keeps
 * them in memory and flushes at most every METRICS_FLUSH_SECONDS, so a request pays no DynamoDB call
 * unless it happens to flush — and on a long-lived server (`inBackground`) not even then. A Lambda
 * awaits the flush: a process frozen after its response would not finish it.
 */
export function metrics(options: MetricsOptions): MiddlewareHandler<ApiEnv> {
  const now = options.now ?? (() => performance.now());
  return async function metrics(c, next) {
    const started = now();
    await next();
    options.recorder.recordRequest({
      method: c.req.method,
      path: c.get("routeTemplate") ?? UNMATCHED_PATH,
      status: c.res.status,
      duration_ms: Math.round((now() - started) * 100) / 100,
      timestamp: new Date(options.clock.now()).toISOString(),
    });
    const flushing = options.recorder.flushIfDue();
    if (options.inBackground) options.inBackground(flushing);
    else await flushing;
  };
}
