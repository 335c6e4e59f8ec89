import type { Logger } from "@aws-lambda-powertools/logger";
import { JobMessageSchema } from "../core/queue/messages.js";
import type { TaskLauncher } from "./task-launcher.js";

/** The slice of Lambda's SQS event the dispatcher reads. */
export interface SqsEventLike {
  Records: { messageId: string; body: string; attributes?: { ApproximateReceiveCount?: string } }[];
}
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/**
 * The solve-jobs queue's consumer: one task per job. A message whose launch fails (no capacity, an ECS
 * error) is reported in `batchItemFailures`, so SQS returns it after the visibility timeout and moves
 * it to the DLQ after maxReceiveCount; a malformed message goes straight to the failures too, never
 * silently dropped.
 */
export function createDispatcher(launcher: TaskLauncher, logger: Logger) {
  return async (event: SqsEventLike): Promise<SqsBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      try {
        const job = JobMessageSchema.parse(JSON.parse(record.body));
        await launcher.launch(job);
        logger.info("task launched", { job_id: job.id, job_type: job.type, org_id: job.org_id });
      } catch (error) {
        logger.warn("launch failed; message returns to the queue", { message_id: record.messageId, error, receive_count: record.attributes?.ApproximateReceiveCount });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
