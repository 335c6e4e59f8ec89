import type { Logger } from "@aws-lambda-powertools/logger";
import { JobMessageSchema, type JobMessage } from "../core/queue/messages.js";
import { CapacityReached, type TaskLauncher } from "./task-launcher.js";

/** The slice of Lambda's SQS event the dispatcher reads. */
export interface SqsEventLike {
  Records: { messageId: string; body: string; attributes?: { ApproximateReceiveCount?: string } }[];
}
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

export interface DispatcherOptions {
  /**
   * A job that finds the fleet full is sent again with this delay and its message deleted, so waiting
   * for capacity never counts towards the DLQ's maxReceiveCount and never waits a whole visibility
   * timeout. Without it, the message is returned as a failure like any other.
   */
  requeue?: (job: JobMessage) => Promise<void>;
}

/**
 * The solve-jobs queue's consumer: one task per job. A message whose launch fails (an ECS error) is
 * reported in `batchItemFailures`, so SQS returns it after the visibility timeout and moves it to the
 * DLQ after maxReceiveCount; a malformed message goes straight to the failures too, never silently
 * dropped. A full fleet is not a failure: the job waits (see `requeue`).
 */
export function createDispatcher(launcher: TaskLauncher, logger: Logger, options: DispatcherOptions = {}) {
  return async (event: SqsEventLike): Promise<SqsBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      let job: JobMessage | null = null;
      try {
        job = JobMessageSchema.parse(JSON.parse(record.body));
        await launcher.launch(job);
        logger.info("task launched", { job_id: job.id, job_type: job.type, org_id: job.org_id });
      } catch (error) {
        if (error instanceof CapacityReached && job && options.requeue) {
          try {
            await options.requeue(job);
            logger.info("fleet full; job waits in the queue", { job_id: job.id, detail: error.message });
            continue;
          } catch (requeueError) {
            logger.warn("requeue failed; message returns to the queue", { job_id: job.id, error: requeueError });
          }
        }
        logger.warn("launch failed; message returns to the queue", {
          message_id: record.messageId,
          error,
          receive_count: record.attributes?.ApproximateReceiveCount,
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
