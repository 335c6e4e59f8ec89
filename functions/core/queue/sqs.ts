import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { withoutRequestLogging } from "../aws/quiet-client.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { JobMessage, WebhookMessage } from "./messages.js";
import { type PriorityBand, priorityBand } from "./priority.js";

export function createSqsClient(config: Pick<Config, "region" | "sqsEndpointUrl">): SQSClient {
  return withoutRequestLogging(new SQSClient({ region: config.region, ...(config.sqsEndpointUrl ? { endpoint: config.sqsEndpointUrl } : {}), maxAttempts: 3 }));
}

/** Each band's queue; a band without its own queue shares the normal one (one queue: no priority). */
export function bandQueueUrls(config: Pick<Config, "jobsQueueUrl" | "jobsHighQueueUrl" | "jobsLowQueueUrl">): Record<PriorityBand, string> {
  return { high: config.jobsHighQueueUrl || config.jobsQueueUrl, normal: config.jobsQueueUrl, low: config.jobsLowQueueUrl || config.jobsQueueUrl };
}

/** SQS allows at most 15 minutes of delay per message; longer waits are re-sent in steps. */
export const MAX_SQS_DELAY_SECONDS = 900;

export class Queues {
  constructor(
    private readonly sqs: SQSClient,
    private readonly config: Pick<Config, "jobsQueueUrl" | "jobsHighQueueUrl" | "jobsLowQueueUrl" | "webhooksQueueUrl">,
  ) {}

  /** Enqueues a solve job on its priority's band; a broker refusal becomes 503 `enqueue_failed` for the caller to record. */
  async sendJob(job: JobMessage, delaySeconds = 0): Promise<string> {
    try {
      const out = await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: bandQueueUrls(this.config)[priorityBand(job.priority)],
          MessageBody: JSON.stringify(job),
          DelaySeconds: Math.min(MAX_SQS_DELAY_SECONDS, delaySeconds),
        }),
      );
      return out.MessageId ?? "";
    } catch (error) {
      throw new AppError("enqueue_failed", `The job broker refused the job (${(error as Error).name}); retry shortly.`);
    }
  }

  async sendWebhook(message: WebhookMessage, nowMs: number): Promise<void> {
    const delay = Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil((message.due_at_ms - nowMs) / 1000)));
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.config.webhooksQueueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delay }));
  }
}
