import { z } from "zod";
import { DEFAULT_MODEL_CAPS } from "../functions/core/config.js";

/**
 * The settings one deployment stage (dev, staging, prod, …) differs in, and the numbers derived from
 * them that several constructs must agree on (queue visibility vs the longest job, the sweeper's
 * staleness window vs the time a job can spend in the queue).
 *
 * Sources, later wins: built-in defaults (`dev`-like, or `prod`-like for a production stage) →
 * cdk.json context `incumbent:stages.<stage>` → `-c incumbent:<key>=<value>` → environment
 * `INCUMBENT_<KEY>` (camelCase key in upper snake case, e.g. INCUMBENT_MAX_SOLVE_TIME_SECONDS).
 * The stage itself comes from `-c stage=<name>` or INCUMBENT_STAGE, default `dev`.
 */

/** Spec: a comparison runs 1 to 8 solvers, one after another, in one task. */
export const MAX_SOLVERS_PER_COMPARISON = 8;
/** Per job beyond its solves: reading the problem, writing results, and a comparison's bookkeeping. */
export const TASK_OVERHEAD_SECONDS = 180;
/** Fargate's ceiling on a container's stopTimeout, and the warning Fargate Spot gives before it stops a task. */
export const FARGATE_MAX_STOP_TIMEOUT_SECONDS = 120;
/** SQS caps a message's visibility timeout at 12 hours. */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;
/**
 * What reaches the API Lambda is a JSON event carrying the body as an escaped string, and Lambda
 * refuses synchronous payloads over 6 MB; 4 MB of JSON leaves room for escaping and headers, so the
 * app's own 413 (MAX_REQUEST_BODY_MB) answers before the platform's opaque failure does.
 */
export const MAX_REQUEST_BODY_MB_ON_LAMBDA = 4;

/** CloudWatch Logs accepts only these retention periods. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

/** Fargate's valid task sizes: CPU units → allowed memory (MiB), a list or a range with its step. */
const FARGATE_SIZES: Record<number, number[] | { min: number; max: number; step: number }> = {
  256: [512, 1024, 2048],
  512: { min: 1024, max: 4096, step: 1024 },
  1024: { min: 2048, max: 8192, step: 1024 },
  2048: { min: 4096, max: 16384, step: 1024 },
  4096: { min: 8192, max: 30720, step: 1024 },
  8192: { min: 16384, max: 61440, step: 4096 },
  16384: { min: 32768, max: 122880, step: 8192 },
};

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);
const flag = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

/** Every stage setting, flat, so each one can be given on the command line or in the environment. */
export const StageSettingsSchema = z.object({
  /** Prefix of every named resource: `<namePrefix>-api`, `<namePrefix>-jobs`, … */
  namePrefix: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, "lower-case letters, digits and dashes"),
  /** Production stages keep data on stack deletion and turn on deletion protection and versioning. */
  production: flag,
  /** Custom domain of the API (optional): the name and an ACM certificate for it in the stack's region. */
  domainName: z.string().optional(),
  certificateArn: z.string().optional(),
  /** Fargate task size of one solver task, and its CPU architecture. */
  solverCpu: positiveInt,
  solverMemoryMib: positiveInt,
  solverArchitecture: z.enum(["x86_64", "arm64"]),
  /**
   * The warm fleet: false deploys everything but it (no VPC, cluster or service), for LocalStack's
   * community edition, which has no ECS; workers then run on a host (`npm run worker`).
   */
  fleet: flag,
  /** Solver tasks kept running when idle (0: the fleet scales to zero and starts on the first job). */
  minRunningSolverTasks: nonNegativeInt,
  /** Upper bound of solver tasks running at once; further jobs wait in the queue. */
  maxRunningSolverTasks: positiveInt,
  /** Fargate Spot for the tasks above the minimum (the minimum stays on regular Fargate). */
  solverSpot: flag,
  /** Target of the scaling policy: jobs (waiting + running) per running task. */
  backlogPerTaskTarget: z.coerce.number().positive(),
  /**
   * From SIGTERM to SIGKILL (ECS stopTimeout, the worker's WORKER_STOP_TIMEOUT_SECONDS): a stopping worker
   * finishes its job within this or hands it back. Fargate allows at most 120 s.
   */
  workerStopTimeoutSeconds: positiveInt.max(FARGATE_MAX_STOP_TIMEOUT_SECONDS),
  logRetentionDays: positiveInt.refine((d) => (RETENTION_DAYS as readonly number[]).includes(d), "a CloudWatch Logs retention period"),
  /** Instance caps the handlers enforce (spec: Limits). The solve ceiling must be set in AWS. */
  maxSolveTimeSeconds: positiveInt,
  killGraceSeconds: positiveInt,
  maxDailySolves: nonNegativeInt,
  /** Model size caps (0 = none); the defaults are the local stack's (functions/core/config.ts DEFAULT_MODEL_CAPS). */
  maxVariables: nonNegativeInt,
  maxConstraints: nonNegativeInt,
  maxNonzeros: nonNegativeInt,
  maxRequestBodyMb: positiveInt.max(MAX_REQUEST_BODY_MB_ON_LAMBDA),
  /** API Gateway stage throttling (requests per second, and burst). */
  apiRateLimit: positiveInt,
  apiBurstLimit: positiveInt,
  /**
   * Webhook Lambda's reserved concurrency; 0 (the default) leaves it unreserved: a new account's quota
   * of 10 concurrent executions allows no reservation at all (AWS keeps 10 unreserved).
   */
  webhookReservedConcurrency: nonNegativeInt,
  /** Most webhook Lambdas its SQS poller runs at once (SQS event source maximumConcurrency, 2–1000). */
  webhookMaxConcurrency: positiveInt.min(2).max(1000),
  /** Sender of password-reset mail through SES (a verified identity); absent, reset tokens are not mailed. */
  mailFromAddress: z.email().optional(),
  /**
   * SHA-256 (hex) of the instance operator's token (scripts/operator-token.ts): the credential that grants
   * credits and makes organizations; absent, the stage has no operator.
   */
  operatorTokenSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "a SHA-256 in lower-case hex")
    .optional(),
  /** Receives of a solve-job message before it goes to the DLQ. */
  jobMaxReceiveCount: positiveInt.max(1000),
  /** Receives of a webhook message before it goes to the DLQ (the handler's own retry schedule comes first). */
  webhookMaxReceiveCount: positiveInt.max(1000),
  /** Blobs (large problems, solutions) expire after this many days; 0 keeps them. */
  blobExpirationDays: nonNegativeInt,
  sweepIntervalMinutes: positiveInt.max(60),
  /**
   * The Lambda concurrent-executions quota of the account and region this stage deploys to (Service
   * Quotas, "Concurrent executions"): 1,000 by default, as low as 10 on a new account. The account
   * concurrency alarm fires at 80 % of it.
   */
  accountLambdaConcurrency: positiveInt,
  /**
   * The account's Fargate On-Demand vCPU quota in the region (and Fargate Spot's, for `solverSpot`),
   * when known: synth refuses a fleet whose maximum needs more. Absent, synth only warns what it needs.
   */
  accountFargateVcpu: positiveInt.optional(),
  accountFargateSpotVcpu: positiveInt.optional(),
  /**
   * Create the two service-linked roles the fleet needs (ECS's, and Application Auto Scaling's for ECS).
   * A new account has neither until the console or a first service creates them; CloudFormation fails
   * creating one that exists, so this is off unless the account is new (docs/deploy.md, New accounts).
   */
  createServiceLinkedRoles: flag,
  /**
   * Plain solves with at most this many constraint nonzeros (jaos or auto, no quadratic terms) are
   * answered by the API function itself when no warm worker takes them (0: never): a stage idling at
   * zero tasks answers them at once instead of `solver_busy` (functions/core/executions/api-solve.ts).
   */
  apiSolveMaxNonzeros: nonNegativeInt,
  /** Where alarm notifications go (an e-mail subscription to the alarm topic), optional. */
  alarmEmail: z.email().optional(),
  /** LocalStack only: the endpoint every handler's and the worker's AWS clients use (AWS_ENDPOINT_URL). */
  awsEndpointUrl: z.url().optional(),
});
export type StageSettings = z.infer<typeof StageSettingsSchema>;

export interface StageConfig extends StageSettings {
  stage: string;
}

const BASE: Omit<StageSettings, "namePrefix" | "production"> = {
  solverCpu: 1024,
  solverMemoryMib: 2048,
  solverArchitecture: "x86_64",
  fleet: true,
  minRunningSolverTasks: 0,
  maxRunningSolverTasks: 4,
  solverSpot: false,
  backlogPerTaskTarget: 1,
  workerStopTimeoutSeconds: FARGATE_MAX_STOP_TIMEOUT_SECONDS,
  logRetentionDays: 14,
  maxSolveTimeSeconds: 300,
  killGraceSeconds: 5,
  maxDailySolves: 0,
  maxVariables: DEFAULT_MODEL_CAPS.variables,
  maxConstraints: DEFAULT_MODEL_CAPS.constraints,
  maxNonzeros: DEFAULT_MODEL_CAPS.nonzeros,
  maxRequestBodyMb: MAX_REQUEST_BODY_MB_ON_LAMBDA,
  apiRateLimit: 50,
  apiBurstLimit: 100,
  webhookReservedConcurrency: 0,
  webhookMaxConcurrency: 5,
  jobMaxReceiveCount: 5,
  webhookMaxReceiveCount: 5,
  blobExpirationDays: 30,
  sweepIntervalMinutes: 1,
  accountLambdaConcurrency: 1000,
  createServiceLinkedRoles: false,
  apiSolveMaxNonzeros: 20_000,
};

/** What a production stage changes from the base: bigger tasks, one always warm, more of them, longer retention. */
const PRODUCTION: Partial<StageSettings> = {
  solverCpu: 2048,
  solverMemoryMib: 4096,
  minRunningSolverTasks: 1,
  maxRunningSolverTasks: 20,
  logRetentionDays: 90,
  maxSolveTimeSeconds: 600,
  apiRateLimit: 200,
  apiBurstLimit: 400,
  webhookMaxConcurrency: 10,
  blobExpirationDays: 0,
};

const PRODUCTION_STAGES = new Set(["prod", "production"]);

/** camelCase setting → INCUMBENT_UPPER_SNAKE environment variable. */
export const envNameOf = (key: string): string => `INCUMBENT_${key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;

export interface StageSources {
  /** Reads a CDK context value (App#node.tryGetContext). */
  context: (key: string) => unknown;
  env: Record<string, string | undefined>;
}

/** Resolves and validates the stage's settings; throws with every problem listed. */
export function resolveStageConfig({ context, env }: StageSources): StageConfig {
  const stage = String(env.INCUMBENT_STAGE ?? context("stage") ?? "dev");
  if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) throw new Error(`stage "${stage}": lower-case letters, digits and dashes`);
  const fromFile = ((context("incumbent:stages") ?? {}) as Record<string, Record<string, unknown>>)[stage] ?? {};
  const production = parseFlag(env[envNameOf("production")] ?? context("incumbent:production") ?? fromFile.production) ?? PRODUCTION_STAGES.has(stage);
  const merged: Record<string, unknown> = { ...BASE, ...(production ? PRODUCTION : {}), namePrefix: `incumbent-${stage}`, ...fromFile, production };
  for (const key of Object.keys(StageSettingsSchema.shape)) {
    const given = env[envNameOf(key)] ?? context(`incumbent:${key}`);
    if (given !== undefined && given !== "") merged[key] = given;
  }
  const parsed = StageSettingsSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`stage "${stage}" settings: ${problems}`);
  }
  const config: StageConfig = { stage, ...parsed.data };
  validate(config);
  return config;
}

function parseFlag(value: unknown): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const parsed = flag.safeParse(value);
  if (!parsed.success) throw new Error(`production: true or false, got "${String(value)}"`);
  return parsed.data;
}

function validate(config: StageConfig): void {
  const size = FARGATE_SIZES[config.solverCpu];
  if (!size) throw new Error(`solverCpu ${config.solverCpu}: one of ${Object.keys(FARGATE_SIZES).join(", ")}`);
  const m = config.solverMemoryMib;
  const valid = Array.isArray(size) ? size.includes(m) : m >= size.min && m <= size.max && (m - size.min) % size.step === 0;
  if (!valid) throw new Error(`solverMemoryMib ${m} is not a Fargate memory size for ${config.solverCpu} CPU units`);
  if (Boolean(config.domainName) !== Boolean(config.certificateArn)) throw new Error("domainName and certificateArn go together");
  if (config.minRunningSolverTasks > config.maxRunningSolverTasks) {
    throw new Error(`minRunningSolverTasks ${config.minRunningSolverTasks} exceeds maxRunningSolverTasks ${config.maxRunningSolverTasks}`);
  }
  if (config.webhookReservedConcurrency > 0 && config.webhookReservedConcurrency < config.webhookMaxConcurrency) {
    throw new Error(
      `webhookReservedConcurrency ${config.webhookReservedConcurrency} is below webhookMaxConcurrency ${config.webhookMaxConcurrency}: the poller would be throttled and count receives towards the DLQ`,
    );
  }
  if (config.production && config.fleet && config.minRunningSolverTasks < 1) {
    throw new Error("a production stage keeps at least one solver task warm: minRunningSolverTasks ≥ 1");
  }
  const needs = stageNeeds(config);
  if (needs.apiConcurrency < MIN_API_CONCURRENCY) {
    throw new Error(
      `the account's Lambda concurrency (accountLambdaConcurrency ${config.accountLambdaConcurrency}) leaves the API ${needs.apiConcurrency} concurrent executions ` +
        `after the webhook poller (${config.webhookMaxConcurrency}), the sweeper and the fleet monitor and a 10 % margin; it needs at least ${MIN_API_CONCURRENCY}. ` +
        `Request a quota increase (Service Quotas: Lambda, Concurrent executions; this stage needs ${needs.lambdaConcurrency}) or lower webhookMaxConcurrency.`,
    );
  }
  if (config.fleet && config.accountFargateVcpu !== undefined && needs.fargateOnDemandVcpu > config.accountFargateVcpu) {
    throw new Error(
      `the fleet's maximum needs ${needs.fargateOnDemandVcpu} Fargate On-Demand vCPU (${config.maxRunningSolverTasks} tasks × ${config.solverCpu / 1024}), ` +
        `more than the account's quota (accountFargateVcpu ${config.accountFargateVcpu}): request an increase or lower maxRunningSolverTasks`,
    );
  }
  if (config.fleet && config.accountFargateSpotVcpu !== undefined && needs.fargateSpotVcpu > config.accountFargateSpotVcpu) {
    throw new Error(
      `the fleet's Spot tasks need ${needs.fargateSpotVcpu} Fargate Spot vCPU, more than the account's quota (accountFargateSpotVcpu ${config.accountFargateSpotVcpu})`,
    );
  }
  const longest = longestJobSeconds(config);
  if (longest > SQS_MAX_VISIBILITY_SECONDS) {
    throw new Error(
      `the longest job (${MAX_SOLVERS_PER_COMPARISON} solvers × (${config.maxSolveTimeSeconds} s + ${config.killGraceSeconds} s grace) + ${TASK_OVERHEAD_SECONDS} s = ${longest} s) ` +
        `exceeds SQS's 12-hour visibility timeout: lower maxSolveTimeSeconds`,
    );
  }
}

/**
 * The longest job a worker runs: a comparison row's solvers one after another, each stopped at the
 * solve ceiling plus the kill switch's grace, plus the job's own reading and writing.
 */
export function longestJobSeconds(config: Pick<StageConfig, "maxSolveTimeSeconds" | "killGraceSeconds">): number {
  return MAX_SOLVERS_PER_COMPARISON * (config.maxSolveTimeSeconds + config.killGraceSeconds) + TASK_OVERHEAD_SECONDS;
}

/**
 * Jobs queue default visibility: the longest job. Workers receive with a short claim and extend it while
 * their job runs, so this only bounds a consumer that does not (a stray `aws sqs receive-message`).
 */
export function jobsVisibilitySeconds(config: Pick<StageConfig, "maxSolveTimeSeconds" | "killGraceSeconds">): number {
  return longestJobSeconds(config);
}

/**
 * How long a queued job may wait before the sweeper fails it: every receive of its message a worker
 * that died holding it, plus two sweeps. A backlog waiting for a saturated fleet counts no receives, so
 * this also bounds how long a job waits for a free worker (the oldest-message alarm fires long before).
 */
export function staleQueuedSeconds(
  config: Pick<StageConfig, "maxSolveTimeSeconds" | "killGraceSeconds" | "jobMaxReceiveCount" | "sweepIntervalMinutes">,
): number {
  return config.jobMaxReceiveCount * jobsVisibilitySeconds(config) + 2 * 60 * config.sweepIntervalMinutes;
}

/** A plain solve holds its API invocation up to SOLVE_WAIT_SECONDS (25) plus its own work: what one costs in concurrency. */
export const PLAIN_SOLVE_HOLD_SECONDS = 26;
/** What other API requests are assumed to hold an invocation, at most on average (reads and writes of a few items). */
export const API_REQUEST_HOLD_SECONDS = 1;
/** Share of the account's concurrency the stage plans to use; the rest is margin (other functions, bursts). */
export const ACCOUNT_CONCURRENCY_PLANNED_SHARE = 0.9;
/** Below this many concurrent executions the API cannot serve a burst of sign-ins and reads. */
export const MIN_API_CONCURRENCY = 2;

export interface StageNeeds {
  /** Concurrent executions the stage's functions can use at its throttles: the quota it needs. */
  lambdaConcurrency: number;
  /** What the API gets of the account's concurrency after the other functions' maxima and the margin. */
  apiConcurrency: number;
  /** API Gateway's throttles, derived so the API cannot be asked for more concurrency than it gets. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /** The plain-solve route's own throttle: each request may hold an invocation PLAIN_SOLVE_HOLD_SECONDS. */
  solveThrottle: { rateLimit: number; burstLimit: number };
  fargateOnDemandVcpu: number;
  fargateSpotVcpu: number;
}

/**
 * What a stage needs of its account, from its settings: Lambda concurrency (the webhook poller's
 * maximum, the sweeper and fleet monitor one each, the API what its throttles let in) and Fargate vCPU
 * at the fleet's maximum. The API's throttles follow from the concurrency it gets: half for plain solves
 * (each held up to PLAIN_SOLVE_HOLD_SECONDS), half for everything else (API_REQUEST_HOLD_SECONDS each),
 * and never above the stage's own apiRateLimit/apiBurstLimit. A request API Gateway throttles gets 429
 * at once; one Lambda throttles would wait and then fail as 5xx.
 */
export function stageNeeds(
  config: Pick<
    StageConfig,
    | "accountLambdaConcurrency"
    | "webhookMaxConcurrency"
    | "webhookReservedConcurrency"
    | "apiRateLimit"
    | "apiBurstLimit"
    | "fleet"
    | "maxRunningSolverTasks"
    | "minRunningSolverTasks"
    | "solverCpu"
    | "solverSpot"
  >,
): StageNeeds {
  const others = Math.max(config.webhookMaxConcurrency, config.webhookReservedConcurrency) + 1 + (config.fleet ? 1 : 0);
  const apiConcurrency = Math.max(0, Math.floor(config.accountLambdaConcurrency * ACCOUNT_CONCURRENCY_PLANNED_SHARE) - others);
  const half = apiConcurrency / 2;
  const round2 = (n: number) => Math.floor(n * 100) / 100;
  const solveRate = Math.min(config.apiRateLimit, round2(half / PLAIN_SOLVE_HOLD_SECONDS));
  const otherRate = Math.min(config.apiRateLimit, round2(half / API_REQUEST_HOLD_SECONDS));
  const solveThrottle = { rateLimit: solveRate, burstLimit: Math.max(1, Math.min(config.apiBurstLimit, Math.floor(half / PLAIN_SOLVE_HOLD_SECONDS) || 1)) };
  const apiThrottle = { rateLimit: otherRate, burstLimit: Math.max(1, Math.min(config.apiBurstLimit, Math.floor(half))) };
  const vcpu = config.solverCpu / 1024;
  const onDemandTasks = config.solverSpot ? config.minRunningSolverTasks : config.maxRunningSolverTasks;
  const spotTasks = config.solverSpot ? config.maxRunningSolverTasks - config.minRunningSolverTasks : 0;
  const apiNeed = Math.ceil(solveThrottle.rateLimit * PLAIN_SOLVE_HOLD_SECONDS + apiThrottle.rateLimit * API_REQUEST_HOLD_SECONDS);
  return {
    lambdaConcurrency: Math.ceil((others + apiNeed) / ACCOUNT_CONCURRENCY_PLANNED_SHARE),
    apiConcurrency,
    apiThrottle,
    solveThrottle,
    fargateOnDemandVcpu: config.fleet ? onDemandTasks * vcpu : 0,
    fargateSpotVcpu: config.fleet ? spotTasks * vcpu : 0,
  };
}
