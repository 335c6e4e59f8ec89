import { withLogContext } from "../core/observability/log-context.js";
import { WebhookMessageSchema } from "../core/queue/messages.js";
import type { Services } from "../core/services.js";

/** The slice of Lambda's SQS event the webhook consumer reads. */
export interface SqsEventLike {
  Records: { messageId: string; body: string; attributes?: { ApproximateReceiveCount?: string } }[];
}
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/**
 * The webhooks queue's consumer: each message is one delivery attempt (see core/webhooks/delivery.ts),
 * handled concurrently within a batch. A receiver's refusal is not a failure here — it is recorded and
 * retried by a new, delayed message. Only an infrastructure error (DynamoDB, SQS) or a malformed
 * message is reported in `batchItemFailures`: SQS hands it back after the visibility timeout and, after
 * maxReceiveCount, moves it to the DLQ.
 */
export function createWebhookHandler(services: Pick<Services, "webhooks" | "logger">) {
  return async (event: SqsEventLike): Promise<SqsBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const message = WebhookMessageSchema.parse(JSON.parse(record.body));
          const keys = {
            org_id: message.org_id,
            trigger_id: message.trigger_id,
            run_id: message.run_id,
            delivery_id: message.delivery_id,
            attempt: message.attempt,
          };
          await withLogContext(keys, () => services.webhooks.handle(message));
        } catch (error) {
          services.logger.warn("webhook message failed; SQS returns it", {
            message_id: record.messageId,
            error,
            receive_count: record.attributes?.ApproximateReceiveCount,
          });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}
