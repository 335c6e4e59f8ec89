import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { createTracer, observedHandler } from "../core/observability/lambda.js";
import { createServiceMetrics } from "../core/observability/metrics.js";
import { createServices } from "../core/services.js";
import { secretsManagerWebhookKey } from "../core/webhooks/secret-key-aws.js";
import { createWebhookHandler, type SqsEventLike } from "./handler.js";

/**
 * Lambda entry of the webhook consumer (SQS event source on the webhooks queue, with
 * ReportBatchItemFailures). Needs TABLE_NAME, WEBHOOKS_QUEUE_URL (to chain retries), WEBHOOKS_DLQ_URL
 * (exhausted deliveries), and a timeout above WEBHOOK_TIMEOUT_SECONDS.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const config = loadConfig(process.env);
const tracer = createTracer("incumbent-webhook");
const services = createServices({
  config,
  jwtSecret: "",
  logger: createLogger("incumbent-webhook"),
  instrumentClient: (client) => tracer.captureAWSv3Client(client),
  webhookKeyFromSecretsManager: secretsManagerWebhookKey(config),
});
const deliver = createWebhookHandler(services);

export const handler = observedHandler(
  "deliveries",
  { tracer, metrics: createServiceMetrics("incumbent-webhook") },
  (event: SqsEventLike, _context: { awsRequestId?: string } | undefined) => deliver(event),
);
