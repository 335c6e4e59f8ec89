import { Annotations, CfnOutput, Duration, Stack, Tags, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { componentServiceName } from "../functions/core/observability/metric-names.js";
import { ServiceAlarms } from "./alarms.js";
import { Api } from "./api.js";
import { ServiceDashboard } from "./dashboard.js";
import { Data } from "./data.js";
import { FleetScaling } from "./fleet-scaling.js";
import { Queues } from "./queues.js";
import type { ServiceFunction } from "./service-function.js";
import { SolverFleet } from "./solver-fleet.js";
import { jobsVisibilitySeconds, staleQueuedSeconds, stageNeeds, type StageConfig } from "./stage.js";
import { Sweeper } from "./sweeper.js";
import { WEBHOOK_FUNCTION_TIMEOUT_SECONDS, Webhooks } from "./webhooks.js";

export interface IncumbentStackProps extends StackProps {
  config: StageConfig;
}

/** The solvers every task image carries (solver-container/Dockerfile), before a worker reports its own. */
const FLEET_SOLVERS = "scip,highs,cbc,glpk,jaos";

/**
 * One stage of Incumbent (the picture in docs/deploy.md): data, queues, API, the warm solver fleet and
 * its scaling, webhooks, sweeper, alarms. Each construct grants its own functions exactly what they
 * call; this class only passes resources along and fixes the settings several of them must agree on.
 * A stage without the fleet (`fleet: false`, LocalStack community) has everything else; its workers
 * run on a host.
 */
export class IncumbentStack extends Stack {
  readonly config: StageConfig;
  readonly data: Data;
  readonly queues: Queues;
  readonly api: Api;
  readonly fleet?: SolverFleet;
  readonly fleetScaling?: FleetScaling;
  readonly webhooks: Webhooks;
  readonly sweeper: Sweeper;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;

  constructor(scope: Construct, id: string, props: IncumbentStackProps) {
    super(scope, id, props);
    const c = props.config;
    this.config = c;
    Tags.of(this).add("project", "incumbent");
    Tags.of(this).add("stage", c.stage);
    // What the stage needs of its account (checked against the stated quotas in stage.ts), and the
    // API's throttles derived from the concurrency it gets.
    const needs = stageNeeds(c);
    if (c.fleet && c.accountFargateVcpu === undefined) {
      Annotations.of(this).addInfo(
        `the fleet's maximum needs ${needs.fargateOnDemandVcpu} Fargate On-Demand vCPU${needs.fargateSpotVcpu ? ` and ${needs.fargateSpotVcpu} Spot vCPU` : ""}; set accountFargateVcpu to check it against the account's quota`,
      );
    }

    // Settings every handler and the worker read through functions/core/config.ts.
    const shared: Record<string, string> = {
      STAGE: c.stage,
      INSTANCE_MAX_SOLVE_TIME_SECONDS: String(c.maxSolveTimeSeconds),
      INSTANCE_MAX_DAILY_SOLVES: String(c.maxDailySolves),
      INSTANCE_MAX_VARIABLES: String(c.maxVariables),
      INSTANCE_MAX_CONSTRAINTS: String(c.maxConstraints),
      INSTANCE_MAX_NONZEROS: String(c.maxNonzeros),
      MAX_REQUEST_BODY_MB: String(c.maxRequestBodyMb),
      KILL_GRACE_SECONDS: String(c.killGraceSeconds),
      // The sweeper's period, which the worker's message visibility also allows for (two sweeps).
      SWEEP_INTERVAL_SECONDS: String(60 * c.sweepIntervalMinutes),
      FLEET_SOLVERS,
      ...(c.awsEndpointUrl ? { AWS_ENDPOINT_URL: c.awsEndpointUrl } : {}),
    };
    const common = { namePrefix: c.namePrefix, production: c.production, logRetentionDays: c.logRetentionDays, environment: shared };

    this.data = new Data(this, "Data", {
      namePrefix: c.namePrefix,
      production: c.production,
      blobExpirationDays: c.blobExpirationDays,
      accessLogRetentionDays: c.logRetentionDays,
    });
    const { table, bucket } = this.data;

    this.queues = new Queues(this, "Queues", {
      namePrefix: c.namePrefix,
      production: c.production,
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
    const jobBands = { high: this.queues.jobsHigh.queue, low: this.queues.jobsLow.queue };
    const webhooksQueue = this.queues.webhooks.queue;

    this.api = new Api(this, "Api", {
      ...common,
      // The health check's solver component: with no live worker, a fleet that may idle at zero reads
      // `idle` (healthy), one that keeps tasks reads `down`. Without a fleet in the stack (LocalStack),
      // workers run on a host the stack cannot count on.
      environment: { ...shared, FLEET_MIN_WORKERS: String(c.fleet ? c.minRunningSolverTasks : 0) },
      table,
      bucket,
      jobsQueue,
      jobBands,
      webhooksQueue,
      throttle: needs.apiThrottle,
      solveThrottle: needs.solveThrottle,
      domain: c.domainName && c.certificateArn ? { name: c.domainName, certificateArn: c.certificateArn } : undefined,
      mailFromAddress: c.mailFromAddress,
      operatorTokenSha256: c.operatorTokenSha256,
      apiSolveMaxNonzeros: c.apiSolveMaxNonzeros,
    });

    if (c.fleet) {
      this.fleet = new SolverFleet(this, "SolverFleet", {
        ...common,
        table,
        bucket,
        jobsQueue,
        jobBands,
        webhooksQueue,
        task: { cpu: c.solverCpu, memoryMiB: c.solverMemoryMib, architecture: c.solverArchitecture },
        minTasks: c.minRunningSolverTasks,
        maxTasks: c.maxRunningSolverTasks,
        spot: c.solverSpot,
        stopTimeoutSeconds: c.workerStopTimeoutSeconds,
        createServiceLinkedRoles: c.createServiceLinkedRoles,
      });
      this.fleetScaling = new FleetScaling(this, "FleetScaling", {
        namePrefix: c.namePrefix,
        production: c.production,
        fleet: this.fleet,
        jobsQueue,
        jobBands,
        alarmTopic: this.queues.alarmTopic,
        logRetentionDays: c.logRetentionDays,
        awsEndpointUrl: c.awsEndpointUrl,
        minTasks: c.minRunningSolverTasks,
        maxTasks: c.maxRunningSolverTasks,
        backlogPerTaskTarget: c.backlogPerTaskTarget,
      });
    }

    this.webhooks = new Webhooks(this, "Webhooks", {
      ...common,
      table,
      bucket,
      webhooksQueue,
      webhooksDlq: this.queues.webhooks.dlq,
      reservedConcurrency: c.webhookReservedConcurrency,
      maxConcurrency: c.webhookMaxConcurrency,
      webhookKey: this.api.webhookKey,
    });

    this.sweeper = new Sweeper(this, "Sweeper", {
      ...common,
      table,
      bucket,
      webhooksQueue,
      jobsQueue,
      jobBands,
      intervalMinutes: c.sweepIntervalMinutes,
      staleQueuedSeconds: staleQueuedSeconds(c),
    });

    const functions: Record<string, ServiceFunction> = { api: this.api.handler, webhook: this.webhooks.handler, sweeper: this.sweeper.handler };
    if (this.fleetScaling) functions["fleet-monitor"] = this.fleetScaling.monitor;
    this.alarms = new ServiceAlarms(this, "Alarms", {
      namePrefix: c.namePrefix,
      alarmTopic: this.queues.alarmTopic,
      httpApi: this.api.httpApi,
      functions,
      apiTimeout: this.api.handler.fn.timeout!,
      table,
      tableIndexes: this.data.indexNames,
      scheduleGroup: this.api.scheduleGroup,
      sweeperService: this.sweeper.handler.name,
      accountLambdaConcurrency: c.accountLambdaConcurrency,
    });

    this.dashboard = new ServiceDashboard(this, "Dashboard", {
      namePrefix: c.namePrefix,
      httpApi: this.api.httpApi,
      apiTimeout: this.api.handler.fn.timeout!,
      functions,
      queues: {
        high: this.queues.jobsHigh,
        normal: this.queues.jobs,
        low: this.queues.jobsLow,
        webhooks: this.queues.webhooks,
      },
      fleet: this.fleet ? { serviceName: this.fleet.service.serviceName, maxTasks: c.maxRunningSolverTasks } : undefined,
      services: {
        worker: componentServiceName(c.namePrefix, "worker"),
        api: this.api.handler.name,
        sweeper: this.sweeper.handler.name,
      },
      accountLambdaConcurrency: c.accountLambdaConcurrency,
    });

    const outputs: Record<string, string> = {
      ApiUrl: this.api.url,
      TableName: table.tableName,
      BlobBucket: bucket.bucketName,
      JobsQueueUrl: jobsQueue.queueUrl,
      JobsDlqUrl: this.queues.jobs.dlq.queueUrl,
      JobsHighQueueUrl: this.queues.jobsHigh.queue.queueUrl,
      JobsHighDlqUrl: this.queues.jobsHigh.dlq.queueUrl,
      JobsLowQueueUrl: this.queues.jobsLow.queue.queueUrl,
      JobsLowDlqUrl: this.queues.jobsLow.dlq.queueUrl,
      WebhooksQueueUrl: webhooksQueue.queueUrl,
      WebhooksDlqUrl: this.queues.webhooks.dlq.queueUrl,
      ...(this.fleet ? { SolverClusterName: this.fleet.cluster.clusterName, SolverServiceName: this.fleet.service.serviceName } : {}),
      JwtSecretArn: this.api.jwtSecret.secretArn,
      AlarmTopicArn: this.queues.alarmTopic.topicArn,
      // What this stage needs of its account's quotas (docs/deploy.md, New accounts).
      LambdaConcurrencyNeeded: String(needs.lambdaConcurrency),
      ...(c.fleet ? { FargateVcpuNeeded: String(needs.fargateOnDemandVcpu), FargateSpotVcpuNeeded: String(needs.fargateSpotVcpu) } : {}),
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }
}
