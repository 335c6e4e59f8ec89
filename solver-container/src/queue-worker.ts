import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, type Message, type SQSClient } from "@aws-sdk/client-sqs";
import type { Logger } from "@aws-lambda-powertools/logger";
import { withLogContext } from "../../functions/core/observability/log-context.js";
import { SERVICE_METRIC } from "../../functions/core/observability/metric-names.js";
import { NO_METRICS, type ServiceMetrics } from "../../functions/core/observability/metrics.js";
import { JobMessageSchema, type JobMessage } from "../../functions/core/queue/messages.js";
import { bandPollOrder, type PriorityBand } from "../../functions/core/queue/priority.js";
import { traceMark } from "../../functions/core/trace/solve-trace.js";
import type { TaskProtection } from "./task-protection.js";

/**
 * The long-lived worker's loop: long-poll the jobs queue for one message, run its job, delete the
 * message, and poll again. While a job runs, its message stays invisible (extended on the lease's
 * schedule, so SQS never hands a running job to a second worker) and the task is protected from
 * scale-in. A stop (SIGTERM) takes no new job; the job in hand finishes if it can within the stop
 * timeout, else it is handed back: its item returns to waiting and its message becomes visible at once.
 *
 * A long poll is never aborted: SQS (and fauxqs) may hand a message to a request whose client has gone,
 * and that message would stay invisible for its whole visibility timeout. A stopping worker lets its
 * poll end (at most `pollSeconds`) and returns whatever it brought. For the same reason a message is
 * received with a short claim (`claimSeconds`), extended while its job runs: a worker killed in the
 * middle of a poll loses no message for long.
 *
 * Priority: each band is a queue (functions/core/queue/priority.ts). A receive short-polls the bands
 * in the order `bandPollOrder` gives (high first, but every few jobs a lower band first, so no band
 * starves); when all are empty it long-polls one queue, the normal band's (where plain solves wait),
 * for at most `pollSeconds`, then starts over. One request is in flight at a time, for one message:
 * a worker never holds a message it will not start (parallel long polls did — a message one of them
 * brought after another had delivered went back with one receive counted, and a few workers in a burst
 * could push a message to the DLQ without it ever running; docs/decisions.md, "No stray receives").
 */
export interface QueueWorkerOptions {
  sqs: SQSClient;
  /** Each band's queue; bands may share one (then there is no priority between them). */
  queueUrls: Record<PriorityBand, string>;
  /** ReceiveMessage's long-poll wait (SQS: at most 20 s). */
  pollSeconds: number;
  /** The visibility a message is received with, before its job starts. */
  claimSeconds: number;
  /** How long a received message stays invisible; extended every `heartbeatMs` while its job runs. */
  visibilitySeconds: number;
  heartbeatMs: number;
  /** From the stop signal to the kill: the job may use this, less `handBackReserveMs`. */
  stopTimeoutMs: number;
  handBackReserveMs: number;
  protection: TaskProtection;
  logger: Logger;
  runJob(job: JobMessage): Promise<void>;
  /** True when the job went back to waiting; false when this worker no longer held it. */
  handBack(job: JobMessage): Promise<boolean>;
  /** Called when a poll came back empty (idle housekeeping, e.g. the inventory report). */
  onIdle?(): Promise<void>;
  /** Called when a message is taken, before its job runs. */
  beforeJob?(): void;
  /** Called when a job has ended and its message is done with (e.g. start the solvers kept ahead again). */
  afterJob?(job: JobMessage | null): void;
  /**
   * Job latency from its message's send (queued) to its start and to its end, and hand-backs, flushed
   * after each job (functions/core/observability/metric-names.ts).
   */
  metrics?: ServiceMetrics;
}

/** A received message and the band's queue it came from (its receipt handle is that queue's). */
interface Taken {
  message: Message;
  queueUrl: string;
}

/** Between empty short polls. */
const SHORT_POLL_PAUSE_MS = 200;

/** A malformed message is left for the queue's redrive policy (DLQ after maxReceiveCount), seen again after this. */
const BAD_MESSAGE_RETRY_SECONDS = 30;

export class QueueWorker {
  private stopping = false;
  /** Resolves when a stop's budget for the job in hand is spent. */
  private readonly budgetSpent: Promise<"stop">;
  private spendBudget!: () => void;
  private current: Promise<void> | null = null;
  /** Jobs taken since start (tests and logs). */
  jobs = 0;
  /**
   * When the loop last showed it is alive: a receive came back (with a message or none), a running
   * job's heartbeat ticked, or a job ended. A worker whose loop hangs (a poll that never returns, a
   * blocked event loop) stops moving it; the task's health check reads it (liveness.ts).
   */
  lastProgressMs = Date.now();

  constructor(private readonly options: QueueWorkerOptions) {
    this.budgetSpent = new Promise((resolve) => {
      this.spendBudget = () => resolve("stop");
    });
  }

  /** Polls until `stop()`; resolves once the job in hand is done or handed back. */
  async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let message: Taken | undefined;
      try {
        message = await this.receive();
        this.lastProgressMs = Date.now();
        failures = 0;
      } catch (error) {
        if (this.stopping) break;
        failures++;
        this.options.logger.warn("receiving from the jobs queue failed", { error, failures });
        await sleep(Math.min(10_000, 500 * 2 ** Math.min(failures, 5)));
        continue;
      }
      if (message && this.stopping) {
        await this.setVisibility(message, 0); // brought by the last poll: the next worker's
        break;
      }
      if (!message) {
        await this.options.onIdle?.().catch((error) => this.options.logger.warn("idle housekeeping failed", { error }));
        // Short polling (pollSeconds 0, for an emulator that serves one request at a time): pace it.
        if (this.options.pollSeconds === 0) await sleep(SHORT_POLL_PAUSE_MS);
        continue;
      }
      this.options.beforeJob?.();
      const handling = this.handle(message);
      this.current = handling.then(() => undefined);
      const job = await handling;
      this.current = null;
      if (!this.stopping) this.options.afterJob?.(job);
    }
  }

  /**
   * Takes no new job; the job in hand gets the stop timeout (less the reserve) to end, then is handed
   * back. Resolves when the worker holds nothing any more (`run` ends after its poll in flight).
   */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      void sleep(Math.max(0, this.options.stopTimeoutMs - this.options.handBackReserveMs)).then(this.spendBudget);
    }
    await this.current;
  }

  /**
   * At most one message, from the first band in this receive's order that has one: a short poll of each
   * band in turn, then, when every band was empty, one long poll of the normal band's queue. A job of
   * the normal band wakes an idle worker at once; one of another band is found by the next round of
   * short polls, at most `pollSeconds` later.
   */
  private async receive(): Promise<Taken | undefined> {
    const urls = [...new Set(bandPollOrder(this.jobs + 1).map((band) => this.options.queueUrls[band]))];
    if (urls.length === 1) return this.receiveFrom(urls[0]!, this.options.pollSeconds);
    for (const url of urls) {
      const taken = await this.receiveFrom(url, 0);
      if (taken) return taken;
    }
    if (this.options.pollSeconds === 0 || this.stopping) return undefined;
    return this.receiveFrom(this.options.queueUrls.normal, this.options.pollSeconds);
  }

  private async receiveFrom(queueUrl: string, waitSeconds: number): Promise<Taken | undefined> {
    const out = await this.options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: waitSeconds,
        VisibilityTimeout: this.options.claimSeconds,
        MessageSystemAttributeNames: ["ApproximateReceiveCount", "SentTimestamp"],
      }),
    );
    const message = out.Messages?.[0];
    return message ? { message, queueUrl } : undefined;
  }

  /** Runs the message's job, every line it logs carrying the job's keys; resolves to the job (null for a malformed message). */
  private handle(taken: Taken): Promise<JobMessage | null> {
    const job = JobMessageSchema.safeParse(safeJson(taken.message.Body));
    const keys = job.success ? { job_id: job.data.id, job_type: job.data.type, org_id: job.data.org_id } : {};
    return withLogContext(keys, () => this.runTaken(taken));
  }

  private async runTaken(taken: Taken): Promise<JobMessage | null> {
    const { logger } = this.options;
    const { message } = taken;
    const parsed = JobMessageSchema.safeParse(safeJson(message.Body));
    if (!parsed.success) {
      logger.error("bad job message; the queue's redrive policy will move it to the DLQ", { body: message.Body?.slice(0, 500) });
      await this.setVisibility(taken, BAD_MESSAGE_RETRY_SECONDS);
      return null;
    }
    const job = parsed.data;
    traceMark("received", job.id);
    const jobKeys = { job_id: job.id, job_type: job.type, org_id: job.org_id, receive_count: message.Attributes?.ApproximateReceiveCount };
    this.jobs++;
    const started = Date.now();
    // Elapsed time on the monotonic clock: a wall-clock step between the two readings must not make the
    // job end before it started (queued-to-final is queued-to-started plus this).
    const startedMonotonicMs = performance.now();
    const protecting = this.options.protection.protect();
    const metrics = this.options.metrics ?? NO_METRICS;
    // The message was sent when the job was queued (a handed-back job's message is the same one).
    const queuedAtMs = Number(message.Attributes?.SentTimestamp ?? started);
    metrics.seconds(SERVICE_METRIC.jobQueuedToStarted, (started - queuedAtMs) / 1000);
    // A quick job ends within its claim and needs no extension (no extra call on its critical path);
    // a longer one extends its message well before the claim runs out, then on the lease's schedule.
    const heartbeat = setInterval(
      () => {
        this.lastProgressMs = Date.now();
        void this.setVisibility(taken, this.options.visibilitySeconds);
        void this.options.protection.protect();
      },
      Math.min(this.options.heartbeatMs, (this.options.claimSeconds * 1000) / 2),
    );
    const done = this.options.runJob(job).then(
      () => "done" as const,
      (error: unknown) => {
        // The job function has marked its item failed with the reason; the message is done with.
        logger.error("job failed", { ...jobKeys, error });
        return "done" as const;
      },
    );
    try {
      const outcome = await Promise.race([done, this.budgetSpent]);
      if (outcome === "done") {
        logger.info("job done", { ...jobKeys, ms: Date.now() - started });
        metrics.seconds(SERVICE_METRIC.jobQueuedToFinal, (started - queuedAtMs + performance.now() - startedMonotonicMs) / 1000);
        await this.deleteMessage(taken);
        traceMark("message_deleted", job.id);
        return job;
      }
      const handedBack = await this.options.handBack(job).catch((error: unknown) => {
        logger.error("handing the job back failed; the sweeper will fail it when its lease lapses", { ...jobKeys, error });
        return false;
      });
      if (handedBack) {
        logger.warn("stopping: job handed back to the queue", { ...jobKeys, ran_ms: Date.now() - started });
        metrics.count(SERVICE_METRIC.jobsHandedBack);
        await this.setVisibility(taken, 0);
      } else {
        await this.deleteMessage(taken);
      }
      return job;
    } finally {
      clearInterval(heartbeat);
      this.lastProgressMs = Date.now();
      metrics.flush();
      await protecting;
      await this.options.protection.release();
    }
  }

  private async deleteMessage({ message, queueUrl }: Taken): Promise<void> {
    await this.options.sqs
      .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }))
      .catch((error) => this.options.logger.warn("deleting a finished job's message failed; its redelivery will find the job done", { error }));
  }

  private async setVisibility({ message, queueUrl }: Taken, seconds: number): Promise<void> {
    await this.options.sqs
      .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: seconds }))
      .catch((error) => this.options.logger.warn("changing a job message's visibility failed", { error, seconds }));
  }
}

function safeJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
