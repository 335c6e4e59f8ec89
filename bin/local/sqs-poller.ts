import { ChangeMessageVisibilityCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";

/**
 * Plays Lambda's SQS event source locally: receive a batch, invoke the same handler the Lambda uses
 * with an SQS event, delete the messages it did not report in `batchItemFailures`. Failed messages
 * are left alone: they come back after the visibility timeout, and the queue's redrive policy moves
 * them to the DLQ after maxReceiveCount receives — exactly as in AWS.
 */
export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { ApproximateReceiveCount: string; SentTimestamp?: string };
  messageAttributes: Record<string, unknown>;
  eventSource: "aws:sqs";
  eventSourceARN: string;
}

export interface SqsEvent {
  Records: SqsRecord[];
}

export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

export type SqsHandler = (event: SqsEvent) => Promise<SqsBatchResponse | undefined>;

export interface PollerOptions {
  batchSize: number;
  waitTimeSeconds: number;
  /** How many messages may be taken now (e.g. free worker slots); undefined = batchSize. */
  capacity?: () => number;
  /** Seconds before a failed message may be received again; undefined = the queue's visibility timeout. */
  retryVisibilitySeconds?: number;
  onError?: (error: unknown) => void;
}

export class SqsPoller {
  private running = false;
  private loop: Promise<void> | null = null;
  private abort = new AbortController();

  private readonly queueUrl: string;
  private readonly handler: SqsHandler;
  private readonly options: PollerOptions;

  constructor(
    private readonly sqs: SQSClient,
    { queueUrl, handler, ...options }: PollerOptions & { queueUrl: string; handler: SqsHandler },
  ) {
    this.queueUrl = queueUrl;
    this.handler = handler;
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = Math.min(this.options.batchSize, this.options.capacity?.() ?? this.options.batchSize);
      if (free <= 0) {
        await sleep(25);
        continue;
      }
      try {
        await this.pollOnce(free);
      } catch (error) {
        if (!this.running) return;
        this.options.onError?.(error);
        await sleep(500);
      }
    }
  }

  private async pollOnce(max: number): Promise<void> {
    const out = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: this.options.waitTimeSeconds,
        MessageSystemAttributeNames: ["ApproximateReceiveCount", "SentTimestamp"],
      }),
      { abortSignal: this.abort.signal },
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) return;
    const records: SqsRecord[] = messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? "",
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? "1",
        SentTimestamp: m.Attributes?.SentTimestamp,
      },
      messageAttributes: {},
      eventSource: "aws:sqs",
      eventSourceARN: this.queueUrl,
    }));
    let failed = new Set<string>();
    try {
      const response = await this.handler({ Records: records });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A thrown handler fails the whole batch, as Lambda does.
      failed = new Set(records.map((r) => r.messageId));
      this.options.onError?.(error);
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
    if (this.options.retryVisibilitySeconds !== undefined) {
      for (const r of records.filter((x) => failed.has(x.messageId))) {
        await this.sqs
          .send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: this.queueUrl,
              ReceiptHandle: r.receiptHandle,
              VisibilityTimeout: this.options.retryVisibilitySeconds,
            }),
          )
          .catch(() => undefined);
      }
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
