import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { AuthService } from "./auth/service.js";
import { systemClock, type Clock } from "./clock.js";
import type { Config } from "./config.js";
import { RateLimiter } from "./limits/rate-limits.js";
import { createLogger, type Logger } from "./logger.js";
import { CounterStore } from "./store/counters.js";
import { awsClientOptions, createDocumentClient, createDynamoClient } from "./store/dynamo.js";
import { IdentityStore } from "./store/identity.js";
import { MetricsRecorder, MetricsStore } from "./store/metrics.js";
import { Table } from "./store/table.js";

/**
 * Everything the handlers and workers share, built once per process (per Lambda cold start, per
 * worker, per local stack). Core services only: no HTTP, no Lambda types.
 */
/** Where messages to users go (password-reset tokens). Locally the console; in AWS, none yet. */
export type Mailbox = (to: string, subject: string, body: string) => void;

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
  limiter: RateLimiter;
}

export interface ServiceOptions {
  config: Config;
  jwtSecret: string;
  clock?: Clock;
  dynamo?: DynamoDBClient;
  logger?: Logger;
  mailbox?: Mailbox;
}

export function createServices(options: ServiceOptions): Services {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger("incumbent");
  const dynamo = options.dynamo ?? createDynamoClient(awsClientOptions(config));
  const table = new Table(createDocumentClient(dynamo), config.tableName, clock);
  const identity = new IdentityStore(table);
  const counters = new CounterStore(table);
  const metricsStore = new MetricsStore(table);
  return {
    config,
    mailbox: options.mailbox ?? (() => undefined),
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
    auth: new AuthService(identity, config, clock, options.jwtSecret),
    limiter: new RateLimiter(counters, config),
  };
}
