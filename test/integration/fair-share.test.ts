import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureQueueWithDlq, type Emulators, startEmulators } from "../../bin/local/emulators.js";
import { isoTime, ManualClock } from "../../functions/core/clock.js";
import { loadConfig } from "../../functions/core/config.js";
import { newExecutionRecord } from "../../functions/core/executions/records.js";
import type { ExecutionRecord } from "../../functions/core/executions/store.js";
import { JobMessageSchema, type JobMessage } from "../../functions/core/queue/messages.js";
import { createServices, type Services } from "../../functions/core/services.js";
import { ensureTable } from "../../functions/core/store/dynamo.js";
import { sweep } from "../../functions/core/sweeper/sweep.js";

/**
 * The fair share's rules (functions/core/queue/fair-share.ts) against the local stack's emulators —
 * dynalite and fauxqs — with the clock in the test's hands. Workers are played by the test: a "take"
 * receives a message, holds its job and acquires its execution as a worker does; a "crash" abandons a
 * running job (its worker stops renewing), the clock passes its lease and the sweeper runs.
 *
 * Invariants, after every step of a generated sequence (fast-check shrinks a failing one):
 *   - no organization ever has more than its cap of jobs running on live workers;
 *   - no message is ever received twice (the fair share never hands a message back, so it never
 *     spends a receive towards the queue's DLQ threshold);
 * and once the queue is drained, every job submitted ran once to its end (or failed because its
 * worker crashed): nothing parked is lost.
 */
const CAP = 2;
const LEASE_SECONDS = 120;
const ORGS = ["a", "b", "c"] as const;

let emulators: Emulators;
const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 0, 0));

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID ??= "test";
  process.env.AWS_SECRET_ACCESS_KEY ??= "test";
  emulators = await startEmulators();
}, 30_000);
afterAll(() => emulators?.stop());

let runs = 0;

/** A stack of its own per generated run: a fresh table and queue, so a failing run leaves nothing to the next. */
async function freshServices(): Promise<Services> {
  runs++;
  const base = loadConfig({ AWS_ENDPOINT_URL: emulators.dynamoEndpoint, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint, TABLE_NAME: `fair-share-${runs}` });
  const bootstrap = createServices({ config: base, jwtSecret: "s".repeat(32), clock });
  const queue = await ensureQueueWithDlq(bootstrap.sqs, `fair-share-${runs}`, { visibilityTimeoutSeconds: 600, maxReceiveCount: 5 });
  const config = { ...base, jobsQueueUrl: queue.url, orgMaxRunningJobs: CAP, jobLeaseSeconds: LEASE_SECONDS };
  const services = createServices({ config, jwtSecret: "s".repeat(32), clock });
  await ensureTable(services.dynamo, config.tableName);
  return services;
}

function executionRecord(orgId: string, id: string, priority: number): ExecutionRecord {
  return newExecutionRecord({
    id,
    orgId,
    createdBy: "usr_test",
    origin: { kind: "solve_async", id: null },
    priority,
    notify: false,
    solverRequested: "highs",
    solverName: "highs",
    problem: { inline: "{}" },
    problemName: "p",
    stats: { problem_class: "LP", variable_count: 1, constraint_count: 0 },
    settings: { time_limit_seconds: 10, gap_tolerance: 1e-4, threads: 1 },
    creditsCharged: 1,
    nowMs: clock.now(),
  });
}

interface Running {
  job: JobMessage;
  slot: number | null;
  receipt: string;
  worker: string;
}

/** The test's workers and what they saw. */
class Fleet {
  readonly running: Running[] = [];
  readonly submitted = new Map<string, string>();
  readonly crashed = new Set<string>();
  readonly acquired = new Map<string, number>();
  readonly receiveCounts: number[] = [];
  /** The DynamoDB commands the workers' steps sent (a worker's role holds no DeleteItem or BatchWriteItem). */
  readonly workerCommands = new Set<string>();
  private inWorker = false;
  private next = 0;

  constructor(readonly services: Services) {
    const doc = services.table.doc as unknown as { send: (command: { constructor: { name: string } }) => Promise<unknown> };
    const send = doc.send.bind(doc);
    doc.send = (command) => {
      if (this.inWorker) this.workerCommands.add(command.constructor.name);
      return send(command);
    };
  }

  /** Runs `step` as a worker's: its DynamoDB commands are noted. */
  private async asWorker<T>(step: () => Promise<T>): Promise<T> {
    this.inWorker = true;
    try {
      return await step();
    } finally {
      this.inWorker = false;
    }
  }

  private get sqs(): SQSClient {
    return this.services.sqs;
  }

  async submit(org: string, priority: number): Promise<void> {
    const orgId = `org_${org}`;
    const id = `exe_${String(this.next++).padStart(4, "0")}`;
    await this.services.executionStore.create(executionRecord(orgId, id, priority));
    this.submitted.set(id, orgId);
    await this.services.fairShare.dispatch({ type: "execution", id, org_id: orgId, priority });
  }

  /** One worker's receive: the job held (or parked: its message done with), its execution acquired. */
  async take(): Promise<boolean> {
    const out = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.services.config.jobsQueueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
        MessageSystemAttributeNames: ["ApproximateReceiveCount"],
      }),
    );
    const message = out.Messages?.[0];
    if (!message) return false;
    this.receiveCounts.push(Number(message.Attributes?.ApproximateReceiveCount ?? "1"));
    const job = JobMessageSchema.parse(JSON.parse(message.Body!));
    const { fairShare, executionStore } = this.services;
    const hold = await this.asWorker(() => fairShare.hold(job));
    const done = () => this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.services.config.jobsQueueUrl, ReceiptHandle: message.ReceiptHandle }));
    if (hold.parked) {
      await done();
      return true;
    }
    const worker = `w${this.next++}`;
    const record = await executionStore.acquire(job.org_id, { id: job.id, worker, leaseMs: LEASE_SECONDS * 1000, nowMs: clock.now() });
    if (!record) {
      await this.asWorker(() => fairShare.settle(job, hold.slot));
      await done();
      return true;
    }
    this.acquired.set(job.id, (this.acquired.get(job.id) ?? 0) + 1);
    this.running.push({ job, slot: hold.slot, receipt: message.ReceiptHandle!, worker });
    return true;
  }

  /** The `k`-th running job ends: its final write, then the worker settles its share and deletes the message. */
  async finish(k: number): Promise<void> {
    const [r] = this.running.splice(k % this.running.length, 1);
    if (!r) return;
    await this.services.executionStore.finalizeHeld(r.job.org_id, {
      id: r.job.id,
      worker: r.worker,
      status: "completed",
      fields: { result: null, error_message: null, completed_at: isoTime(clock.now()) },
    });
    await this.asWorker(() => this.services.fairShare.settle(r.job, r.slot));
    await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.services.config.jobsQueueUrl, ReceiptHandle: r.receipt }));
  }

  /** The `k`-th running job's worker dies; its message goes the way of an abandoned one. */
  async crash(k: number): Promise<void> {
    const [r] = this.running.splice(k % this.running.length, 1);
    if (!r) return;
    this.crashed.add(r.job.id);
    await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.services.config.jobsQueueUrl, ReceiptHandle: r.receipt }));
    await this.passTime((LEASE_SECONDS + 1) * 1000);
  }

  /** Time passes: the live workers renew their leases and slots; the sweeper runs. */
  async passTime(ms: number): Promise<void> {
    clock.advance(ms);
    for (const r of this.running) {
      await this.services.executionStore.leases.renew(
        { pk: `ORG#${r.job.org_id}`, sk: `EXE#${r.job.id}` },
        { worker: r.worker, leaseMs: LEASE_SECONDS * 1000, nowMs: clock.now() },
      );
      await this.asWorker(() => this.services.fairShare.renew(r.job, r.slot));
    }
    await sweep(this.services);
  }

  assertInvariants(): void {
    for (const org of ORGS) expect(this.running.filter((r) => r.job.org_id === `org_${org}`).length, `org ${org} running`).toBeLessThanOrEqual(CAP);
    expect(
      this.receiveCounts.every((n) => n === 1),
      `receive counts ${this.receiveCounts}`,
    ).toBe(true);
    for (const forbidden of ["DeleteCommand", "BatchWriteCommand"])
      expect([...this.workerCommands], "a worker's step needs a right its role lacks").not.toContain(forbidden);
  }

  /** Runs everything left: take and finish until the queue, the workers and every parked list are empty. */
  async drain(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      let took = false;
      while (await this.take()) {
        took = true;
        this.assertInvariants();
      }
      while (this.running.length > 0) await this.finish(0);
      if (!took) await this.passTime(1000);
      const parked = await Promise.all(ORGS.map((o) => waiting(this.services, `org_${o}`)));
      if (!took && parked.every((p) => p.length === 0)) return;
    }
    throw new Error("the queue did not drain");
  }
}

/** An organization's parked jobs still waiting (listed in the index; a sent entry stays until the table's TTL). */
async function waiting(services: Services, orgId: string): Promise<{ job: JobMessage }[]> {
  return (await services.table.queryPrefix<{ job: JobMessage; gsi1pk?: string }>(`ORG#${orgId}`, "PARKED#")).filter((e) => e.gsi1pk);
}

type Step =
  | { kind: "submit"; org: (typeof ORGS)[number]; priority: number; copies: number }
  | { kind: "take" }
  | { kind: "finish"; k: number }
  | { kind: "crash"; k: number }
  | { kind: "tick" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("submit" as const),
    org: fc.constantFrom(...ORGS),
    priority: fc.constantFrom(-10, 0, 0, 50),
    copies: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant("take" as const) }),
  fc.record({ kind: fc.constant("take" as const) }),
  fc.record({ kind: fc.constant("finish" as const), k: fc.nat(5) }),
  fc.record({ kind: fc.constant("crash" as const), k: fc.nat(5) }),
  fc.record({ kind: fc.constant("tick" as const) }),
);

describe("fair share of the fleet (dynalite + fauxqs)", () => {
  it("keeps every organization within its cap, receives each message once, and loses no parked job (generated sequences)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), async (steps) => {
        const fleet = new Fleet(await freshServices());
        for (const s of steps) {
          if (s.kind === "submit") await Promise.all(Array.from({ length: s.copies }, () => fleet.submit(s.org, s.priority)));
          else if (s.kind === "take") await fleet.take();
          else if (s.kind === "finish") await fleet.finish(s.k);
          else if (s.kind === "crash") await fleet.crash(s.k);
          else await fleet.passTime(5_000);
          fleet.assertInvariants();
        }
        await fleet.drain();
        fleet.assertInvariants();
        for (const [id, orgId] of fleet.submitted) {
          const record = await fleet.services.executionStore.get(orgId, id);
          expect(record?.status, id).toBe(fleet.crashed.has(id) ? "failed" : "completed");
          if (!fleet.crashed.has(id)) expect(fleet.acquired.get(id), id).toBe(1);
        }
        // Every slot is free again: nothing runs, nothing waits.
        for (const o of ORGS) {
          const slots = await fleet.services.table.queryPrefix<{ expires_at_ms: number }>(`ORG#org_${o}`, "RUNSLOT#");
          expect(
            slots.filter((s) => s.expires_at_ms > clock.now()),
            `org ${o} slots`,
          ).toEqual([]);
        }
      }),
      { numRuns: Number(process.env.FAIR_SHARE_RUNS ?? 25), seed: Number(process.env.FAIR_SHARE_SEED ?? 2512) },
    );
  }, 600_000);

  it("parks an organization's jobs beyond its cap in the table, and sends the next when one ends", async () => {
    const fleet = new Fleet(await freshServices());
    for (let i = 0; i < 5; i++) await fleet.submit("a", 50);
    await fleet.submit("b", 0);

    expect(await waiting(fleet.services, "org_a")).toHaveLength(3);
    // The queue holds two of a's jobs and b's: b's job is the third message, not the sixth.
    const taken: string[] = [];
    for (let i = 0; i < 3; i++) {
      await fleet.take();
      taken.push(fleet.running.at(-1)!.job.org_id);
    }
    expect(taken.sort()).toEqual(["org_a", "org_a", "org_b"]);
    expect(await fleet.take()).toBe(false);
    // A parked job is not failed for its wait, however long.
    await fleet.passTime(5 * 3600 * 1000);
    expect(await waiting(fleet.services, "org_a")).toHaveLength(3);
    await fleet.finish(fleet.running.findIndex((r) => r.job.org_id === "org_a"));
    expect(await waiting(fleet.services, "org_a")).toHaveLength(2);
    expect(await fleet.take()).toBe(true);
    fleet.assertInvariants();
  });

  it("parks at the worker a message that holds no slot while its organization is at its cap (one sent before the cap existed), without receiving it again", async () => {
    const fleet = new Fleet(await freshServices());
    await fleet.submit("a", 0);
    await fleet.submit("a", 0);
    await fleet.take();
    await fleet.take();
    // A job of `a` queued the old way: straight to SQS, no slot.
    const { executionStore, queues } = fleet.services;
    await executionStore.create(executionRecord("org_a", "exe_old", 0));
    fleet.submitted.set("exe_old", "org_a");
    await queues.sendJob({ type: "execution", id: "exe_old", org_id: "org_a", priority: 0 });
    expect(await fleet.take()).toBe(true);
    expect(fleet.running.map((r) => r.job.id)).not.toContain("exe_old");
    expect((await waiting(fleet.services, "org_a")).map((p) => p.job.id)).toEqual(["exe_old"]);
    expect(await fleet.take()).toBe(false);
    await fleet.finish(0);
    await fleet.drain();
    expect((await executionStore.get("org_a", "exe_old"))?.status).toBe("completed");
    expect(fleet.acquired.get("exe_old")).toBe(1);
    fleet.assertInvariants();
  });
});
