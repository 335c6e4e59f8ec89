import { serve, type ServerType } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createApp } from "../../functions/api/app.js";
import type { ApiDeps } from "../../functions/api/http/context.js";
import type { Clock } from "../../functions/core/clock.js";
import { loadConfig, type Config } from "../../functions/core/config.js";
import { createSqsClient } from "../../functions/core/queue/sqs.js";
import { consoleMailbox } from "../../functions/core/auth/mailer.js";
import { createServices, type Mailbox, type Services } from "../../functions/core/services.js";
import { ensureTable } from "../../functions/core/store/dynamo.js";
import { createSweeper } from "../../functions/sweeper/handler.js";
import { FinalSignals } from "../../functions/core/executions/final-signals.js";
import { ThreadModelWork } from "../../functions/core/model-work/model-work.js";
import { traceMerge } from "../../functions/core/trace/solve-trace.js";
import { triggerSweepHooks } from "../../functions/core/triggers/sweep-hook.js";
import { createWebhookHandler } from "../../functions/webhook/handler.js";
import type { SweepReport } from "../../functions/core/sweeper/sweep.js";
import { TableSchedules } from "../../functions/core/triggers/schedules.js";
import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import { ensureWorkerBuild } from "../../solver-container/build.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { ensureQueueWithDlq, startEmulators, type Emulators } from "./emulators.js";
import { LocalScheduler } from "./local-scheduler.js";
import { SqsPoller } from "./sqs-poller.js";
import { LocalWorkerFleet } from "./worker-fleet.js";

/**
 * The whole service on one machine: embedded emulators, the Hono app on a port, the solver workers
 * (the same long-lived program a Fargate task runs, polling the local queue), the poller that plays the
 * webhook Lambda's event source, and the sweeper's schedule. `npm start` runs it; integration tests
 * start it in-process.
 */
export interface LocalStackOptions {
  port?: number;
  /** Keep DynamoDB data (and the JWT secret, and blobs) in this folder across restarts. */
  dataDir?: string;
  /** Extra environment on top of process.env (tests set limits, quotas, retry schedules here). */
  env?: Record<string, string>;
  clock?: Clock;
  /** Where user mail goes; default: printed to the console (the local stack has no mail server). */
  mailbox?: Mailbox;
  /** Seed credentials (BOOTSTRAP_EMAIL / BOOTSTRAP_PASSWORD / BOOTSTRAP_API_KEY). */
  bootstrap?: { email?: string; password?: string; apiKey?: string };
  /** Benchmarks only: the CPUs each local worker may run on (worker-fleet.ts `cpuAffinity`); absent: anywhere. */
  workerCpuAffinity?: (index: number) => string | null;
}

export interface Bootstrap {
  created: boolean;
  organizationId: string;
  email: string;
  password: string | null;
  apiKey: string | null;
}

export interface LocalStack {
  url: string;
  port: number;
  config: Config;
  services: Services;
  bootstrap: Bootstrap;
  solvers: InventoryEntry[];
  /** The solver workers (LOCAL_WORKERS processes); tests kill one mid-job through its pid. */
  workers: LocalWorkerFleet;
  /** The environment the workers run with (tests start more workers with it). */
  workerEnv: Record<string, string | undefined>;
  /**
   * Fires the triggers' schedules as EventBridge Scheduler would (every LOCAL_SCHEDULER_TICK_MS, default
   * 1000); null when the schedules live in EventBridge (SCHEDULER_ROLE_ARN set).
   */
  scheduler: LocalScheduler | null;
  /** Runs one sweep now (the schedule runs one every SWEEP_INTERVAL_SECONDS). */
  sweepNow(): Promise<SweepReport>;
  stop(): Promise<void>;
}

/**
 * The model thread's heap: a compile at the default caps holds ~400 MB while built, plus its JSON; past
 * this the task is refused (503) and the thread replaced, never the server.
 */
const MODEL_THREAD_HEAP_MB = 1536;
/** A backstop beside the caps' expansion-step bound: a task still running after this is stopped. */
const MODEL_THREAD_TIMEOUT_MS = 120_000;
/** Compiles waiting for the model thread, at most (each organization's execute is rate limited too). */
const MODEL_THREAD_MAX_WAITING = 16;

function jwtSecretFor(dataDir: string | undefined, env: Record<string, string | undefined>): string {
  if (env.JWT_SECRET) return env.JWT_SECRET;
  if (!dataDir) return randomBytes(32).toString("hex");
  const file = path.join(dataDir, "jwt-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const baseEnv: Record<string, string | undefined> = { ...process.env, ...options.env };
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });

  // Point every AWS client at the emulators unless the environment names real endpoints.
  let emulators: Emulators | null = null;
  // LOCAL_EMULATORS=false uses the AWS account the SDK's credentials name (table and queues from the
  // config, created when missing); AWS_ENDPOINT_URL points everything at LocalStack or moto instead.
  const useEmulators = !baseEnv.AWS_ENDPOINT_URL && baseEnv.LOCAL_EMULATORS !== "false";
  if (useEmulators) emulators = await startEmulators({ dataDir });
  const env: Record<string, string | undefined> = {
    // The emulators accept any credentials; a real account's come from the SDK's usual chain.
    ...(emulators ? { AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" } : {}),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    MACHINE_NOTE: `local stack on ${process.platform}/${process.arch}, Node ${process.version}`,
    BLOB_DIR: dataDir ? path.join(dataDir, "blobs") : path.join(process.cwd(), ".data", `blobs-${process.pid}-${Date.now()}`),
    // The key that seals webhook secrets: kept with the data it opens (functions/core/webhooks/secret-box.ts).
    ...(dataDir ? { WEBHOOK_KEY_FILE: path.join(dataDir, "webhook-key") } : {}),
    ...baseEnv,
    ...(emulators ? { AWS_ENDPOINT_URL: emulators.dynamoEndpoint, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint } : {}),
  };
  if (emulators) for (const key of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]) process.env[key] ??= env[key];
  let config = loadConfig(env);

  const services0 = createServices({ config, jwtSecret: "", clock: options.clock });
  await ensureTable(services0.dynamo, config.tableName);
  const sqs = createSqsClient(config);
  if (!config.jobsQueueUrl || !config.webhooksQueueUrl) {
    // A worker sets each job message's visibility itself when it receives it, and extends it while it runs.
    // One queue per priority band (functions/core/queue/priority.ts), each with its DLQ, as in AWS.
    const jobs = await ensureQueueWithDlq(sqs, `${config.tableName}-solve-jobs`, { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 });
    const high = await ensureQueueWithDlq(sqs, `${config.tableName}-solve-jobs-high`, { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 });
    const low = await ensureQueueWithDlq(sqs, `${config.tableName}-solve-jobs-low`, { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 });
    const hooks = await ensureQueueWithDlq(sqs, `${config.tableName}-webhooks`, {
      visibilityTimeoutSeconds: Math.max(60, config.webhookTimeoutSeconds * 2),
      maxReceiveCount: 5,
    });
    config = {
      ...config,
      jobsQueueUrl: jobs.url,
      jobsHighQueueUrl: high.url,
      jobsLowQueueUrl: low.url,
      webhooksQueueUrl: hooks.url,
      webhooksDlqUrl: config.webhooksDlqUrl || hooks.dlqUrl,
    };
  }

  // The solver fleet: LOCAL_WORKERS long-lived workers polling the jobs queue, as Fargate tasks poll SQS.
  // They start once the server listens, so their warm-up (Python host, jaos child) does not slow it.
  const workerEnv = {
    ...env,
    JOBS_QUEUE_URL: config.jobsQueueUrl,
    JOBS_HIGH_QUEUE_URL: config.jobsHighQueueUrl,
    JOBS_LOW_QUEUE_URL: config.jobsLowQueueUrl,
    WEBHOOKS_QUEUE_URL: config.webhooksQueueUrl,
    WEBHOOKS_DLQ_URL: config.webhooksDlqUrl,
    // Ctrl-C should not wait half a minute: a job in hand gets a few seconds, then is handed back, and
    // an idle worker's poll (never aborted) ends within a second. A message wakes a poll at once anyway.
    WORKER_STOP_TIMEOUT_SECONDS: env.WORKER_STOP_TIMEOUT_SECONDS ?? "5",
    WORKER_POLL_SECONDS: env.WORKER_POLL_SECONDS ?? "1",
    LOG_LEVEL: env.WORKER_LOG_LEVEL ?? "WARN",
  };
  // The workers say when an execution is final; a plain solve's wait hears it here instead of polling.
  const finalSignals = new FinalSignals({ heard: true });
  const build = await ensureWorkerBuild();
  // Compiles and file reads for requests run on a model thread, so this server's event loop (and the
  // emulators it hosts) keeps answering while they run (functions/core/model-work/model-work.ts).
  const modelWork = new ThreadModelWork({
    script: path.join(build, "model-thread.js"),
    heapMb: MODEL_THREAD_HEAP_MB,
    timeoutMs: MODEL_THREAD_TIMEOUT_MS,
    maxWaiting: MODEL_THREAD_MAX_WAITING,
  });
  const workers = new LocalWorkerFleet({
    build,
    count: Number(env.LOCAL_WORKERS ?? 2),
    env: workerEnv,
    stopTimeoutSeconds: Number(workerEnv.WORKER_STOP_TIMEOUT_SECONDS),
    onOutput: (line) => console.error(`[worker] ${line}`),
    onFinal: (id, outcome) => finalSignals.signal(id, outcome),
    onTrace: traceMerge,
    cpuAffinity: options.workerCpuAffinity,
  });

  const mailbox: Mailbox = options.mailbox ?? consoleMailbox();
  const services = createServices({
    config,
    jwtSecret: jwtSecretFor(dataDir, env),
    clock: options.clock,
    dynamo: services0.dynamo,
    mailbox,
    sqs,
    finalSignals,
    modelWork,
    // Small plain solves answered by the API itself when API_SOLVE_MAX_NONZEROS is set (off by default here).
    apiSolveEngine: () => import("../../functions/api/api-solver.mjs"),
  });

  // The solvers this machine has, as a worker would report them (printed by `npm start`). Probing
  // starts child processes; it runs while the identity is seeded and the server starts.
  const probing = (async () => {
    const probe = await createSolverToolkit(config, { warm: false });
    const found = await probe.inventory();
    await probe.close();
    await services.inventory.report(found, "local-stack", services.clock.now());
    return found;
  })();
  const bootstrap = await bootstrapIdentity(services, {
    email: options.bootstrap?.email ?? env.BOOTSTRAP_EMAIL,
    password: options.bootstrap?.password ?? env.BOOTSTRAP_PASSWORD,
    apiKey: options.bootstrap?.apiKey ?? env.BOOTSTRAP_API_KEY,
  });
  const deps: ApiDeps = {
    ...services,
    startedAtMs: services.clock.now(),
    clientIp: (c) => getConnInfo(c).remote.address ?? "unknown",
    // A server that outlives its responses: a metrics flush need not hold one up.
    inBackground: (work) => void work.catch((error) => services.logger.warn("background work failed", { error })),
  };
  const app = createApp(deps);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? Number(env.PORT ?? 8080), hostname: "127.0.0.1" }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const solvers = await probing;
  workers.start();

  // The webhook Lambda's stand-in: the same handler, fed by the webhooks queue.
  const webhooksPoller = new SqsPoller(sqs, {
    queueUrl: config.webhooksQueueUrl,
    handler: createWebhookHandler(services),
    batchSize: 10,
    waitTimeSeconds: 1,
    retryVisibilitySeconds: 5,
    onError: (error) => services.logger.warn("webhooks poller", { error }),
  });
  webhooksPoller.start();

  // The sweeper's schedule (EventBridge in AWS).
  const sweeper = createSweeper(services, triggerSweepHooks(services));
  const sweepTimer = setInterval(
    () => void sweeper().catch((error) => services.logger.warn("sweep failed", { error })),
    Math.max(1, config.sweepIntervalSeconds) * 1000,
  );
  sweepTimer.unref();

  const scheduler =
    services.schedules instanceof TableSchedules
      ? new LocalScheduler(services.schedules, { clock: services.clock, tickMs: Number(env.LOCAL_SCHEDULER_TICK_MS ?? 1000), logger: services.logger })
      : null;
  scheduler?.start();

  let stopped = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    config,
    services,
    bootstrap,
    solvers,
    workers,
    workerEnv,
    scheduler,
    sweepNow: sweeper,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(sweepTimer);
      await scheduler?.stop();
      await webhooksPoller.stop();
      await workers.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.metrics.flushNow().catch(() => undefined);
      await modelWork.close();
      await emulators?.stop();
    },
  };
}

/**
 * First start: an organization, an owner and an API key. The key is shown once (printed by
 * `npm start`); later starts on the same data find the organization and create nothing.
 */
async function bootstrapIdentity(services: Services, seed: { email?: string; password?: string; apiKey?: string }): Promise<Bootstrap> {
  const marker = await services.table.get<{ org_id: string; email: string }>("BOOTSTRAP", "BOOTSTRAP");
  if (marker) return { created: false, organizationId: marker.org_id, email: marker.email, password: null, apiKey: null };
  const email = seed.email ?? "owner@incumbent.local";
  const password = seed.password ?? randomBytes(12).toString("base64url");
  const { org, user } = await services.auth.createOrganizationWithOwner({ orgName: "Local organization", email, password, name: "Owner" });
  const key = await services.auth.createApiKey(
    { kind: "session", userId: user.id, orgId: org.id, role: "owner", keyId: null },
    { name: "bootstrap" },
    seed.apiKey,
  );
  await services.table.putNew({ pk: "BOOTSTRAP", sk: "BOOTSTRAP", org_id: org.id, email });
  return { created: true, organizationId: org.id, email, password, apiKey: key.key };
}
