import { CfnOutput, Duration, Stack, Tags, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { Api } from "./api.js";
import { Data } from "./data.js";
import { Queues } from "./queues.js";
import { SOLVER_CONTAINER_NAME, SolverFleet } from "./solver-fleet.js";
import { jobsVisibilitySeconds, staleQueuedSeconds, type StageConfig } from "./stage.js";
import { Sweeper } from "./sweeper.js";
import { WEBHOOK_FUNCTION_TIMEOUT_SECONDS, Webhooks } from "./webhooks.js";

export interface IncumbentStackProps extends StackProps {
  config: StageConfig;
}

/** The solvers every task image carries (solver-container/Dockerfile), before a worker reports its own. */
const FLEET_SOLVERS = "scip,highs,cbc,glpk,jaos";

/**
 * One stage of Incumbent (the picture in docs/deploy.md): data, queues, API, solver fleet, webhooks, sweeper. Each
 * construct grants its own functions exactly what they call; this class only passes resources along
 * and fixes the settings several of them must agree on.
 */
export class IncumbentStack extends Stack {
  readonly data: Data;
  readonly queues: Queues;
  readonly api: Api;
  readonly fleet: SolverFleet;
  readonly webhooks: Webhooks;
  readonly sweeper: Sweeper;

  constructor(scope: Construct, id: string, props: IncumbentStackProps) {
    super(scope, id, props);
    const c = props.config;
    Tags.of(this).add("project", "incumbent");
    Tags.of(this).add("stage", c.stage);

    // Settings every handler and the worker read through functions/core/config.ts.
    const shared: Record<string, string> = {
      STAGE: c.stage,
      INSTANCE_MAX_SOLVE_TIME_SECONDS: String(c.maxSolveTimeSeconds),
      INSTANCE_MAX_DAILY_SOLVES: String(c.maxDailySolves),
      INSTANCE_MAX_VARIABLES: String(c.maxVariables),
      MAX_REQUEST_BODY_MB: String(c.maxRequestBodyMb),
      KILL_GRACE_SECONDS: String(c.killGraceSeconds),
      FLEET_SOLVERS,
      ...(c.awsEndpointUrl ? { AWS_ENDPOINT_URL: c.awsEndpointUrl } : {}),
    };
    const common = { namePrefix: c.namePrefix, production: c.production, logRetentionDays: c.logRetentionDays, environment: shared };

    this.data = new Data(this, "Data", { namePrefix: c.namePrefix, production: c.production, blobExpirationDays: c.blobExpirationDays });
    const { table, bucket } = this.data;

    this.queues = new Queues(this, "Queues", {
      namePrefix: c.namePrefix,
      alarmEmail: c.alarmEmail,
      jobs: {
        visibilityTimeout: Duration.seconds(jobsVisibilitySeconds(c)),
        maxReceiveCount: c.jobMaxReceiveCount,
        oldestMessageAlarmAge: Duration.minutes(15),
      },
      webhooks: {
        // Lambda's SQS integration asks for six times the consumer's timeout.
        visibilityTimeout: Duration.seconds(6 * WEBHOOK_FUNCTION_TIMEOUT_SECONDS),
        maxReceiveCount: c.webhookMaxReceiveCount,
        // Retries wait in the queue up to SQS's 15-minute delay, so younger messages are normal.
        oldestMessageAlarmAge: Duration.minutes(30),
      },
    });
    const jobsQueue = this.queues.jobs.queue;
    const webhooksQueue = this.queues.webhooks.queue;

    this.api = new Api(this, "Api", {
      ...common,
      table,
      bucket,
      jobsQueue,
      webhooksQueue,
      throttle: { rateLimit: c.apiRateLimit, burstLimit: c.apiBurstLimit },
      domain: c.domainName && c.certificateArn ? { name: c.domainName, certificateArn: c.certificateArn } : undefined,
    });

    this.fleet = new SolverFleet(this, "SolverFleet", {
      ...common,
      table,
      bucket,
      jobsQueue,
      webhooksQueue,
      task: { cpu: c.solverCpu, memoryMiB: c.solverMemoryMib, architecture: c.solverArchitecture },
      maxRunningTasks: c.maxRunningSolverTasks,
      killGraceSeconds: c.killGraceSeconds,
    });

    this.webhooks = new Webhooks(this, "Webhooks", {
      ...common,
      table,
      bucket,
      webhooksQueue,
      webhooksDlq: this.queues.webhooks.dlq,
      reservedConcurrency: c.webhookReservedConcurrency,
    });

    this.sweeper = new Sweeper(this, "Sweeper", {
      ...common,
      table,
      bucket,
      webhooksQueue,
      intervalMinutes: c.sweepIntervalMinutes,
      staleQueuedSeconds: staleQueuedSeconds(c),
      cluster: { arn: this.fleet.cluster.clusterArn, access: this.fleet.access, startedBy: this.fleet.startedBy, containerName: SOLVER_CONTAINER_NAME },
    });

    const outputs: Record<string, string> = {
      ApiUrl: this.api.url,
      TableName: table.tableName,
      BlobBucket: bucket.bucketName,
      JobsQueueUrl: jobsQueue.queueUrl,
      JobsDlqUrl: this.queues.jobs.dlq.queueUrl,
      WebhooksQueueUrl: webhooksQueue.queueUrl,
      WebhooksDlqUrl: this.queues.webhooks.dlq.queueUrl,
      SolverClusterName: this.fleet.cluster.clusterName,
      JwtSecretArn: this.api.jwtSecret.secretArn,
      AlarmTopicArn: this.queues.alarmTopic.topicArn,
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }
}
