import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../../functions/core/logger.js";
import { createServiceMetrics } from "../../../../functions/core/observability/metrics.js";
import type { JobMessage } from "../../../../functions/core/queue/messages.js";
import { QueueWorker } from "../../../../solver-container/src/queue-worker.js";
import { TaskProtection } from "../../../../solver-container/src/task-protection.js";

/**
 * Three in-memory band queues behind the SQS client's `send`: a receive takes the oldest visible message
 * (a long poll waits for one, up to its wait), a visibility change to 0 returns it, a delete removes it.
 * Records every receive with its wait and the number in flight at its start.
 */
function bandQueues() {
  const queues: Record<string, { id: string; body: string; receives: number; visible: boolean; sentAt: number }[]> = { high: [], normal: [], low: [] };
  const receives: { queue: string; wait: number; inFlight: number; got: string | null }[] = [];
  const waiting = new Set<() => void>();
  let inFlight = 0;
  const take = (queue: string) => {
    const m = queues[queue]!.find((x) => x.visible);
    if (!m) return null;
    m.visible = false;
    m.receives++;
    return m;
  };
  const sqs = {
    send: async (command: unknown) => {
      if (command instanceof ReceiveMessageCommand) {
        const { QueueUrl, WaitTimeSeconds } = command.input;
        const record = { queue: QueueUrl!, wait: WaitTimeSeconds ?? 0, inFlight: ++inFlight, got: null as string | null };
        receives.push(record);
        try {
          let m = take(QueueUrl!);
          const deadline = Date.now() + (WaitTimeSeconds ?? 0) * 1000;
          while (!m && Date.now() < deadline) {
            await new Promise<void>((resolve) => {
              const wake = () => {
                waiting.delete(wake);
                resolve();
              };
              waiting.add(wake);
              setTimeout(wake, Math.max(0, deadline - Date.now()));
            });
            m = take(QueueUrl!);
          }
          record.got = m?.id ?? null;
          return m
            ? {
                Messages: [
                  {
                    MessageId: m.id,
                    ReceiptHandle: `${QueueUrl}|${m.id}`,
                    Body: m.body,
                    Attributes: { ApproximateReceiveCount: String(m.receives), SentTimestamp: String(m.sentAt) },
                  },
                ],
              }
            : {};
        } finally {
          inFlight--;
        }
      }
      if (command instanceof DeleteMessageCommand || command instanceof ChangeMessageVisibilityCommand) {
        const [queue, id] = command.input.ReceiptHandle!.split("|");
        const list = queues[queue!]!;
        const i = list.findIndex((x) => x.id === id);
        if (command instanceof DeleteMessageCommand) list.splice(i, 1);
        else if (command.input.VisibilityTimeout === 0) list[i]!.visible = true;
        for (const wake of [...waiting]) wake();
      }
      return {};
    },
  } as unknown as SQSClient;
  const send = (queue: string, id: string, sentAt = Date.now()) => {
    queues[queue]!.push({ id, body: JSON.stringify({ type: "execution", id, org_id: "org_1" } satisfies JobMessage), receives: 0, visible: true, sentAt });
    for (const wake of [...waiting]) wake();
  };
  return { sqs, send, receives, queues };
}

const workers: QueueWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
});

function worker(sqs: SQSClient, ran: string[], pollSeconds = 1) {
  const logger = createLogger("queue-worker-test");
  const w = new QueueWorker({
    sqs,
    queueUrls: { high: "high", normal: "normal", low: "low" },
    pollSeconds,
    claimSeconds: 20,
    visibilitySeconds: 60,
    heartbeatMs: 60_000,
    stopTimeoutMs: 5000,
    handBackReserveMs: 1000,
    protection: new TaskProtection({ agentUri: "", expiresInMinutes: 30 }),
    logger,
    runJob: async (job) => {
      ran.push(job.id);
    },
    handBack: async () => true,
  });
  workers.push(w);
  void w.run();
  return w;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the worker's receive: one message at a time, bands in priority order", () => {
  it("takes waiting jobs high before normal before low, one receive in flight at any time", async () => {
    const q = bandQueues();
    for (const band of ["low", "normal", "high"]) for (let i = 1; i <= 2; i++) q.send(band, `${band}-${i}`);
    const ran: string[] = [];
    worker(q.sqs, ran);
    while (ran.length < 6) await settle(10);
    // The 4th receive starts with a lower band (anti-starvation, functions/core/queue/priority.ts).
    expect(ran).toEqual(["high-1", "high-2", "normal-1", "low-1", "normal-2", "low-2"]);
    expect(Math.max(...q.receives.map((r) => r.inFlight))).toBe(1);
  });

  it("idle, it long-polls the normal band only; a job of any band arriving then is received once and run", async () => {
    const q = bandQueues();
    const ran: string[] = [];
    worker(q.sqs, ran, 1);
    await settle(300);
    const longPolls = q.receives.filter((r) => r.wait > 0);
    expect(longPolls.length).toBeGreaterThan(0);
    expect(new Set(longPolls.map((r) => r.queue))).toEqual(new Set(["normal"]));
    q.send("high", "h");
    q.send("low", "l");
    q.send("normal", "n");
    while (ran.length < 3) await settle(10);
    expect(ran.sort()).toEqual(["h", "l", "n"]);
    // Every message received exactly once: nothing brought back by a poll that was not wanted.
    const gotten = q.receives.map((r) => r.got).filter((x): x is string => x !== null);
    expect(gotten.sort()).toEqual(["h", "l", "n"]);
    expect(Math.max(...q.receives.map((r) => r.inFlight))).toBe(1);
  });

  it("every line a job logs, through any logger, carries its job id, type and organization", async () => {
    const q = bandQueues();
    q.send("normal", "exe_logged");
    const lines: Record<string, unknown>[] = [];
    const jobLogger = createLogger("some-store");
    (jobLogger as unknown as { console: { info(l: string): void } }).console = { info: (l: string) => lines.push(JSON.parse(l)) };
    jobLogger.setLogLevel("INFO");
    const w = new QueueWorker({
      sqs: q.sqs,
      queueUrls: { high: "high", normal: "normal", low: "low" },
      pollSeconds: 1,
      claimSeconds: 20,
      visibilitySeconds: 60,
      heartbeatMs: 60_000,
      stopTimeoutMs: 5000,
      handBackReserveMs: 1000,
      protection: new TaskProtection({ agentUri: "", expiresInMinutes: 30 }),
      logger: createLogger("queue-worker-test"),
      runJob: async () => {
        await settle(5);
        jobLogger.info("solving");
      },
      handBack: async () => true,
    });
    workers.push(w);
    void w.run();
    while (lines.length === 0) await settle(10);
    expect(lines[0]).toMatchObject({ message: "solving", job_id: "exe_logged", job_type: "execution", org_id: "org_1" });
  });

  it("reports each job's wait from queued to started and to final, flushed when the job ends; its loop's progress moves", async () => {
    const q = bandQueues();
    q.send("normal", "exe_waited", Date.now() - 4000); // queued 4 s ago
    const lines: Record<string, number>[] = [];
    const metrics = createServiceMetrics("incumbent-test-worker", { POWERTOOLS_METRICS_DISABLED: "false" }, (l) => lines.push(JSON.parse(l)));
    const ran: string[] = [];
    const w = new QueueWorker({
      sqs: q.sqs,
      queueUrls: { high: "high", normal: "normal", low: "low" },
      pollSeconds: 1,
      claimSeconds: 20,
      visibilitySeconds: 60,
      heartbeatMs: 60_000,
      stopTimeoutMs: 5000,
      handBackReserveMs: 1000,
      protection: new TaskProtection({ agentUri: "", expiresInMinutes: 30 }),
      logger: createLogger("queue-worker-test"),
      runJob: async (job) => {
        // Longer than the 0.05 s asserted below: a timer may fire a millisecond before Date.now() says it is due.
        await settle(60);
        ran.push(job.id);
      },
      handBack: async () => true,
      metrics,
    });
    workers.push(w);
    const before = w.lastProgressMs;
    void w.run();
    while (lines.length === 0) await settle(10);
    expect(ran).toEqual(["exe_waited"]);
    expect(lines[0]!.JobQueuedToStartedSeconds).toBeGreaterThanOrEqual(4);
    expect(lines[0]!.JobQueuedToFinalSeconds).toBeGreaterThanOrEqual(lines[0]!.JobQueuedToStartedSeconds! + 0.05);
    expect(w.lastProgressMs).toBeGreaterThan(before);
  });
});
