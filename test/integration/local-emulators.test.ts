import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { buildApp } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, ensureQueueWithDlq, startEmulators } from "../../bin/local/emulators.js";

/**
 * The local stack's SQS emulator (fauxqs, through fastify and light-my-request) on the dependency set
 * package.json pins for Node 20: light-my-request's `cookie` is overridden to 1.x (2.x asks for
 * Node 22). A queue with its dead-letter queue, a message there and back, and an injected request with
 * cookies, the path of light-my-request that calls `cookie`.
 */
describe("local emulators on the pinned dependency set", () => {
  let emulators: Emulators;
  let sqs: SQSClient;

  beforeAll(async () => {
    emulators = await startEmulators();
    sqs = new SQSClient({ endpoint: emulators.sqsEndpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  });
  afterAll(async () => {
    sqs?.destroy();
    await emulators?.stop();
  });

  it("carries a message through fauxqs's queue and redrive pair", async () => {
    const queue = await ensureQueueWithDlq(sqs, "emulator-check", { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: '{"job":"exe_1"}' }));
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 5, MaxNumberOfMessages: 1 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(['{"job":"exe_1"}']);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: got.Messages![0]!.ReceiptHandle! }));
  });

  it("answers a request injected with cookies (light-my-request's cookie serialization)", async () => {
    const app = buildApp({ logger: false });
    try {
      await app.ready();
      const res = await app.inject({
        method: "POST",
        url: "/",
        headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.ListQueues" },
        cookies: { session: "a b;c" },
        payload: "{}",
      });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ QueueUrls: [] });
      expect(res.raw.req.headers.cookie).toBe("session=a%20b%3Bc");
    } finally {
      await app.close();
    }
  });
});
