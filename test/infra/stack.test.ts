import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { TABLE_ACTIONS } from "../../lib/data.js";
import { SOLVER_CONTAINER_NAME, SOLVER_HEALTHCHECK, WORKER_COMMAND } from "../../lib/solver-fleet.js";
import { longestJobSeconds, staleQueuedSeconds } from "../../lib/stage.js";
import { TABLE_KEYS } from "../../functions/core/store/dynamo.js";
import { REPO_ROOT } from "../support/machine.js";
import { configVariableNames, envReadsOf, synthesize, type Synthesized } from "./synthesize.js";
import {
  alarmViolations,
  identityStatements,
  redriveViolations,
  refTarget,
  referencedIds,
  resourcesOfType,
  visibilityViolations,
  wildcardViolations,
  type Json,
  type Template,
} from "./template-guards.js";

let dev: Synthesized;
let prod: Synthesized;

beforeAll(() => {
  dev = synthesize("dev");
  prod = synthesize("prod", { alarmEmail: "ops@example.com" });
}, 120_000);

/** Our function named `<prefix>-<name>`: its logical id, properties and role's statements. */
function fn(s: Synthesized, name: string) {
  const entry = resourcesOfType(s.json, "AWS::Lambda::Function").find(([, f]) => f.Properties.FunctionName === `${s.config.namePrefix}-${name}`);
  if (!entry) throw new Error(`no function ${name}`);
  const [id, f] = entry;
  const roleId = refTarget(f.Properties.Role)!;
  const statements = identityStatements(s.json).filter((st) => st.roles.includes(roleId));
  return { id, props: f.Properties, env: (f.Properties.Environment?.Variables ?? {}) as Record<string, Json>, roleId, statements };
}
const OUR_FUNCTIONS = ["api", "dispatcher", "webhook", "sweeper"];
const idOf = (s: Synthesized, type: string, name: string, key = "QueueName") =>
  resourcesOfType(s.json, type).find(([, r]) => r.Properties?.[key] === name)?.[0] ?? "";
const actionsOf = (statements: { Action: string[] }[]) => new Set(statements.flatMap((s) => s.Action));
const clone = (t: Template): Template => JSON.parse(JSON.stringify(t));

describe("queues: DLQs, redrive, visibility, alarms", () => {
  it("every queue a Lambda consumes redrives to a DLQ of the stack, and the guard catches a dropped one", () => {
    expect(redriveViolations(dev.json)).toEqual([]);
    const broken = clone(dev.json);
    delete broken.Resources[idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs")]!.Properties.RedrivePolicy;
    expect(redriveViolations(broken)).toEqual([expect.stringContaining("no redrive policy")]);
  });

  it("the jobs queue's visibility outlasts the longest job (8 solvers × (ceiling + grace) + start-up), in every stage", () => {
    for (const s of [dev, prod]) {
      const longest = longestJobSeconds(s.config);
      expect(longest).toBeGreaterThan(s.config.maxSolveTimeSeconds + s.config.killGraceSeconds);
      expect(visibilityViolations(s.json, `${s.config.namePrefix}-jobs`, longest)).toEqual([]);
    }
    const broken = clone(dev.json);
    broken.Resources[idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs")]!.Properties.VisibilityTimeout = dev.config.maxSolveTimeSeconds - 1;
    expect(visibilityViolations(broken, "incumbent-dev-jobs", longestJobSeconds(dev.config))).toEqual([expect.stringContaining("< the longest job")]);
  });

  it("a longer solve ceiling lengthens the visibility with it, and one SQS cannot hold is refused", () => {
    const long = synthesize("dev", { maxSolveTimeSeconds: 3600 });
    expect(visibilityViolations(long.json, "incumbent-dev-jobs", 8 * 3605)).toEqual([]);
    expect(() => synthesize("dev", { maxSolveTimeSeconds: 6000 })).toThrow(/12-hour visibility/);
  });

  it("the webhook queue's visibility is six consumer timeouts, each covering the 30 s delivery timeout", () => {
    const webhook = fn(dev, "webhook");
    expect(webhook.props.Timeout).toBeGreaterThan(Number(webhook.env.WEBHOOK_TIMEOUT_SECONDS));
    const queue = dev.json.Resources[idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks")]!;
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * webhook.props.Timeout);
  });

  it("DLQ depth and oldest-message age are alarmed, to a topic with the stage's e-mail subscription", () => {
    expect(alarmViolations(dev.json)).toEqual([]);
    expect(resourcesOfType(dev.json, "AWS::CloudWatch::Alarm")).toHaveLength(4);
    prod.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    const broken = clone(dev.json);
    for (const [id, a] of resourcesOfType(broken, "AWS::CloudWatch::Alarm"))
      if (a.Properties.MetricName === "ApproximateNumberOfMessagesVisible") delete broken.Resources[id];
    expect(alarmViolations(broken)).toHaveLength(2);
  });

  it("the sweeper fails a queued job only after SQS can no longer deliver it", () => {
    const sweeper = fn(dev, "sweeper");
    const jobs = dev.json.Resources[idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs")]!.Properties;
    expect(Number(sweeper.env.STALE_QUEUED_SECONDS)).toBe(staleQueuedSeconds(dev.config));
    expect(Number(sweeper.env.STALE_QUEUED_SECONDS)).toBeGreaterThan(jobs.VisibilityTimeout * jobs.RedrivePolicy.maxReceiveCount);
    expect(jobs.MessageRetentionPeriod).toBeGreaterThan(jobs.VisibilityTimeout * jobs.RedrivePolicy.maxReceiveCount);
  });

  it("the dispatcher and the webhook Lambda report failures per message", () => {
    const mappings = resourcesOfType(dev.json, "AWS::Lambda::EventSourceMapping").map(([, m]) => m.Properties);
    expect(mappings).toHaveLength(2);
    for (const m of mappings) expect(m.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    const dispatcherMapping = mappings.find((m) => refTarget(m.FunctionName) === fn(dev, "dispatcher").id);
    expect(refTarget(dispatcherMapping.EventSourceArn)).toBe(idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs"));
  });
});

describe("IAM: least privilege per function", () => {
  it('no statement allows "*" resources beyond the documented exceptions, and the guard catches a widened one', () => {
    for (const s of [dev, prod]) expect(wildcardViolations(s.json)).toEqual([]);
    const broken = clone(dev.json);
    const [, policy] = resourcesOfType(broken, "AWS::IAM::Policy").find(([id]) => id.startsWith("ApiHandler"))!;
    policy.Properties.PolicyDocument.Statement.find((st: Json) => [st.Action].flat().includes("dynamodb:GetItem")).Resource = "*";
    const widened = wildcardViolations(broken);
    expect(widened).toHaveLength(TABLE_ACTIONS.length);
    for (const v of widened) expect(v).toMatch(/dynamodb:\w+ on Resource "\*"/);
    const noCondition = clone(dev.json);
    for (const [, p] of resourcesOfType(noCondition, "AWS::IAM::Policy")) for (const st of p.Properties.PolicyDocument.Statement) delete st.Condition;
    expect(wildcardViolations(noCondition).some((v) => v.includes("without a ecs:cluster condition"))).toBe(true);
  });

  it("our functions' roles carry no managed policy (log rights are scoped to their own log group)", () => {
    for (const name of OUR_FUNCTIONS) {
      const { roleId, statements } = fn(dev, name);
      expect(dev.json.Resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
      const logs = statements.filter((s) => s.Action.some((a) => a.startsWith("logs:")));
      expect(logs).toHaveLength(1);
      expect(logs[0]!.Resource).not.toContain("*");
    }
  });

  it("each role reaches only the resources its handler uses", () => {
    const table = idOf(dev, "AWS::DynamoDB::Table", "incumbent-dev", "TableName");
    const jobs = idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs");
    const webhooks = idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks");
    const [bucket] = resourcesOfType(dev.json, "AWS::S3::Bucket")[0]!;
    const [secret] = resourcesOfType(dev.json, "AWS::SecretsManager::Secret")[0]!;
    const [cluster] = resourcesOfType(dev.json, "AWS::ECS::Cluster")[0]!;
    const [taskDef] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    const taskRole = refTarget(dev.json.Resources[taskDef]!.Properties.TaskRoleArn)!;
    const executionRole = refTarget(dev.json.Resources[taskDef]!.Properties.ExecutionRoleArn)!;
    const reach = (statements: { Action: string[]; Resource: Json[] }[]) => {
      const ids = referencedIds(statements.filter((s) => !s.Action.every((a) => a.startsWith("logs:"))).map((s) => s.Resource));
      return [...ids].filter((id) => !id.startsWith("AWS::")).sort();
    };
    expect(reach(fn(dev, "api").statements)).toEqual([bucket, jobs, secret, table, webhooks].sort());
    expect(reach(fn(dev, "dispatcher").statements)).toEqual([cluster, executionRole, jobs, taskDef, taskRole].sort());
    const webhooksDlq = idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks-dlq");
    expect(reach(fn(dev, "webhook").statements)).toEqual([bucket, table, webhooks, webhooksDlq].sort());
    expect(reach(fn(dev, "sweeper").statements)).toEqual([bucket, cluster, table, webhooks].sort());
    const task = identityStatements(dev.json).filter((s) => s.roles.includes(taskRole));
    expect(reach(task)).toEqual([bucket, table, webhooks].sort());
  });

  it("grants name the actions, not families: ECS rights to the dispatcher and sweeper only, secrets to the API only", () => {
    const api = actionsOf(fn(dev, "api").statements);
    const dispatcher = actionsOf(fn(dev, "dispatcher").statements);
    const sweeper = actionsOf(fn(dev, "sweeper").statements);
    const webhook = actionsOf(fn(dev, "webhook").statements);
    expect([...dispatcher].filter((a) => a.startsWith("ecs:")).sort()).toEqual(["ecs:ListTasks", "ecs:RunTask", "ecs:TagResource"]);
    expect([...sweeper].filter((a) => a.startsWith("ecs:")).sort()).toEqual(["ecs:DescribeTasks", "ecs:ListTasks", "ecs:StopTask"]);
    for (const a of [api, webhook]) expect([...a].some((x) => x.startsWith("ecs:") || x === "iam:PassRole")).toBe(false);
    expect(api.has("secretsmanager:GetSecretValue")).toBe(true);
    for (const a of [dispatcher, sweeper, webhook]) expect([...a].some((x) => x.startsWith("secretsmanager:"))).toBe(false);
    for (const a of [api, sweeper, webhook]) {
      expect([...a].filter((x) => x.startsWith("dynamodb:")).sort()).toEqual([...TABLE_ACTIONS].sort());
    }
    expect([...webhook].filter((x) => x.startsWith("s3:")).sort()).toEqual(["s3:GetObject", "s3:ListBucket"]);
    const runTask = fn(dev, "dispatcher").statements.find((s) => s.Action.includes("ecs:RunTask"))!;
    expect(runTask.Condition?.ArnEquals?.["ecs:cluster"]).toBeDefined();
    const passRole = fn(dev, "dispatcher").statements.find((s) => s.Action.includes("iam:PassRole"))!;
    expect(passRole.Condition).toEqual({ StringEquals: { "iam:PassedToService": "ecs-tasks.amazonaws.com" } });
  });

  it("the table actions granted cover every DynamoDB command the code sends", () => {
    // Every file that talks to DynamoDB, wherever it is.
    const sources = ["functions", "solver-container/src"]
      .flatMap((dir) => (readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[]).map((f) => path.join(REPO_ROOT, dir, f)))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => readFileSync(f, "utf8"))
      .filter((text) => /from "@aws-sdk\/(lib|client)-dynamodb"/.test(text));
    expect(sources.length).toBeGreaterThan(2);
    const commands = new Set(sources.flatMap((text) => [...text.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]!)));
    const iamAction: Record<string, string | null> = {
      Get: "dynamodb:GetItem",
      Put: "dynamodb:PutItem",
      Update: "dynamodb:UpdateItem",
      Delete: "dynamodb:DeleteItem",
      Query: "dynamodb:Query",
      BatchWrite: "dynamodb:BatchWriteItem",
      DescribeTable: "dynamodb:DescribeTable",
      // Only the local stack and the tests create tables.
      CreateTable: null,
      UpdateTimeToLive: null,
    };
    for (const c of commands) {
      expect(c in iamAction, `unknown DynamoDB command ${c}: map it here and grant it in lib/data.ts`).toBe(true);
      if (iamAction[c]) expect(TABLE_ACTIONS).toContain(iamAction[c]);
    }
  });
});

describe("functions: runtime, architecture, environment", () => {
  it("every function of ours is Node 22 on ARM64, with its own log group", () => {
    for (const name of OUR_FUNCTIONS) {
      const { props } = fn(dev, name);
      expect(props.Runtime).toBe("nodejs22.x");
      expect(props.Architectures).toEqual(["arm64"]);
      expect(props.Handler).toBe("index.handler");
      expect(refTarget(props.LoggingConfig.LogGroup)).toBeDefined();
    }
  });

  it("each handler gets the variables it reads, pointing at the right resources", () => {
    const table = { Ref: idOf(dev, "AWS::DynamoDB::Table", "incumbent-dev", "TableName") };
    const jobsUrl = { Ref: idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs") };
    const webhooksUrl = { Ref: idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks") };
    const api = fn(dev, "api").env;
    expect(api).toMatchObject({ TABLE_NAME: table, JOBS_QUEUE_URL: jobsUrl, WEBHOOKS_QUEUE_URL: webhooksUrl, STAGE: "dev" });
    expect(refTarget(api.BLOB_BUCKET)).toBe(resourcesOfType(dev.json, "AWS::S3::Bucket")[0]![0]);
    expect(refTarget(api.JWT_SECRET_ARN)).toBe(resourcesOfType(dev.json, "AWS::SecretsManager::Secret")[0]![0]);
    expect(api.JWT_SECRET).toBeUndefined();
    expect(api.INSTANCE_MAX_SOLVE_TIME_SECONDS).toBe(String(dev.config.maxSolveTimeSeconds));
    expect(Number(api.MAX_REQUEST_BODY_MB)).toBeLessThanOrEqual(4);

    // The dispatcher and sweeper read their ECS settings straight from the environment: all must be set.
    const dispatcher = fn(dev, "dispatcher").env;
    for (const name of envReadsOf("functions/dispatcher/lambda.ts").filter((n) => n !== "AWS_ENDPOINT_URL")) expect(dispatcher, name).toHaveProperty(name);
    expect(dispatcher.MAX_RUNNING_SOLVER_TASKS).toBe(String(dev.config.maxRunningSolverTasks));
    expect(dispatcher.SOLVER_CONTAINER_NAME).toBe(SOLVER_CONTAINER_NAME);
    const sweeper = fn(dev, "sweeper").env;
    for (const name of envReadsOf("functions/sweeper/lambda.ts")) expect(sweeper, name).toHaveProperty(name);
    expect(sweeper.SOLVER_STARTED_BY).toBe(dispatcher.SOLVER_STARTED_BY);
    expect(sweeper).toMatchObject({ TABLE_NAME: table, WEBHOOKS_QUEUE_URL: webhooksUrl });

    const webhook = fn(dev, "webhook").env;
    for (const name of envReadsOf("functions/webhook/lambda.ts").filter((n) => n !== "AWS_ENDPOINT_URL")) expect(webhook, name).toHaveProperty(name);
    expect(webhook).toMatchObject({
      TABLE_NAME: table,
      WEBHOOKS_QUEUE_URL: webhooksUrl,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
      WEBHOOK_TIMEOUT_SECONDS: "30",
    });
    expect(webhook.WEBHOOKS_DLQ_URL).toEqual({ Ref: idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks-dlq") });
    expect(refTarget(sweeper.BLOB_BUCKET)).toBe(refTarget(api.BLOB_BUCKET));
  });

  it("no function or container sets a variable nothing reads (a misspelt setting is caught)", () => {
    const known = configVariableNames();
    for (const file of ["dispatcher", "sweeper", "webhook"]) envReadsOf(`functions/${file}/lambda.ts`).forEach((n) => known.add(n));
    known.add("NODE_OPTIONS");
    known.add("AWS_REGION");
    const [, taskDef] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    const containerEnv = taskDef.Properties.ContainerDefinitions[0].Environment.map((e: Json) => e.Name);
    for (const name of [...OUR_FUNCTIONS.flatMap((n) => Object.keys(fn(dev, n).env)), ...containerEnv]) expect(known, name).toContain(name);
  });

  it("a LocalStack stage points every handler and the worker at its endpoint; AWS stages set none", () => {
    const local = synthesize("local", { awsEndpointUrl: "http://localhost.localstack.cloud:4566" });
    for (const name of OUR_FUNCTIONS) expect(fn(local, name).env.AWS_ENDPOINT_URL).toBe("http://localhost.localstack.cloud:4566");
    local.template.hasResourceProperties("AWS::ECS::TaskDefinition", {
      ContainerDefinitions: [
        Match.objectLike({ Environment: Match.arrayWith([{ Name: "AWS_ENDPOINT_URL", Value: "http://localhost.localstack.cloud:4566" }]) }),
      ],
    });
    for (const name of OUR_FUNCTIONS) expect(fn(dev, name).env.AWS_ENDPOINT_URL).toBeUndefined();
  });

  it("the webhook Lambda has reserved concurrency and no VPC (egress to the internet only)", () => {
    const { props } = fn(prod, "webhook");
    expect(props.ReservedConcurrentExecutions).toBe(prod.config.webhookReservedConcurrency);
    expect(props.VpcConfig).toBeUndefined();
    expect(fn(synthesize("dev", { webhookReservedConcurrency: 0 }), "webhook").props.ReservedConcurrentExecutions).toBeUndefined();
  });

  it("the sweeper runs on an EventBridge schedule without retries", () => {
    const sweeper = fn(dev, "sweeper");
    dev.template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(1 minute)",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [sweeper.id, "Arn"] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    expect(sweeper.props.Timeout).toBeLessThan(60);
  });
});

describe("data, API and fleet per stage", () => {
  it("the table is the store's: keys, gsi1, TTL, on-demand, PITR; deletion protection and retention in production only", () => {
    for (const s of [dev, prod]) {
      s.template.hasResourceProperties("AWS::DynamoDB::Table", {
        BillingMode: "PAY_PER_REQUEST",
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: "HASH" },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: TABLE_KEYS.gsi1.name,
            KeySchema: [
              { AttributeName: "gsi1pk", KeyType: "HASH" },
              { AttributeName: "gsi1sk", KeyType: "RANGE" },
            ],
          }),
        ],
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: s === prod,
      });
      s.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: s === prod ? "Retain" : "Delete" });
    }
  });

  it("the blob bucket is encrypted, private, TLS-only and has lifecycle rules", () => {
    for (const s of [dev, prod]) {
      s.template.hasResourceProperties("AWS::S3::Bucket", {
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]) },
      });
      s.template.hasResourceProperties("AWS::S3::BucketPolicy", {
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })]) },
      });
    }
    prod.template.hasResourceProperties("AWS::S3::Bucket", { VersioningConfiguration: { Status: "Enabled" } });
    expect(resourcesOfType(prod.json, "Custom::S3AutoDeleteObjects")).toHaveLength(0);
  });

  it("the HTTP API logs every request as JSON and throttles per stage", () => {
    for (const s of [dev, prod]) {
      s.template.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "HTTP" });
      s.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
        StageName: "$default",
        AutoDeploy: true,
        AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
        DefaultRouteSettings: { ThrottlingRateLimit: s.config.apiRateLimit, ThrottlingBurstLimit: s.config.apiBurstLimit },
      });
    }
    prod.template.hasResourceProperties("AWS::Logs::LogGroup", { LogGroupName: "/aws/apigateway/incumbent-prod-api", RetentionInDays: 90 });
  });

  it("a custom domain maps to the default stage when the stage names one", () => {
    const s = synthesize("prod", { domainName: "api.example.com", certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc" });
    s.template.hasResourceProperties("AWS::ApiGatewayV2::DomainName", { DomainName: "api.example.com" });
    s.template.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 1);
  });

  it("the solver task: stage size and architecture, image asset, health check and command as in the Dockerfile, logs with retention", () => {
    for (const s of [dev, prod]) {
      s.template.hasResourceProperties("AWS::ECS::TaskDefinition", {
        Cpu: String(s.config.solverCpu),
        Memory: String(s.config.solverMemoryMib),
        RequiresCompatibilities: ["FARGATE"],
        NetworkMode: "awsvpc",
        RuntimePlatform: { CpuArchitecture: "X86_64", OperatingSystemFamily: "LINUX" },
        ContainerDefinitions: [
          Match.objectLike({
            Name: SOLVER_CONTAINER_NAME,
            Command: WORKER_COMMAND,
            HealthCheck: Match.objectLike({ Command: ["CMD-SHELL", `${SOLVER_HEALTHCHECK} || exit 1`] }),
            LinuxParameters: { InitProcessEnabled: true },
            LogConfiguration: Match.objectLike({ LogDriver: "awslogs" }),
          }),
        ],
      });
      s.template.hasResourceProperties("AWS::Logs::LogGroup", {
        LogGroupName: `/ecs/${s.config.namePrefix}-solver`,
        RetentionInDays: s.config.logRetentionDays,
      });
    }
    const arm = synthesize("dev", { solverArchitecture: "arm64" });
    arm.template.hasResourceProperties("AWS::ECS::TaskDefinition", { RuntimePlatform: { CpuArchitecture: "ARM64", OperatingSystemFamily: "LINUX" } });
    const dockerfile = readFileSync(path.join(REPO_ROOT, "solver-container/Dockerfile"), "utf8");
    expect(dockerfile.replace(/\\\n\s*/g, "")).toContain(`CMD ${SOLVER_HEALTHCHECK} || exit 1`);
    expect(dockerfile).toContain(`CMD ${JSON.stringify(WORKER_COMMAND).replace(/","/g, '", "')}`);
  });

  it("solver tasks accept no inbound traffic and leave only on HTTPS", () => {
    dev.template.hasResourceProperties("AWS::EC2::SecurityGroup", {
      SecurityGroupEgress: [{ CidrIp: "0.0.0.0/0", FromPort: 443, ToPort: 443, IpProtocol: "tcp", Description: Match.anyValue() }],
    });
    for (const [, sg] of resourcesOfType(dev.json, "AWS::EC2::SecurityGroup")) expect(sg.Properties.SecurityGroupIngress).toBeUndefined();
    dev.template.resourceCountIs("AWS::EC2::NatGateway", 0);
    dev.template.resourceCountIs("AWS::EC2::VPCEndpoint", 2);
  });
});
