import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { createTracer, observedHandler } from "../core/observability/lambda.js";
import { createServiceMetrics } from "../core/observability/metrics.js";
import { createServices } from "../core/services.js";
import { triggerSweepHooks } from "../core/triggers/sweep-hook.js";
import { createSweeper } from "./handler.js";

/**
 * Lambda entry of the sweeper (EventBridge schedule). Workers are long-lived and protect their own
 * tasks, so there are no per-job tasks left to reap: a worker that dies loses its lease, and this fails
 * its job.
 */
const config = loadConfig(process.env);
const tracer = createTracer("incumbent-sweeper");
const metrics = createServiceMetrics("incumbent-sweeper");
const services = createServices({
  config,
  jwtSecret: "",
  logger: createLogger("incumbent-sweeper"),
  instrumentClient: (client) => tracer.captureAWSv3Client(client),
});
const sweep = createSweeper(services, triggerSweepHooks(services), metrics);

export const handler = observedHandler("sweep", { tracer, metrics }, (_event: unknown, _context: { awsRequestId?: string } | undefined) => sweep());
