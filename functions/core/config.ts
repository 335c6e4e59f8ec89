import { SOLVER_NAMES } from "./solvers/types.js";

/**
 * Every setting the service reads, with its default. One place: handlers, workers and the local stack
 * all call `loadConfig(process.env)`; tests build a config from a plain object.
 *
 * Limits follow the spec's convention: 0 means "no ceiling".
 */

export interface RateWindow {
  perMinute: number;
  perDay: number;
}

export interface Config {
  stage: string;
  region: string;
  /** Endpoint override for every AWS client (LocalStack, moto, the local stack's emulators). */
  awsEndpointUrl: string | undefined;
  /** Separate endpoint for SQS when it is not the same emulator as DynamoDB (local stack). */
  sqsEndpointUrl: string | undefined;
  tableName: string;
  /** The normal band's queue (priority 0); see queue/priority.ts. */
  jobsQueueUrl: string;
  /** The high (priority > 0) and low (< 0) bands' queues; empty: that band shares the normal queue. */
  jobsHighQueueUrl: string;
  jobsLowQueueUrl: string;
  /** Set (AWS): triggers' schedules are EventBridge Scheduler schedules that assume this role; empty: the local scheduler's registry. */
  schedulerRoleArn: string;
  schedulerGroupName: string;
  webhooksQueueUrl: string;
  /** Where an exhausted webhook delivery's last message is put (the webhooks queue's DLQ). */
  webhooksDlqUrl: string;
  /** S3 bucket for large payloads; when empty the blob store is the folder `blobDir`. */
  blobBucket: string;
  blobDir: string;
  /** Problems (as JSON) over this many bytes are kept in the blob store, not in the item. */
  inlinePayloadMaxBytes: number;

  apiVersion: string;
  machineNote: string;

  // Instance caps (spec: Limits). 0 = no ceiling.
  instanceMaxDailySolves: number;
  instanceMaxSolveTimeSeconds: number;
  instanceMaxVariables: number;
  /** Ours, beside the spec's variable cap: rows and nonzero coefficients (constraints' and quadratic terms) of one problem. */
  instanceMaxConstraints: number;
  instanceMaxNonzeros: number;
  instanceMaxCronSchedules: number;
  maxRequestBodyMb: number;

  // Fair share of the fleet between organizations (docs/decisions.md, "Fair share"). 0 = no ceiling.
  /** Jobs of one organization queued for a worker or running at once; the rest wait parked in the table. */
  orgMaxRunningJobs: number;
  /** Solves one organization may queue above priority 0 per UTC day (past it: 403, or a trigger run queued at 0). */
  orgPrioritySolvesPerDay: number;
  /** Triggers one organization may have. */
  orgMaxTriggers: number;

  // Rate limits, statement A (per client IP / per e-mail) and B (per endpoint, per organization).
  instanceRateLimit: RateWindow;
  solveRateLimit: RateWindow;
  modelsExecuteRateLimit: RateWindow;
  modelsReadRateLimit: RateWindow;
  creditsCalculatorRateLimit: RateWindow;
  authLoginRateLimit: RateWindow;
  authLoginPerEmailRateLimit: RateWindow;
  authSignupRateLimit: RateWindow;
  authPasswordResetPerHour: number;
  triggerFireRateLimitPerMinute: number;

  // Identity.
  jwtSecret: string;
  jwtSecretArn: string;
  jwtTtlSeconds: number;
  passwordResetTtlSeconds: number;
  /** How long a sign-up's confirmation token and an invitation's token can be used. */
  enrolmentTtlSeconds: number;
  /** Sender of password-reset mail through SES; empty: no mail transport (tokens are not delivered). */
  mailFromAddress: string;
  authMaxActiveApiKeysPerUser: number;
  /**
   * SHA-256 (hex) of the instance operator's token (`inc_op_…`), the one credential that grants credits;
   * empty: no operator, grants are refused. The hash, not the token: the setting reveals nothing usable.
   */
  operatorTokenSha256: string;
  apiKeyCacheSeconds: number;

  // Solving.
  defaultTimeLimitSeconds: number;
  defaultGapTolerance: number;
  solverThreads: number;
  killGraceSeconds: number;
  /**
   * Memory ceiling of each solving process, in MB (0 = none): the data segment of a CLI solver or a
   * Python solve, the V8 heap of a Node child. Past it the solve answers `error`, naming memory.
   */
  solverMemoryMb: number;
  solveWaitSeconds: number;
  /**
   * Plain solves with at most this many constraint nonzeros (no quadratic terms, solver jaos or auto)
   * are answered by the API itself with jaos when no worker is live, or none took them within
   * `apiSolveTakeoverSeconds` (functions/core/executions/api-solve.ts). 0: never (the default; the AWS
   * stack sets the stage's value).
   */
  apiSolveMaxNonzeros: number;
  apiSolveTakeoverSeconds: number;
  jobLeaseSeconds: number;
  pythonPath: string;
  /** Names of the solvers the fleet is built with, used until a worker has reported its inventory. */
  fleetSolvers: string[];

  // Solver workers (the long-lived programs that poll the jobs queue).
  /**
   * Seconds an idle worker's ReceiveMessage long-polls the normal band's queue after short polls of
   * every band found nothing (SQS allows 0–20): a job of the normal band wakes it at once, one of
   * another band waits at most this long. 0 polls briefly every 200 ms instead, for an emulator that
   * serves one request at a time (single-threaded moto).
   */
  workerPollSeconds: number;
  /**
   * Seconds between the stop signal and the kill (ECS's stopTimeout): a worker finishes its job within
   * this, less a margin to hand it back, or hands it back to the queue.
   */
  workerStopTimeoutSeconds: number;
  /** Seconds between a worker's heartbeats (its inventory and a time, read by the API's health check). */
  workerHeartbeatSeconds: number;
  /**
   * A file whose age is the worker's liveness (the task's health check reads it); empty: none. Moved
   * every few seconds while the worker's loop makes progress (solver-container/src/liveness.ts).
   */
  workerLivenessFile: string;
  /**
   * Workers the stage keeps running at least. 0 (a stage that idles) lets the health check call a fleet
   * with no live worker `healthy` (idle) on its last inventory; otherwise no live worker is `down`.
   */
  fleetMinWorkers: number;
  /** The ECS agent's endpoint (set by ECS in every task); empty outside ECS: no scale-in protection. */
  ecsAgentUri: string;
  /** How long one call of the agent protects the task from scale-in; renewed while a job runs. */
  taskProtectionMinutes: number;

  // Credits.
  creditPriceEur: number;
  creditsInitialGrant: number;
  creditsLowThreshold: number;
  maxCreditsPerSolve: number;

  // Webhooks.
  webhookTimeoutSeconds: number;
  webhookRetryDelaysSeconds: number[];
  webhookAllowPrivateNetworks: boolean;
  /** Secrets Manager secret holding the webhook key that seals webhook secrets at rest (AWS); empty: the key file. */
  webhookKeySecretArn: string;
  /** The local webhook key (made on first use, mode 0600) when no secret ARN is set. */
  webhookKeyFile: string;
  /** A finished run whose first webhook attempt is not queued this long after it ended is sent by the sweeper. */
  webhookOutboxGraceSeconds: number;

  // Sweeper.
  sweepIntervalSeconds: number;
  /**
   * A queued job no worker took within this long of being queued (created, or handed back by a stopping
   * worker) is failed by the sweeper (its message reached the DLQ).
   */
  staleQueuedSeconds: number;

  // Live progress.
  /** Days an execution's progress and log items are kept after they are written (then the table's TTL deletes them). */
  progressRetentionDays: number;

  // Documents.
  documentUnnamedVersionsKept: number;

  // Metrics.
  metricsFlushSeconds: number;
  metricsRecentKept: number;

  /** Monthly budget of the AI assistant on the instance's own key (spec); no assistant ships yet. */
  llmMonthlyBudgetEur: number;
}

type Env = Record<string, string | undefined>;

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`config: ${name} must be a non-negative number, got "${raw}"`);
  }
  return value;
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === "" ? fallback : raw;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`config: ${name} must be true or false, got "${raw}"`);
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A rate window read from `<prefix>_PER_MINUTE` and `<prefix>_PER_DAY`, with these defaults. */
function window(env: Env, prefix: string, { perMinute, perDay }: { perMinute: number; perDay: number }): RateWindow {
  return { perMinute: num(env, `${prefix}_PER_MINUTE`, perMinute), perDay: num(env, `${prefix}_PER_DAY`, perDay) };
}

/**
 * The body ceiling when MAX_REQUEST_BODY_MB is not set: the same as the AWS stages' (lib/stage.ts
 * MAX_REQUEST_BODY_MB_ON_LAMBDA: a Lambda payload stops at 6 MB, and 4 MB of JSON leaves room for the
 * event's escaping), so a body the local stack takes is one AWS takes too. 0 still removes the ceiling.
 */
export const DEFAULT_MAX_REQUEST_BODY_MB = 4;

/**
 * The model size caps when INSTANCE_MAX_VARIABLES / _CONSTRAINTS / _NONZEROS are not set (the spec's
 * default is 0, no ceiling; issue 25 asks for caps a 2 vCPU worker holds). Measured (docs/decisions.md,
 * "Model size caps"): at these caps a compile holds ~150 MB of heap, and one process compiling, writing
 * the JSON, reading it back and writing the MPS file peaks at ~670 MB of RSS, which leaves a solver room
 * in the 2 GB task of the base stage; at 250,000 / 2,500,000 the same peaked at 1.4 GB. An operator with
 * larger tasks raises them.
 */
export const DEFAULT_MODEL_CAPS = { variables: 100_000, constraints: 100_000, nonzeros: 1_000_000 } as const;

function sha256Setting(name: string, value: string): string {
  const raw = value.trim().toLowerCase();
  if (raw !== "" && !/^[0-9a-f]{64}$/.test(raw)) throw new Error(`config: ${name} must be a SHA-256 in hex (64 characters)`);
  return raw;
}

/** The retry schedule of webhook deliveries: ~24 h in 8 attempts after the first. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS = [30, 120, 600, 1800, 3600, 7200, 21600, 43200];

export function loadConfig(env: Env = process.env): Config {
  const retryDelays = list(env, "WEBHOOK_RETRY_DELAYS_SECONDS", DEFAULT_WEBHOOK_RETRY_DELAYS.map(String)).map((s) => {
    const v = Number(s);
    if (!Number.isFinite(v) || v < 0) throw new Error(`config: WEBHOOK_RETRY_DELAYS_SECONDS has a bad entry "${s}"`);
    return v;
  });
  return {
    stage: str(env, "STAGE", "local"),
    region: str(env, "AWS_REGION", "us-east-1"),
    awsEndpointUrl: env.AWS_ENDPOINT_URL || undefined,
    sqsEndpointUrl: env.AWS_ENDPOINT_URL_SQS || env.AWS_ENDPOINT_URL || undefined,
    tableName: str(env, "TABLE_NAME", "incumbent"),
    jobsQueueUrl: str(env, "JOBS_QUEUE_URL", ""),
    jobsHighQueueUrl: str(env, "JOBS_HIGH_QUEUE_URL", ""),
    jobsLowQueueUrl: str(env, "JOBS_LOW_QUEUE_URL", ""),
    schedulerRoleArn: str(env, "SCHEDULER_ROLE_ARN", ""),
    schedulerGroupName: str(env, "SCHEDULER_GROUP_NAME", "default"),
    webhooksQueueUrl: str(env, "WEBHOOKS_QUEUE_URL", ""),
    webhooksDlqUrl: str(env, "WEBHOOKS_DLQ_URL", ""),
    blobBucket: str(env, "BLOB_BUCKET", ""),
    blobDir: str(env, "BLOB_DIR", ".data/blobs"),
    inlinePayloadMaxBytes: num(env, "INLINE_PAYLOAD_MAX_BYTES", 300_000),

    apiVersion: str(env, "API_VERSION", "2.0.0"),
    machineNote: str(env, "MACHINE_NOTE", ""),

    instanceMaxDailySolves: num(env, "INSTANCE_MAX_DAILY_SOLVES", 0),
    instanceMaxSolveTimeSeconds: num(env, "INSTANCE_MAX_SOLVE_TIME_SECONDS", 0),
    instanceMaxVariables: num(env, "INSTANCE_MAX_VARIABLES", DEFAULT_MODEL_CAPS.variables),
    instanceMaxConstraints: num(env, "INSTANCE_MAX_CONSTRAINTS", DEFAULT_MODEL_CAPS.constraints),
    instanceMaxNonzeros: num(env, "INSTANCE_MAX_NONZEROS", DEFAULT_MODEL_CAPS.nonzeros),
    instanceMaxCronSchedules: num(env, "INSTANCE_MAX_CRON_SCHEDULES", 0),
    maxRequestBodyMb: num(env, "MAX_REQUEST_BODY_MB", DEFAULT_MAX_REQUEST_BODY_MB),

    orgMaxRunningJobs: num(env, "ORG_MAX_RUNNING_JOBS", 2),
    orgPrioritySolvesPerDay: num(env, "ORG_PRIORITY_SOLVES_PER_DAY", 100),
    orgMaxTriggers: num(env, "ORG_MAX_TRIGGERS", 100),

    instanceRateLimit: {
      perMinute: num(env, "INSTANCE_RATE_LIMIT_PER_MINUTE", 120),
      perDay: num(env, "INSTANCE_RATE_LIMIT_PER_DAY", 50_000),
    },
    solveRateLimit: window(env, "SOLVE_RATE_LIMIT", { perMinute: 60, perDay: 10_000 }),
    modelsExecuteRateLimit: window(env, "MODELS_EXECUTE_RATE_LIMIT", { perMinute: 60, perDay: 10_000 }),
    modelsReadRateLimit: window(env, "MODELS_READ_RATE_LIMIT", { perMinute: 120, perDay: 50_000 }),
    creditsCalculatorRateLimit: window(env, "CREDITS_CALCULATOR_RATE_LIMIT", { perMinute: 120, perDay: 50_000 }),
    authLoginRateLimit: window(env, "AUTH_LOGIN_RATE_LIMIT", { perMinute: 30, perDay: 300 }),
    authLoginPerEmailRateLimit: window(env, "AUTH_LOGIN_PER_EMAIL_RATE_LIMIT", { perMinute: 10, perDay: 1_000 }),
    authSignupRateLimit: window(env, "AUTH_SIGNUP_RATE_LIMIT", { perMinute: 10, perDay: 50 }),
    authPasswordResetPerHour: num(env, "AUTH_PASSWORD_RESET_RATE_LIMIT_PER_HOUR", 3),
    triggerFireRateLimitPerMinute: num(env, "TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE", 60),

    jwtSecret: str(env, "JWT_SECRET", ""),
    jwtSecretArn: str(env, "JWT_SECRET_ARN", ""),
    jwtTtlSeconds: num(env, "JWT_TTL_SECONDS", 3600),
    passwordResetTtlSeconds: num(env, "PASSWORD_RESET_TTL_SECONDS", 3600),
    enrolmentTtlSeconds: num(env, "ENROLMENT_TTL_SECONDS", 259_200),
    mailFromAddress: str(env, "MAIL_FROM_ADDRESS", ""),
    authMaxActiveApiKeysPerUser: num(env, "AUTH_MAX_ACTIVE_API_KEYS_PER_USER", 25),
    operatorTokenSha256: sha256Setting("OPERATOR_TOKEN_SHA256", str(env, "OPERATOR_TOKEN_SHA256", "")),
    apiKeyCacheSeconds: num(env, "API_KEY_CACHE_SECONDS", 10),

    defaultTimeLimitSeconds: num(env, "DEFAULT_TIME_LIMIT_SECONDS", 60),
    defaultGapTolerance: num(env, "DEFAULT_GAP_TOLERANCE", 1e-4),
    solverThreads: Math.max(1, num(env, "SOLVER_THREADS", 1)),
    killGraceSeconds: num(env, "KILL_GRACE_SECONDS", 5),
    solverMemoryMb: num(env, "SOLVER_MEMORY_MB", 2048),
    solveWaitSeconds: num(env, "SOLVE_WAIT_SECONDS", 30),
    jobLeaseSeconds: num(env, "JOB_LEASE_SECONDS", 120),
    pythonPath: str(env, "SOLVER_PYTHON", ".venv/bin/python"),
    fleetSolvers: list(env, "FLEET_SOLVERS", [...SOLVER_NAMES]),

    workerPollSeconds: Math.min(20, num(env, "WORKER_POLL_SECONDS", 10)),
    workerStopTimeoutSeconds: num(env, "WORKER_STOP_TIMEOUT_SECONDS", 30),
    workerHeartbeatSeconds: Math.max(1, num(env, "WORKER_HEARTBEAT_SECONDS", 60)),
    workerLivenessFile: str(env, "WORKER_LIVENESS_FILE", ""),
    apiSolveMaxNonzeros: Math.max(0, num(env, "API_SOLVE_MAX_NONZEROS", 0)),
    apiSolveTakeoverSeconds: Math.max(0, num(env, "API_SOLVE_TAKEOVER_SECONDS", 3)),
    fleetMinWorkers: Math.max(0, num(env, "FLEET_MIN_WORKERS", 1)),
    ecsAgentUri: str(env, "ECS_AGENT_URI", ""),
    taskProtectionMinutes: Math.max(1, num(env, "TASK_PROTECTION_MINUTES", 30)),

    creditPriceEur: num(env, "CREDIT_PRICE_EUR", 0.01),
    creditsInitialGrant: num(env, "CREDITS_INITIAL_GRANT", 10_000),
    creditsLowThreshold: num(env, "CREDITS_LOW_THRESHOLD", 100),
    maxCreditsPerSolve: num(env, "MAX_CREDITS_PER_SOLVE", 500),

    webhookTimeoutSeconds: num(env, "WEBHOOK_TIMEOUT_SECONDS", 30),
    webhookRetryDelaysSeconds: retryDelays,
    webhookAllowPrivateNetworks: bool(env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS", false),
    webhookKeySecretArn: str(env, "WEBHOOK_KEY_SECRET_ARN", ""),
    webhookKeyFile: str(env, "WEBHOOK_KEY_FILE", ".data/webhook-key"),
    webhookOutboxGraceSeconds: num(env, "WEBHOOK_OUTBOX_GRACE_SECONDS", 60),

    sweepIntervalSeconds: num(env, "SWEEP_INTERVAL_SECONDS", 60),
    staleQueuedSeconds: num(env, "STALE_QUEUED_SECONDS", 3600),

    progressRetentionDays: num(env, "PROGRESS_RETENTION_DAYS", 7),

    documentUnnamedVersionsKept: num(env, "DOCUMENT_UNNAMED_VERSIONS_KEPT", 20),

    metricsFlushSeconds: num(env, "METRICS_FLUSH_SECONDS", 2),
    metricsRecentKept: num(env, "METRICS_RECENT_KEPT", 100),

    llmMonthlyBudgetEur: num(env, "LLM_MONTHLY_BUDGET_EUR", 0),
  };
}

/** Clamp a requested time limit by the instance ceiling (0 = no ceiling). Never refuses. */
export function clampTimeLimit(config: Pick<Config, "instanceMaxSolveTimeSeconds">, requested: number): number {
  const ceiling = config.instanceMaxSolveTimeSeconds;
  return ceiling > 0 ? Math.min(requested, ceiling) : requested;
}
