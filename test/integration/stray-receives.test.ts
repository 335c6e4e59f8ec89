import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type ReceiveMessageCommandOutput,
} from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/core/logger.js";
import type { JobMessage } from "../../functions/core/queue/messages.js";
import { PRIORITY_BANDS, type PriorityBand } from "../../functions/core/queue/priority.js";
import { QueueWorker } from "../../solver-container/src/queue-worker.js";
import { TaskProtection } from "../../solver-container/src/task-protection.js";
import { type Backend, startMotoBackend } from "../support/backends.js";
import { machineHas } from "../support/machine.js";
import { eventually } from "../support/triggers.js";

/**
 * Several workers against moto's SQS with real long polls (moto serving one request at a time but
 * letting others run while a long poll waits, test/support/backends.ts), the three priority bands each
 * a queue with a DLQ after 5 receives, as deployed. Bursts of jobs of every band arrive while the workers sit in their long polls. Every ReceiveMessage answer is
 * recorded: a message received twice was brought back by a poll its worker did not want (a stray
 * receive, one step towards the DLQ) — none may be, since no worker here fails.
 */
const run = machineHas("moto_server");
const WORKERS = 4;
const BURSTS = 5;
const PER_BAND = 4;
const POLL_SECONDS = 5;
const REGION = "us-east-1";

let moto: Backend;
let sqs: SQSClient;
const urls = {} as Record<PriorityBand, string>;
const dlqUrls: string[] = [];
const workers: QueueWorker[] = [];
const loops: Promise<void>[] = [];
/** Every message a receive brought: which worker, its ReceiveCount then. */
const received: { worker: number; messageId: string; jobId: string; count: number }[] = [];
const ran: { worker: number; jobId: string }[] = [];

beforeAll(async () => {
  if (!run) return;
  moto = await startMotoBackend({ longPolls: true });
  sqs = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: "load", secretAccessKey: "load" } });
  for (const band of PRIORITY_BANDS) {
    const dlq = (await sqs.send(new CreateQueueCommand({ QueueName: `stray-${band}-dlq` }))).QueueUrl!;
    dlqUrls.push(dlq);
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }))).Attributes!.QueueArn!;
    urls[band] = (
      await sqs.send(
        new CreateQueueCommand({ QueueName: `stray-${band}`, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 5 }) } }),
      )
    ).QueueUrl!;
  }
  for (let w = 0; w < WORKERS; w++) {
    // The worker's own client, recording what each of its receives brought.
    const client = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: "load", secretAccessKey: "load" } });
    const recording = {
      send: async (command: Parameters<SQSClient["send"]>[0]) => {
        const out = await client.send(command as never);
        if (command instanceof ReceiveMessageCommand) {
          for (const m of (out as ReceiveMessageCommandOutput).Messages ?? []) {
            received.push({ worker: w, messageId: m.MessageId!, jobId: JSON.parse(m.Body!).id, count: Number(m.Attributes?.ApproximateReceiveCount) });
          }
        }
        return out;
      },
    } as unknown as SQSClient;
    const worker = new QueueWorker({
      sqs: recording,
      queueUrls: urls,
      pollSeconds: POLL_SECONDS,
      claimSeconds: 20,
      visibilitySeconds: 60,
      heartbeatMs: 10_000,
      stopTimeoutMs: 10_000,
      handBackReserveMs: 2000,
      protection: new TaskProtection({ agentUri: "", expiresInMinutes: 30 }),
      logger: createLogger(`stray-receives-${w}`),
      runJob: async (job) => {
        ran.push({ worker: w, jobId: job.id });
        await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 120)));
      },
      handBack: async () => true,
    });
    workers.push(worker);
    loops.push(worker.run());
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(loops);
  await moto?.stop();
});

const depth = async (url: string) => {
  const a = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }))
  ).Attributes!;
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
};

describe.runIf(run)("no stray receives: several workers long-polling three band queues", () => {
  it("receives every job of every burst exactly once, by the worker that runs it; nothing reaches a DLQ", async () => {
    let sent = 0;
    for (let burst = 0; burst < BURSTS; burst++) {
      // Every worker idle in its long poll (the last burst's jobs done and their polls restarted).
      await new Promise((r) => setTimeout(r, 1500));
      await Promise.all(
        PRIORITY_BANDS.map((band) =>
          sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: urls[band],
              Entries: Array.from({ length: PER_BAND }, (_, i) => {
                const job: JobMessage = { type: "execution", id: `exe_${burst}_${band}_${i}`, org_id: "org_load" };
                return { Id: String(i), MessageBody: JSON.stringify(job) };
              }),
            }),
          ),
        ),
      );
      sent += PRIORITY_BANDS.length * PER_BAND;
      await eventually(
        async () => ran.length,
        (n) => n >= sent,
        { timeoutMs: 60_000, everyMs: 50 },
      );
    }
    // Let every poll in flight come back, so a late stray would be seen.
    await new Promise((r) => setTimeout(r, (POLL_SECONDS + 1) * 1000));

    expect(ran).toHaveLength(sent);
    expect(new Set(ran.map((r) => r.jobId)).size).toBe(sent);
    const strays = received.filter((r) => r.count > 1);
    expect(strays, JSON.stringify(strays.slice(0, 5))).toEqual([]);
    expect(received).toHaveLength(sent);
    for (const r of ran) expect(received.find((x) => x.jobId === r.jobId)?.worker).toBe(r.worker);
    // Several workers shared the load (not one worker doing everything while the others idled).
    expect(new Set(ran.map((r) => r.worker)).size).toBeGreaterThan(1);
    for (const url of [...Object.values(urls), ...dlqUrls]) expect(await depth(url), url).toBe(0);
  });
});
