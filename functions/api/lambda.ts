import { handle } from "hono/aws-lambda";
import { deployedMailbox } from "../core/auth/mailer.js";
import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { createTracer, observedHandler } from "../core/observability/lambda.js";
import { createServiceMetrics } from "../core/observability/metrics.js";
import { resolveJwtSecret } from "../core/secrets.js";
import { createServices } from "../core/services.js";
import { secretsManagerWebhookKey } from "../core/webhooks/secret-key-aws.js";
import { createApp } from "./app.js";

/**
 * Lambda entry of the API (API Gateway HTTP API → Hono). Services are built once per cold start; the
 * caller's IP is API Gateway's sourceIp, never a client-supplied header.
 */
const config = loadConfig(process.env);
const logger = createLogger("incumbent-api");
const tracer = createTracer("incumbent-api");
const metrics = createServiceMetrics("incumbent-api");
const services = createServices({
  config,
  jwtSecret: await resolveJwtSecret(config),
  logger,
  mailbox: deployedMailbox(config, logger),
  instrumentClient: (client) => tracer.captureAWSv3Client(client),
  webhookKeyFromSecretsManager: secretsManagerWebhookKey(config),
  // A file of its own beside index.mjs (lib/api.ts), loaded on the first small solve answered here.
  apiSolveEngine: () => import("./api-solver.mjs"),
  metrics,
});
const app = createApp({
  ...services,
  startedAtMs: Date.now(),
  clientIp: (c) => (c.env as { event?: { requestContext?: { http?: { sourceIp?: string } } } })?.event?.requestContext?.http?.sourceIp ?? "unknown",
});

export const handler = observedHandler("api", { tracer, metrics }, handle(app) as (event: unknown, context: { awsRequestId?: string }) => Promise<unknown>);
