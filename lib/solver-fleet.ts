import { Duration, IgnoreMode, RemovalPolicy, Size, Stack } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import * as ecs from "aws-cdk-lib/aws-ecs";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import type * as s3 from "aws-cdk-lib/aws-s3";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantBlobs, grantTableItems } from "./data.js";
import { SolverClusterAccess } from "./ecs-permissions.js";
import { REPO_ROOT, ServiceFunction } from "./service-function.js";
import { DISPATCHER_TIMEOUT_SECONDS } from "./stage.js";

export interface SolverFleetProps {
  namePrefix: string;
  production: boolean;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  jobsQueue: sqs.IQueue;
  webhooksQueue: sqs.IQueue;
  /** Settings every handler shares (stage, table, caps…), set by the stack. */
  environment: Record<string, string>;
  task: { cpu: number; memoryMiB: number; architecture: "x86_64" | "arm64" };
  maxRunningTasks: number;
  logRetentionDays: number;
  /** Seconds the worker waits after a solver's time limit before killing it (KILL_GRACE_SECONDS). */
  killGraceSeconds: number;
}

/** The container's name in the task definition; RunTask overrides address it by this name. */
export const SOLVER_CONTAINER_NAME = "solver";

/**
 * The container health check, in one place: the task definition uses it and the Dockerfile's
 * HEALTHCHECK repeats it (a test keeps them equal). It proves the solver toolchain is in place; a job's
 * own liveness is its lease in DynamoDB, which the sweeper watches.
 */
export const SOLVER_HEALTHCHECK = 'command -v cbc >/dev/null && command -v glpsol >/dev/null && test -x "$SOLVER_PYTHON"';

/** The worker's command, identical to the local stack's (bin/local/worker-pool.ts) and CI's. */
export const WORKER_COMMAND = ["node", "solver-container/dist/worker.js"];

/**
 * The solver fleet: a Fargate task per job, started by the dispatcher Lambda from the jobs queue.
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
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;
  readonly dispatcher: ServiceFunction;
  readonly access: SolverClusterAccess;
  /** `startedBy` of every task the dispatcher starts: counting and reaping look only at these. */
  readonly startedBy: string;

  constructor(scope: Construct, id: string, props: SolverFleetProps) {
    super(scope, id);
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.startedBy = `${props.namePrefix}-dispatcher`;

    this.vpc = new ec2.Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: "public", subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
    });
    this.securityGroup = new ec2.SecurityGroup(this, "TaskSecurityGroup", {
      vpc: this.vpc,
      description: "Solver tasks: no inbound, HTTPS out to AWS APIs only",
      allowAllOutbound: false,
    });
    this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), "AWS APIs (ECR, Logs, SQS, DynamoDB, S3)");

    this.cluster = new ecs.Cluster(this, "Cluster", { clusterName: `${props.namePrefix}-solvers`, vpc: this.vpc });

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
        WEBHOOKS_QUEUE_URL: props.webhooksQueue.queueUrl,
        SOLVER_THREADS: String(vcpus),
        // Each solving process's ceiling: the task's memory less room for the worker and the Python host.
        SOLVER_MEMORY_MB: String(Math.max(256, props.task.memoryMiB - 768)),
        SOLVER_PYTHON: "/app/.venv/bin/python",
        MACHINE_NOTE: `AWS Fargate ${props.task.architecture}, ${props.task.cpu / 1024} vCPU, ${props.task.memoryMiB / 1024} GiB`,
      },
      logging: ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix: "job",
        // A burst of solver output must never block the solve; CloudWatch may drop lines instead.
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
        maxBufferSize: Size.mebibytes(25),
      }),
      healthCheck: {
        command: ["CMD-SHELL", `${SOLVER_HEALTHCHECK} || exit 1`],
        interval: Duration.seconds(60),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(60),
      },
      // An init process reaps the solver processes the worker starts and forwards StopTask's SIGTERM.
      linuxParameters: new ecs.LinuxParameters(this, "Linux", { initProcessEnabled: true }),
      stopTimeout: Duration.seconds(Math.min(120, Math.max(10, props.killGraceSeconds * 2))),
    });

    const taskRole = this.taskDefinition.taskRole;
    grantTableItems(props.table, taskRole);
    // Reads the problem, writes the solution.
    grantBlobs(props.bucket, taskRole, { write: true });
    // A finished trigger run hands its result to the webhook queue.
    props.webhooksQueue.grantSendMessages(taskRole);

    this.access = new SolverClusterAccess(this.cluster, this.taskDefinition);

    this.dispatcher = new ServiceFunction(this, "Dispatcher", {
      entry: "functions/dispatcher/lambda.ts",
      functionName: `${props.namePrefix}-dispatcher`,
      description: "Solve-jobs queue → ECS RunTask, bounded by MAX_RUNNING_SOLVER_TASKS",
      memorySize: 256,
      timeout: Duration.seconds(DISPATCHER_TIMEOUT_SECONDS),
      logRetentionDays: props.logRetentionDays,
      removalPolicy,
      environment: {
        // The dispatcher reads no shared setting, only where ECS is (LocalStack) and its own below.
        ...(props.environment.AWS_ENDPOINT_URL ? { AWS_ENDPOINT_URL: props.environment.AWS_ENDPOINT_URL } : {}),
        SOLVER_CLUSTER_ARN: this.cluster.clusterArn,
        SOLVER_TASK_DEFINITION_ARN: this.taskDefinition.taskDefinitionArn,
        SOLVER_CONTAINER_NAME: SOLVER_CONTAINER_NAME,
        SOLVER_SUBNET_IDS: this.vpc.publicSubnets.map((s) => s.subnetId).join(","),
        SOLVER_SECURITY_GROUP_IDS: this.securityGroup.securityGroupId,
        SOLVER_ASSIGN_PUBLIC_IP: "true",
        MAX_RUNNING_SOLVER_TASKS: String(props.maxRunningTasks),
        SOLVER_STARTED_BY: this.startedBy,
        // A job that finds the fleet full is sent again with this delay (see functions/dispatcher/handler.ts).
        JOBS_QUEUE_URL: props.jobsQueue.queueUrl,
        CAPACITY_RETRY_SECONDS: "30",
      },
    });
    this.access.grantRunTask(this.dispatcher.role);
    props.jobsQueue.grantSendMessages(this.dispatcher.role);
    this.dispatcher.fn.addEventSource(
      new SqsEventSource(props.jobsQueue, {
        // Small batches: each record is a ListTasks count plus a RunTask, done one after another.
        batchSize: 5,
        maxBatchingWindow: Duration.seconds(1),
        // A failed launch returns only its own message to the queue.
        reportBatchItemFailures: true,
        // Two concurrent dispatchers at most (the lowest SQS allows): each counts running tasks just
        // before its RunTask, so a race between the two can overshoot the maximum by one task, no more.
        maxConcurrency: 2,
      }),
    );
  }
}
