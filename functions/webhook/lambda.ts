import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { createServices } from "../core/services.js";
import { createWebhookHandler } from "./handler.js";

/**
 * Lambda entry of the webhook consumer (SQS event source on the webhooks queue, with
 * ReportBatchItemFailures). Needs TABLE_NAME, WEBHOOKS_QUEUE_URL (to chain retries), WEBHOOKS_DLQ_URL
 * (exhausted deliveries), and a timeout above WEBHOOK_TIMEOUT_SECONDS.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const config = loadConfig(process.env);
const services = createServices({ config, jwtSecret: "", logger: createLogger("incumbent-webhook") });

export const handler = createWebhookHandler(services);
