/**
 * The solver container's program. Every solver worker runs it — a Fargate task of the fleet, the local
 * stack's workers (`npm start`), `npm run worker` against another environment:
 *
 *   node solver-container/dist/worker.js            long-lived: polls the jobs queue (JOBS_QUEUE_URL),
 *                                                   one job at a time, until SIGTERM/SIGINT
 *   node solver-container/dist/worker.js --job '{"type":"comparison","id":"cmp_…","org_id":"org_…"}'
 *                                                   runs exactly that job, then exits (also: JOB=…)
 *
 * The solvers stay warm between jobs: the Python host with SCIP and HiGHS imported, a jaos child
 * started ahead that serves solve after solve. Each solve runs under the kill switch; one it stops takes
 * its process group with it.
 * Settings come from the environment (functions/core/config.ts); see README "Running a worker".
 *
 * `--announce-ready` prints {"event":"ready","pid":…} on stdout once the worker polls, and again each
 * time it is idle with its solvers warm after a job ({"event":"busy"} when it takes one): the local
 * stack and the benchmarks wait for it. It prints {"event":"final","id":…,"outcome":…} right after each
 * execution's final write (the local stack answers the plain solve waiting for it). With SOLVE_TRACE=1 it also prints each job's timestamps
 * ({"event":"trace","id":…,"marks":{…}}, see functions/core/trace/solve-trace.ts).
 *
 * Exit code 0: stopped (long-lived), or the job ran or was already done or held elsewhere (--job);
 * 1: the job failed with an error (--job; the item is marked failed first); 2: bad invocation.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../../functions/core/config.js";
import { createLogger } from "../../functions/core/logger.js";
import { SERVICE_METRIC } from "../../functions/core/observability/metric-names.js";
import { createServiceMetrics, type ServiceMetrics } from "../../functions/core/observability/metrics.js";
import { JobMessageSchema } from "../../functions/core/queue/messages.js";
import { bandQueueUrls } from "../../functions/core/queue/sqs.js";
import { createServices } from "../../functions/core/services.js";
import { traceTake, tracing } from "../../functions/core/trace/solve-trace.js";
import { FleetHeartbeat } from "./fleet-heartbeat.js";
import { handBackJob } from "./hand-back.js";
import { JobTracing } from "./job-tracing.js";
import { Liveness } from "./liveness.js";
import { runJob } from "./jobs/run-job.js";
import { QueueWorker } from "./queue-worker.js";
import { describeMachine, workerIdentity, type WorkerRuntime } from "./runtime.js";
import { createSolverToolkit } from "./solver-toolkit.js";
import { TaskProtection } from "./task-protection.js";
import { keys } from "../../functions/core/store/keys.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** An outcome announced with its result inline up to this size; a larger one is only "read it now". */
const ANNOUNCED_OUTCOME_MAX_CHARS = 64 * 1024;
const small = <T>(value: T): T | undefined => (value && JSON.stringify(value).length <= ANNOUNCED_OUTCOME_MAX_CHARS ? value : undefined);

/** How often a worker's inventory report may be refreshed (the API reads the record). */
const INVENTORY_EVERY_MS = 10 * 60_000;

/** Records the fleet's solvers when no worker has done so recently. */
async function reportInventory(runtime: WorkerRuntime): Promise<void> {
  const { services } = runtime;
  const current = await services.inventory.read(services.clock.now());
  const stale = !current.reported_at || services.clock.now() - Date.parse(current.reported_at) > INVENTORY_EVERY_MS;
  if (stale) await services.inventory.report(await runtime.toolkit.inventory(), runtime.workerId, services.clock.now());
}

/**
 * Idle time before the first job: probing the solvers (each adapter keeps its version) and the SDK's
 * set-up of each command on its first use (the lease's UpdateItem, with a conditional write that matches
 * no item and so writes nothing) cost no job anything here.
 */
async function warmUp(runtime: WorkerRuntime): Promise<void> {
  await runtime.toolkit.inventory().catch(() => undefined);
  await reportInventory(runtime).catch((error) => runtime.services.logger.warn("inventory report failed", { error }));
  await runtime.services.table
    .update({
      Key: keys.warmUp,
      UpdateExpression: "SET warm = :t",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":t": true },
    })
    .catch(() => undefined);
  await runtime.services.table.get(keys.warmUp.pk, keys.warmUp.sk).catch(() => undefined);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { job: { type: "string" }, "announce-ready": { type: "boolean" } } });
  const logger = createLogger("incumbent-worker");
  const config = loadConfig(process.env);
  const jobTracing = new JobTracing(process.env.POWERTOOLS_SERVICE_NAME || "incumbent-worker");
  const services = createServices({ config, jwtSecret: "", logger, instrumentClient: (client) => jobTracing.instrument(client) });
  const rawJob = values.job ?? process.env.JOB;
  if (rawJob === undefined && !config.jobsQueueUrl) {
    logger.error("no job and no queue: set JOBS_QUEUE_URL (or pass --job)");
    return 2;
  }
  const toolkit = await createSolverToolkit(config, { warm: true });
  const runtime: WorkerRuntime = { services, toolkit, workerId: workerIdentity(), machineNote: describeMachine(config.machineNote) };
  logger.appendKeys({ worker_id: runtime.workerId });
  try {
    return rawJob === undefined ? await pollQueue(runtime, { announceReady: values["announce-ready"] === true, jobTracing }) : await runOneJob(runtime, rawJob);
  } finally {
    await toolkit.close().catch(() => undefined);
  }
}

/** The long-lived worker: polls until a stop signal, then finishes or hands back its job. */
async function pollQueue(runtime: WorkerRuntime, { announceReady, jobTracing }: { announceReady: boolean; jobTracing: JobTracing }): Promise<number> {
  const { config, logger } = runtime.services;
  const protection = new TaskProtection({
    agentUri: config.ecsAgentUri,
    expiresInMinutes: config.taskProtectionMinutes,
    onError: (error) => logger.warn("ECS task protection call failed", { error }),
  });
  const leaseMs = config.jobLeaseSeconds * 1000;
  // The first heartbeat before anything else (`starting`): a race launched while this worker warms up counts it.
  const heartbeat = new FleetHeartbeat(runtime);
  await heartbeat.announceStarting();
  let lastInventoryCheck = Date.now();
  let jobsTaken = 0;
  let stopping: Promise<void> | null = null;
  const announce = (event: "ready" | "busy") => {
    if (announceReady) process.stdout.write(`${JSON.stringify({ event, pid: process.pid })}\n`);
  };
  const metrics: ServiceMetrics = createServiceMetrics("incumbent-worker");
  // Each execution's final write: its outcome counted (SolveOutcomes by status), and announced to the
  // local stack when it listens.
  runtime.announceFinal = (id, outcome) => {
    if (outcome?.status) metrics.outcome(SERVICE_METRIC.solveOutcomes, outcome.status);
    if (announceReady) process.stdout.write(`${JSON.stringify({ event: "final", id, outcome: small(outcome) })}\n`);
  };
  const worker = new QueueWorker({
    sqs: runtime.services.sqs,
    queueUrls: bandQueueUrls(config),
    pollSeconds: config.workerPollSeconds,
    claimSeconds: 20,
    // A worker that dies leaves its message invisible past the lease and a sweep or two: by the time it
    // is seen again the sweeper has failed the job, and the redelivery finds it final.
    visibilitySeconds: Math.max(60, config.jobLeaseSeconds + 2 * config.sweepIntervalSeconds),
    heartbeatMs: Math.max(200, Math.floor(leaseMs / 3)),
    stopTimeoutMs: config.workerStopTimeoutSeconds * 1000,
    handBackReserveMs: Math.min(5000, (config.workerStopTimeoutSeconds * 1000) / 3),
    protection,
    logger,
    runJob: (job) => jobTracing.traceJob(job, () => runJob(runtime, job)),
    metrics,
    handBack: (job) => handBackJob(runtime, job),
    beforeJob: () => {
      jobsTaken++;
      announce("busy");
      // One beat per change of state: a race counts the workers without a job in hand.
      void heartbeat.enter("busy");
    },
    afterJob: (job) => {
      // The job's timestamps (SOLVE_TRACE=1), for the local stack's overhead benchmark.
      const marks = job && tracing() ? traceTake(job.id) : undefined;
      if (marks && announceReady) process.stdout.write(`${JSON.stringify({ event: "trace", id: job!.id, marks })}\n`);
      const taken = jobsTaken;
      void heartbeat.enter("idle");
      void runtime.toolkit.prepare().then(() => {
        if (taken === jobsTaken && !stopping) announce("ready");
      });
    },
    onIdle: async () => {
      if (Date.now() - lastInventoryCheck < INVENTORY_EVERY_MS) return;
      lastInventoryCheck = Date.now();
      await reportInventory(runtime);
    },
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      logger.info("stop signal: no new jobs; the job in hand finishes or is handed back", { signal });
      stopping = worker.stop();
    });
  }
  // The task's health check: the liveness file moves while the loop makes progress (a poll returns at
  // least every pollSeconds; a running job's heartbeat ticks every few seconds).
  const stallMs = (config.workerPollSeconds + 60) * 1000;
  const liveness = new Liveness({
    file: config.workerLivenessFile,
    everyMs: 10_000,
    alive: () => Date.now() - worker.lastProgressMs < stallMs,
    onError: (error) => logger.warn("writing the liveness file failed", { error }),
  });
  await liveness.start();
  await Promise.all([warmUp(runtime).then(() => heartbeat.start()), runtime.toolkit.prepare()]);
  logger.info("worker ready: polling the jobs queue", { queue: config.jobsQueueUrl, machine: runtime.machineNote });
  announce("ready");
  worker.lastProgressMs = Date.now(); // warmed up: the loop's progress counts from here
  await worker.run();
  await stopping;
  await heartbeat.stop();
  liveness.stop();
  logger.info("worker stopped", { jobs: worker.jobs });
  return 0;
}

/** One job given on the command line (or JOB): run it, report the inventory, exit. */
async function runOneJob(runtime: WorkerRuntime, raw: string): Promise<number> {
  const { logger } = runtime.services;
  let parsed: ReturnType<typeof JobMessageSchema.safeParse>;
  try {
    parsed = JobMessageSchema.safeParse(JSON.parse(raw));
  } catch {
    parsed = JobMessageSchema.safeParse(undefined);
  }
  if (!parsed.success) {
    logger.error("bad job", { raw });
    return 2;
  }
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.warn("stopped by signal mid-job; the sweeper will fail the job when its lease lapses", { signal });
      void runtime.toolkit.close().finally(() => process.exit(128 + (signal === "SIGTERM" ? 15 : 2)));
    });
  }
  logger.appendKeys({ job_id: parsed.data.id, job_type: parsed.data.type, org_id: parsed.data.org_id });
  const started = Date.now();
  try {
    await runJob(runtime, parsed.data);
  } catch (error) {
    logger.error("job failed", { error });
    return 1;
  }
  await reportInventory(runtime).catch((error) => logger.warn("inventory report failed", { error }));
  logger.info("job done", { ms: Date.now() - started });
  return 0;
}

process.exitCode = await main();
// Whatever the SDK's sockets or a solver's pipes still hold, the worker is done.
process.exit();
