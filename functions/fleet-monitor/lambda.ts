import { CloudWatchClient } from "@aws-sdk/client-cloudwatch";
import { ECSClient } from "@aws-sdk/client-ecs";
import { SQSClient } from "@aws-sdk/client-sqs";
import { createLogger } from "../core/logger.js";
import { createTracer, observedHandler } from "../core/observability/lambda.js";
import { createServiceMetrics } from "../core/observability/metrics.js";
import { createFleetMonitor } from "./handler.js";

/**
 * Lambda entry of the fleet monitor (EventBridge, every minute). Needs SOLVER_CLUSTER_ARN,
 * SOLVER_SERVICE_NAME and JOBS_QUEUE_URL (and the bands' JOBS_HIGH_QUEUE_URL, JOBS_LOW_QUEUE_URL); AWS_ENDPOINT_URL points every client elsewhere (LocalStack).
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const endpoint = process.env.AWS_ENDPOINT_URL ? { endpoint: process.env.AWS_ENDPOINT_URL } : {};
const logger = createLogger("incumbent-fleet-monitor");
const tracer = createTracer("incumbent-fleet-monitor");
const monitor = createFleetMonitor(
  {
    ecs: tracer.captureAWSv3Client(new ECSClient(endpoint)),
    sqs: tracer.captureAWSv3Client(new SQSClient(endpoint)),
    cloudwatch: tracer.captureAWSv3Client(new CloudWatchClient(endpoint)),
  },
  {
    cluster: process.env.SOLVER_CLUSTER_ARN ?? "",
    service: process.env.SOLVER_SERVICE_NAME ?? "",
    queueUrls: [process.env.JOBS_QUEUE_URL, process.env.JOBS_HIGH_QUEUE_URL, process.env.JOBS_LOW_QUEUE_URL].filter((url): url is string => Boolean(url)),
  },
);

export const handler = observedHandler(
  "fleet-reading",
  { tracer, metrics: createServiceMetrics("incumbent-fleet-monitor") },
  async (_event: unknown, _context: { awsRequestId?: string } | undefined): Promise<void> => {
    const reading = await monitor();
    logger.info("fleet reading", { ...reading });
  },
);
