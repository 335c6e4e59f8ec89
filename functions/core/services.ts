import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { Mailbox } from "./auth/mailer.js";
import { Enrolment } from "./auth/enrolment.js";
import { AuthService } from "./auth/service.js";
import { createBlobStore, type BlobStore } from "./blob/blob-store.js";
import { systemClock, type Clock } from "./clock.js";
import type { Config } from "./config.js";
import { ComparisonService } from "./comparisons/service.js";
import { ComparisonStore } from "./comparisons/store.js";
import { MatrixService } from "./matrices/service.js";
import { MatrixStore } from "./matrices/store.js";
import { DocumentService } from "./documents/service.js";
import { DocumentStore } from "./documents/store.js";
import { ApiSolver, type ApiSolveEngine } from "./executions/api-solve.js";
import { FinalSignals } from "./executions/final-signals.js";
import { NO_METRICS, type ServiceMetrics } from "./observability/metrics.js";
import { ExecutionService } from "./executions/service.js";
import { OrganizationObservations, TableComparisonHistory } from "./solvers/recommendation/evidence.js";
import { PUBLIC_OBSERVATIONS } from "./solvers/recommendation/public-benchmark.js";
import { SolverRecommendations } from "./solvers/recommendation/service.js";
import { ExecutionStore } from "./executions/store.js";
import { RaceLauncher } from "./races/launch.js";
import { RaceStore } from "./races/store.js";
import { ProgressService } from "./progress/service.js";
import { ProgressStore } from "./progress/store.js";
import { Credits } from "./credits/credits.js";
import { CreditLedger } from "./credits/ledger.js";
import { PriorityBudget } from "./limits/priority-budget.js";
import { DailyQuota } from "./limits/quota.js";
import { SolveAdmission } from "./limits/solve-admission.js";
import { RateLimiter } from "./limits/rate-limits.js";
import { Notifications } from "./notifications/notifications.js";
import { ProjectService } from "./projects/service.js";
import { ProjectStore } from "./projects/store.js";
import { FairShare } from "./queue/fair-share.js";
import { FairShareStore } from "./queue/fair-share-store.js";
import { createSqsClient, Queues } from "./queue/sqs.js";
import { WorkerHeartbeats } from "./health/worker-heartbeats.js";
import { InventoryStore } from "./solvers/inventory.js";
import { createLogger, type Logger } from "./logger.js";
import { InlineModelWork, type ModelWork } from "./model-work/model-work.js";
import { CounterStore } from "./limits/counters.js";
import { awsClientOptions, createDocumentClient, createDynamoClient } from "./store/dynamo.js";
import { IdentityStore } from "./identity/store.js";
import { MetricsRecorder, MetricsStore } from "./observability/metrics-store.js";
import { EventBridgeSchedules } from "./triggers/schedules-aws.js";
import { TableSchedules, type TriggerSchedules } from "./triggers/schedules.js";
import { Table } from "./store/table.js";
import { RunOutcomes } from "./triggers/outcomes.js";
import { TriggerRuns } from "./triggers/runs.js";
import { TriggerService } from "./triggers/service.js";
import { TriggerStore } from "./triggers/store.js";
import { WebhookDeliveries } from "./webhooks/delivery.js";
import { WebhookSecretBox } from "./webhooks/secret-box.js";

/**
 * Everything the handlers and workers share, built once per process (per Lambda cold start, per
 * worker, per local stack). Core services only: no HTTP, no Lambda types.
 */
export type { Mailbox } from "./auth/mailer.js";

export interface Services {
  config: Config;
  mailbox: Mailbox;
  clock: Clock;
  logger: Logger;
  dynamo: DynamoDBClient;
  table: Table;
  identity: IdentityStore;
  counters: CounterStore;
  metricsStore: MetricsStore;
  metrics: MetricsRecorder;
  auth: AuthService;
  /** Sign-up and invitations, by mailed token: no answer tells whether an address is taken. */
  enrolment: Enrolment;
  limiter: RateLimiter;
  sqs: SQSClient;
  queues: Queues;
  /** Each organization's share of the fleet: where new jobs are dispatched, and what workers hold while they run one. */
  fairShare: FairShare;
  blobs: BlobStore;
  inventory: InventoryStore;
  workerHeartbeats: WorkerHeartbeats;
  notifications: Notifications;
  quota: DailyQuota;
  priorityBudget: PriorityBudget;
  credits: Credits;
  admission: SolveAdmission;
  executionStore: ExecutionStore;
  executions: ExecutionService;
  /** A race's writes (issue 29): its record, its entrants' rows, its decision. */
  raceStore: RaceStore;
  /** What `auto` would run for a problem, and why (issue 29): the organization's comparisons, the public table, today's rule. */
  recommendations: SolverRecommendations;
  /** Wakes a plain solve's wait on a worker's final write, where this process hears of it. */
  finalSignals: FinalSignals;
  progressStore: ProgressStore;
  progress: ProgressService;
  projectStore: ProjectStore;
  projects: ProjectService;
  comparisonStore: ComparisonStore;
  comparisons: ComparisonService;
  matrixStore: MatrixStore;
  matrices: MatrixService;
  documentStore: DocumentStore;
  documents: DocumentService;
  triggerStore: TriggerStore;
  /** Where triggers' schedules live: EventBridge Scheduler in AWS, the local scheduler's registry elsewhere. */
  schedules: TriggerSchedules;
  triggers: TriggerService;
  triggerRuns: TriggerRuns;
  runOutcomes: RunOutcomes;
  webhooks: WebhookDeliveries;
  /** Where compiles and file reads run for a request (model-work/model-work.ts). */
  modelWork: ModelWork;
  /** Seals webhook secrets before they are stored, opens them to sign a delivery. */
  webhookSecrets: WebhookSecretBox;
  /** Answers small plain solves in the API when no warm worker takes them. */
  apiSolver: ApiSolver;
}

export interface ServiceOptions {
  config: Config;
  jwtSecret: string;
  clock?: Clock;
  dynamo?: DynamoDBClient;
  logger?: Logger;
  mailbox?: Mailbox;
  sqs?: SQSClient;
  blobs?: BlobStore;
  /** The local stack's, which hears its workers; by default none is heard and the wait polls. */
  finalSignals?: FinalSignals;
  /** The local stack's model thread; by default the calling thread (a Lambda, a worker). */
  modelWork?: ModelWork;
  /** Wraps each AWS client created here (DynamoDB, SQS, S3): the Lambdas and the worker capture them for X-Ray. */
  instrumentClient?: <C extends object>(client: C) => C;
  /** The engine small plain solves are answered with in the API (executions/api-solve.ts); absent: never. */
  apiSolveEngine?: () => Promise<ApiSolveEngine>;
  /**
   * Reads the webhook key from Secrets Manager (webhooks/secret-key-aws.ts): given by the Lambdas that
   * seal or open webhook secrets; absent, the local key file (or, with WEBHOOK_KEY_SECRET_ARN set, no key).
   */
  webhookKeyFromSecretsManager?: (secretArn: string) => Promise<Buffer>;
  /** The process's own metrics (observability/metrics.ts); absent: none. */
  metrics?: ServiceMetrics;
}

export function createServices(options: ServiceOptions): Services {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger("incumbent");
  const instrument = options.instrumentClient ?? (<C>(client: C) => client);
  const dynamo = options.dynamo ?? instrument(createDynamoClient(awsClientOptions(config)));
  const table = new Table(createDocumentClient(dynamo), config.tableName, clock);
  const identity = new IdentityStore(table);
  const counters = new CounterStore(table);
  const metricsStore = new MetricsStore(table);
  const sqs = options.sqs ?? instrument(createSqsClient(config));
  const queues = new Queues(sqs, config);
  const blobs = options.blobs ?? createBlobStore(config, instrument);
  const fairShare = new FairShare({ store: new FairShareStore(table), queues, clock, config, logger });
  const modelWork = options.modelWork ?? new InlineModelWork();
  const inventory = new InventoryStore(table, config);
  const notifications = new Notifications(table, clock);
  const quota = new DailyQuota(counters, config);
  const ledger = new CreditLedger(table);
  const credits = new Credits({ identity, notifications, config, ledger, clock });
  const priorityBudget = new PriorityBudget(counters, config);
  const admission = new SolveAdmission({ config, clock, credits, quota, priorityBudget, blobs });
  const executionStore = new ExecutionStore(table);
  const projectStore = new ProjectStore(table);
  const projects = new ProjectService({ projectStore, blobs, clock, config });
  const comparisonStore = new ComparisonStore(table);
  const matrixStore = new MatrixStore(table);
  const auth = new AuthService({ identity, config, clock, ledger, jwtSecret: options.jwtSecret });
  const limiter = new RateLimiter(counters, config);
  const mailbox: Mailbox = options.mailbox ?? (() => undefined);
  const finalSignals = options.finalSignals ?? new FinalSignals({ heard: false });
  const recommendations = new SolverRecommendations({
    clock,
    inventory,
    organization: new OrganizationObservations(new TableComparisonHistory(table), () => clock.now()),
    publicObservations: PUBLIC_OBSERVATIONS,
  });
  const raceStore = new RaceStore(table);
  const workerHeartbeats = new WorkerHeartbeats(table);
  const races = new RaceLauncher({ config, clock, executionStore, raceStore, blobs, inventory, admission, fairShare, workerHeartbeats, credits });
  const executions = new ExecutionService({ config, clock, executionStore, blobs, inventory, admission, fairShare, finalSignals, recommendations, races });
  const comparisons = new ComparisonService({ config, clock, comparisonStore, projects, blobs, inventory, admission, fairShare, modelWork });
  const matrices = new MatrixService({ config, clock, comparisonStore, matrixStore, projects, blobs, inventory, admission, fairShare, modelWork });
  const progressStore = new ProgressStore(table, blobs, { clock, retentionDays: config.progressRetentionDays });
  const documentStore = new DocumentStore(table);
  const documents = new DocumentService({ documentStore, blobs, clock, config, executions, inventory, modelWork });
  const triggerStore = new TriggerStore(table);
  const webhookSecrets = WebhookSecretBox.fromConfig(config, options.webhookKeyFromSecretsManager);
  const webhooks = new WebhookDeliveries({ config, clock, triggerStore, queues, sqs, blobs, notifications, logger, webhookSecrets });
  const schedules: TriggerSchedules = config.schedulerRoleArn ? new EventBridgeSchedules(config) : new TableSchedules(table, queues);
  const runOutcomes = new RunOutcomes({ config, blobs, webhooks, notifications, identity, logger });
  return {
    config,
    mailbox,
    clock,
    logger,
    dynamo,
    table,
    identity,
    counters,
    metricsStore,
    metrics: new MetricsRecorder(metricsStore, {
      flushSeconds: config.metricsFlushSeconds,
      recentKept: config.metricsRecentKept,
      now: () => clock.now(),
    }),
    auth,
    enrolment: new Enrolment({ identity, table, config, clock, mailbox, auth }),
    limiter,
    sqs,
    queues,
    fairShare,
    blobs,
    inventory,
    workerHeartbeats,
    notifications,
    quota,
    priorityBudget,
    credits,
    admission,
    executionStore,
    executions,
    raceStore,
    recommendations,
    finalSignals,
    progressStore,
    progress: new ProgressService({ executionStore, progressStore, executions, comparisonStore, comparisons }),
    projectStore,
    projects,
    comparisonStore,
    comparisons,
    matrixStore,
    matrices,
    documentStore,
    documents,
    triggerStore,
    modelWork,
    schedules,
    triggers: new TriggerService({ config, clock, triggerStore, documents, identity, auth, blobs, schedules, webhookSecrets }),
    triggerRuns: new TriggerRuns({ config, clock, triggerStore, documents, inventory, limiter, fairShare, priorityBudget, runOutcomes, auth, blobs }),
    runOutcomes,
    webhooks,
    webhookSecrets,
    apiSolver: new ApiSolver({
      config,
      clock,
      executionStore,
      blobs,
      metricsStore,
      workerHeartbeats,
      logger,
      metrics: options.metrics ?? NO_METRICS,
      engine: options.apiSolveEngine,
    }),
  };
}
