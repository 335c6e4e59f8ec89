import { ArnFormat, Duration, IgnoreMode, RemovalPolicy, Size, Stack } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import * as ecs from "aws-cdk-lib/aws-ecs";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import type * as s3 from "aws-cdk-lib/aws-s3";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantBlobs, grantTableItems } from "./data.js";
import { componentServiceName } from "../functions/core/observability/metric-names.js";
import { acknowledgeFinding, acknowledgeWildcardResource } from "./nag.js";
import { REPO_ROOT } from "./service-function.js";

/**
 * The DynamoDB calls a worker makes (leases, results, counters, trigger runs, the inventory record, and
 * the DeleteItem of a scheduled run whose trigger was deleted meanwhile, functions/core/triggers/runs.ts),
 * and the Query of the fair share's parked jobs (functions/core/queue/fair-share-store.ts): no
 * BatchWriteItem, no DescribeTable.
 */
export const WORKER_TABLE_ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:DeleteItem"] as const;
/** What a worker does with the band queues: poll, extend its claim, delete when done. */
export const WORKER_JOBS_QUEUE_ACTIONS = ["sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"] as const;

export interface SolverFleetProps {
  namePrefix: string;
  production: boolean;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  jobsQueue: sqs.IQueue;
  /** The high and low priority bands' queues (jobsQueue is the normal band); workers poll all three. */
  jobBands: { high: sqs.IQueue; low: sqs.IQueue };
  webhooksQueue: sqs.IQueue;
  /** Settings every handler shares (stage, table, caps…), set by the stack. */
  environment: Record<string, string>;
  task: { cpu: number; memoryMiB: number; architecture: "x86_64" | "arm64" };
  /** Tasks kept running when idle, and the most running at once. */
  minTasks: number;
  maxTasks: number;
  /** Tasks above `minTasks` run on Fargate Spot. */
  spot: boolean;
  /** SIGTERM → SIGKILL: the container's stopTimeout and the worker's WORKER_STOP_TIMEOUT_SECONDS, one number. */
  stopTimeoutSeconds: number;
  /** A new account: create ECS's and Application Auto Scaling's service-linked roles (stage.ts). */
  createServiceLinkedRoles?: boolean;
  logRetentionDays: number;
}

/** The container's name in the task definition. */
export const SOLVER_CONTAINER_NAME = "solver";

/** Where the worker keeps its liveness file in the task, and the most its age may be. */
export const WORKER_LIVENESS_FILE = "/tmp/incumbent-worker-alive";
export const WORKER_LIVENESS_MAX_AGE_SECONDS = 60;

/**
 * The container health check, in one place: the task definition uses it and the Dockerfile's
 * HEALTHCHECK repeats it (a test keeps them equal). It is the worker's heartbeat age: the worker moves
 * its liveness file every 10 s while its loop makes progress (solver-container/src/liveness.ts), so a
 * hung worker — a poll that never returns, a blocked event loop — turns UNHEALTHY and ECS replaces the
 * task. A job's own liveness is its lease in DynamoDB, which the sweeper watches.
 */
export const SOLVER_HEALTHCHECK = `test $(( $(date +%s) - $(stat -c %Y ${WORKER_LIVENESS_FILE}) )) -lt ${WORKER_LIVENESS_MAX_AGE_SECONDS}`;

/** The X-Ray daemon beside the worker (it forwards the worker's trace segments; AWS's image). */
export const XRAY_DAEMON_IMAGE = "public.ecr.aws/xray/aws-xray-daemon:3.x";
/** What the daemon does with the task role: send segments and telemetry, read the sampling rules. */
export const XRAY_DAEMON_ACTIONS = [
  "xray:PutTraceSegments",
  "xray:PutTelemetryRecords",
  "xray:GetSamplingRules",
  "xray:GetSamplingTargets",
  "xray:GetSamplingStatisticSummaries",
] as const;

/** The worker's command, identical to the local stack's (bin/local/worker-fleet.ts) and `npm run worker`'s. */
export const WORKER_COMMAND = ["node", "solver-container/dist/worker.js"];

/**
 * The warm solver fleet: an ECS service of long-lived Fargate tasks, each running the worker that
 * long-polls the jobs queue (solver-container/src/worker.ts). How many run is Service Auto Scaling's
 * business (lib/fleet-scaling.ts); a worker holding a job protects its task from scale-in through the
 * ECS agent, which calls `ecs:UpdateTaskProtection` with the task role's credentials.
 *
 * Network: a VPC of public subnets and no NAT gateway (a NAT costs more per month than a small fleet);
 * tasks get a public address for ECR, CloudWatch Logs and SQS, accept no inbound traffic, may only
 * leave on 443, and reach DynamoDB and S3 through free gateway endpoints.
 */
export class SolverFleet extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  readonly service: ecs.FargateService;
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: SolverFleetProps) {
    super(scope, id);
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.vpc = new ec2.Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: "public", subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
    });
    // Refused traffic in and out of the fleet's network: the record to read when a task cannot reach
    // an AWS API, or something knocks. Rejections only, so the log stays small.
    this.vpc.addFlowLog("RejectedTraffic", {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, "FlowLogs", {
          logGroupName: `/vpc/${props.namePrefix}-solvers`,
          retention: props.logRetentionDays as logs.RetentionDays,
          removalPolicy,
        }),
      ),
      trafficType: ec2.FlowLogTrafficType.REJECT,
    });
    this.securityGroup = new ec2.SecurityGroup(this, "TaskSecurityGroup", {
      vpc: this.vpc,
      description: "Solver tasks: no inbound, HTTPS out to AWS APIs only",
      allowAllOutbound: false,
    });
    this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), "AWS APIs (ECR, Logs, SQS, DynamoDB, S3)");

    this.cluster = new ecs.Cluster(this, "Cluster", { clusterName: `${props.namePrefix}-solvers`, vpc: this.vpc, enableFargateCapacityProviders: true });
    acknowledgeFinding(
      this.cluster,
      "AwsSolutions-ECS4",
      "No Container Insights (charged per metric and log volume): the fleet monitor publishes what scaling and alarms need, each task's heartbeat is its health, and the workers' EMF metrics fill the dashboard.",
    );

    this.logGroup = new logs.LogGroup(this, "Logs", {
      logGroupName: `/ecs/${props.namePrefix}-solver`,
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy,
    });

    this.taskDefinition = new ecs.FargateTaskDefinition(this, "Task", {
      family: `${props.namePrefix}-solver`,
      cpu: props.task.cpu,
      memoryLimitMiB: props.task.memoryMiB,
      runtimePlatform: {
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
        cpuArchitecture: props.task.architecture === "arm64" ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64,
      },
    });

    const vcpus = Math.max(1, Math.floor(props.task.cpu / 1024));
    this.container = this.taskDefinition.addContainer("Solver", {
      containerName: SOLVER_CONTAINER_NAME,
      // `cdk synth` only stages this build context (filtered by the repository's .dockerignore);
      // the image is built and pushed by `cdk deploy`, never by synth.
      image: ecs.ContainerImage.fromAsset(REPO_ROOT, {
        file: "solver-container/Dockerfile",
        ignoreMode: IgnoreMode.DOCKER,
        platform: props.task.architecture === "arm64" ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
      }),
      command: WORKER_COMMAND.slice(),
      essential: true,
      environment: {
        ...props.environment,
        AWS_REGION: Stack.of(this).region,
        TABLE_NAME: props.table.tableName,
        BLOB_BUCKET: props.bucket.bucketName,
        JOBS_QUEUE_URL: props.jobsQueue.queueUrl,
        JOBS_HIGH_QUEUE_URL: props.jobBands.high.queueUrl,
        JOBS_LOW_QUEUE_URL: props.jobBands.low.queueUrl,
        WEBHOOKS_QUEUE_URL: props.webhooksQueue.queueUrl,
        WORKER_STOP_TIMEOUT_SECONDS: String(props.stopTimeoutSeconds),
        SOLVER_THREADS: String(vcpus),
        // Each solving process's ceiling: the task's memory less room for the worker and the Python host.
        SOLVER_MEMORY_MB: String(Math.max(256, props.task.memoryMiB - 768)),
        SOLVER_PYTHON: "/app/.venv/bin/python",
        WORKER_LIVENESS_FILE,
        // The worker's logs' `service` and its metrics' dimension (functions/core/observability/metric-names.ts).
        POWERTOOLS_SERVICE_NAME: componentServiceName(props.namePrefix, "worker"),
        MACHINE_NOTE: `AWS Fargate ${props.task.architecture}, ${props.task.cpu / 1024} vCPU, ${props.task.memoryMiB / 1024} GiB`,
      },
      logging: ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix: "worker",
        // A burst of solver output must never block the solve; CloudWatch may drop lines instead.
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
        maxBufferSize: Size.mebibytes(25),
      }),
      healthCheck: {
        command: ["CMD-SHELL", `${SOLVER_HEALTHCHECK} || exit 1`],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        retries: 3,
        // The worker warms its solvers before its loop starts; failures until then do not count.
        startPeriod: Duration.seconds(180),
      },
      // An init process reaps the solver processes the worker starts and forwards ECS's SIGTERM.
      linuxParameters: new ecs.LinuxParameters(this, "Linux", { initProcessEnabled: true }),
      stopTimeout: Duration.seconds(props.stopTimeoutSeconds),
    });

    // X-Ray: the worker sends one segment per job to this daemon (UDP 2000 on the task's loopback).
    this.taskDefinition.addContainer("XRayDaemon", {
      containerName: "xray-daemon",
      image: ecs.ContainerImage.fromRegistry(XRAY_DAEMON_IMAGE),
      essential: false,
      cpu: 32,
      memoryReservationMiB: 64,
      portMappings: [{ containerPort: 2000, protocol: ecs.Protocol.UDP }],
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: "xray", mode: ecs.AwsLogDriverMode.NON_BLOCKING }),
    });
    acknowledgeFinding(
      this.taskDefinition,
      "AwsSolutions-ECS2",
      "The container's environment holds settings and resource names only; the worker needs no secret (the assembly test fails if the task definition names one).",
    );
    acknowledgeWildcardResource(
      this.taskDefinition.obtainExecutionRole(),
      "*",
      "ecr:GetAuthorizationToken has no resource type (account-wide by design); the image pulls themselves are scoped to the asset repository.",
    );
    const taskRole = this.taskDefinition.taskRole;
    taskRole.addToPrincipalPolicy(new iam.PolicyStatement({ sid: "XRayDaemon", actions: [...XRAY_DAEMON_ACTIONS], resources: ["*"] }));
    acknowledgeWildcardResource(taskRole, "*", "The X-Ray daemon's actions (segments, telemetry, sampling rules) have no resource type.");
    grantTableItems(props.table, taskRole, WORKER_TABLE_ACTIONS);
    // Reads problems; writes results and log chunks, a comparison's model names, a trigger run's problem,
    // outcome and webhook body. A result written by an attempt that then lost its lease is referenced by
    // nothing: the worker takes it back. Results only: a problem or a document is never its to delete.
    grantBlobs(props.bucket, taskRole, {
      read: true,
      write: ["comparisons/", "problems/", "results/", "runs/", "webhooks/"],
      delete: ["results/"],
    });
    for (const queue of [props.jobsQueue, props.jobBands.high, props.jobBands.low]) queue.grant(taskRole, ...WORKER_JOBS_QUEUE_ACTIONS);
    // A finished trigger run hands its result to the webhook queue.
    props.webhooksQueue.grant(taskRole, "sqs:SendMessage");
    // A fired schedule's run is recorded by a worker and queued on its trigger's band.
    for (const queue of [props.jobsQueue, props.jobBands.high, props.jobBands.low]) queue.grant(taskRole, "sqs:SendMessage");
    // Scale-in protection: the worker asks the ECS agent (PUT $ECS_AGENT_URI/task-protection/v1/state),
    // and the agent calls UpdateTaskProtection signed with this role's credentials. Without the right
    // every call fails and scale-in and deployments stop busy tasks. IAM cannot say "its own task":
    // the cluster's tasks are the narrowest resource.
    const clusterTasks = Stack.of(this).formatArn({
      service: "ecs",
      resource: "task",
      resourceName: `${this.cluster.clusterName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    acknowledgeWildcardResource(
      taskRole,
      clusterTasks,
      "A task's ARN is known only once it runs and IAM cannot say 'its own task': the cluster's tasks are the narrowest resource.",
    );
    taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "ProtectOwnTaskFromScaleIn",
        actions: ["ecs:UpdateTaskProtection"],
        resources: [clusterTasks],
      }),
    );

    this.service = new ecs.FargateService(this, "Service", {
      serviceName: `${props.namePrefix}-solver`,
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      // No desired count: CloudFormation starts the service with one task and later deployments leave
      // the count to Service Auto Scaling instead of resetting it.
      assignPublicIp: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [this.securityGroup],
      // A deployment whose tasks keep failing to start rolls back instead of retrying for hours.
      circuitBreaker: { enable: true, rollback: true },
      // New tasks start before old ones stop, so a deployment never empties a warm fleet.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      capacityProviderStrategies: capacityStrategy({ spot: props.spot, minTasks: props.minTasks }),
      propagateTags: ecs.PropagatedTagSource.SERVICE,
    });
    if (props.createServiceLinkedRoles) {
      // ECS acts for the service (network interfaces, the load of tasks) through its service-linked role,
      // and Service Auto Scaling through its own; a new account has neither until something creates them.
      for (const [id, service] of [
        ["EcsServiceLinkedRole", "ecs.amazonaws.com"],
        ["AutoScalingServiceLinkedRole", "ecs.application-autoscaling.amazonaws.com"],
      ] as const) {
        const role = new iam.CfnServiceLinkedRole(this, id, {
          awsServiceName: service,
          description: `Incumbent (${props.namePrefix}): created for a new account`,
        });
        this.service.node.addDependency(role);
      }
    }
  }
}

/** Without Spot, regular Fargate; with Spot, the warm minimum on regular Fargate (never interrupted) and the rest on Spot. */
export function capacityStrategy({ spot, minTasks }: { spot: boolean; minTasks: number }): ecs.CapacityProviderStrategy[] {
  if (!spot) return [{ capacityProvider: "FARGATE", weight: 1 }];
  const spotTasks: ecs.CapacityProviderStrategy = { capacityProvider: "FARGATE_SPOT", weight: 1 };
  return minTasks > 0 ? [{ capacityProvider: "FARGATE", base: minTasks, weight: 0 }, spotTasks] : [spotTasks];
}
