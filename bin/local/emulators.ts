import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * The embedded AWS emulators of the local stack: dynalite (DynamoDB API; in memory, or on disk with
 * `--data DIR`) and fauxqs 1.x (SQS). Both run inside this process on free ports.
 */
export interface Emulators {
  dynamoEndpoint: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}

export async function startEmulators(options: { dataDir?: string } = {}): Promise<Emulators> {
  const { default: dynalite } = await import("dynalite");
  const dynaliteOptions: Record<string, unknown> = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
  if (options.dataDir) {
    const dir = path.resolve(options.dataDir, "dynamodb");
    mkdirSync(dir, { recursive: true });
    dynaliteOptions.path = dir;
  }
  const dynamo = dynalite(dynaliteOptions);
  await new Promise<void>((resolve, reject) => {
    dynamo.once("error", reject);
    dynamo.listen(0, "127.0.0.1", () => resolve());
  });
  const dynamoPort = (dynamo.address() as AddressInfo).port;

  const { startFauxqs } = await import("fauxqs");
  const sqs = await startFauxqs({ port: 0, host: "localhost", logger: false });

  return {
    dynamoEndpoint: `http://127.0.0.1:${dynamoPort}`,
    sqsEndpoint: sqs.address,
    async stop() {
      await sqs.stop();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}

export interface QueuePair {
  url: string;
  dlqUrl: string;
}

/**
 * Creates a queue and its dead-letter queue with a redrive policy, as the CDK stack does in AWS.
 * Idempotent: CreateQueue returns the existing queue when the attributes match.
 */
export async function ensureQueueWithDlq(
  sqs: SQSClient,
  name: string,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount: number },
): Promise<QueuePair> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq`, Attributes: { MessageRetentionPeriod: "1209600" } }));
  const dlqArn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ["QueueArn"] }));
  const main = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn.Attributes!.QueueArn, maxReceiveCount: options.maxReceiveCount }),
      },
    }),
  );
  return { url: main.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}
