import { readFileSync } from "node:fs";
import { DEFAULT_MODEL_CAPS } from "../../functions/core/config.js";
import path from "node:path";
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { TABLE_ACTIONS } from "../../lib/data.js";
import {
  SOLVER_CONTAINER_NAME,
  SOLVER_HEALTHCHECK,
  WORKER_COMMAND,
  WORKER_JOBS_QUEUE_ACTIONS,
  WORKER_TABLE_ACTIONS,
  XRAY_DAEMON_ACTIONS,
} from "../../lib/solver-fleet.js";
import { longestJobSeconds, stageNeeds, staleQueuedSeconds } from "../../lib/stage.js";
import { TABLE_KEYS } from "../../functions/core/store/dynamo.js";
import { FLEET_METRIC, FLEET_METRICS_NAMESPACE } from "../../functions/fleet-monitor/handler.js";
import { SERVICE_METRIC, SERVICE_METRICS_NAMESPACE } from "../../functions/core/observability/metric-names.js";
import { REPO_ROOT } from "../support/machine.js";
import { configVariableNames, envReadsOf, synthesize, type Synthesized } from "./synthesize.js";
import {
  alarmViolations,
  identityStatements,
  perJobTaskViolations,
  redriveViolations,
  refTarget,
  referencedIds,
  renderValue,
  resourcesOfType,
  topicPublishViolations,
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
}, 300_000);

/** Our function named `<prefix>-<name>`: its logical id, properties and role's statements. */
function fn(s: Synthesized, name: string) {
  const entry = resourcesOfType(s.json, "AWS::Lambda::Function").find(([, f]) => f.Properties.FunctionName === `${s.config.namePrefix}-${name}`);
  if (!entry) throw new Error(`no function ${name}`);
  const [id, f] = entry;
  const roleId = refTarget(f.Properties.Role)!;
  const statements = identityStatements(s.json).filter((st) => st.roles.includes(roleId));
  return { id, props: f.Properties, env: (f.Properties.Environment?.Variables ?? {}) as Record<string, Json>, roleId, statements };
}
const OUR_FUNCTIONS = ["api", "fleet-monitor", "webhook", "sweeper"];
const idOf = (s: Synthesized, type: string, name: string, key = "QueueName") =>
  resourcesOfType(s.json, type).find(([, r]) => r.Properties?.[key] === name)?.[0] ?? "";
const actionsOf = (statements: { Action: string[] }[]) => new Set(statements.flatMap((s) => s.Action));
/** Statements of the solver task's role (the worker's rights). */
const taskRoleStatements = (t: Template) => {
  const [taskDef] = resourcesOfType(t, "AWS::ECS::TaskDefinition")[0]!;
  const taskRole = refTarget(t.Resources[taskDef]!.Properties.TaskRoleArn)!;
  return identityStatements(t).filter((st) => st.roles.includes(taskRole));
};
const WORKER_ACTIONS = [
  ...WORKER_TABLE_ACTIONS,
  ...WORKER_JOBS_QUEUE_ACTIONS,
  "sqs:SendMessage",
  "s3:DeleteObject",
  "s3:GetObject",
  "s3:ListBucket",
  "s3:PutObject",
  // The ECS agent protects the task from scale-in with the task role's credentials.
  "ecs:UpdateTaskProtection",
  // The X-Ray daemon beside the worker sends its segments with the task role.
  ...XRAY_DAEMON_ACTIONS,
].sort();
const clone = (t: Template): Template => JSON.parse(JSON.stringify(t));

describe("queues: DLQs, redrive, visibility, alarms", () => {
  it("every work queue redrives to a DLQ of the stack, and the guard catches a dropped one", () => {
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
    const queueAlarms = resourcesOfType(dev.json, "AWS::CloudWatch::Alarm").filter(([, a]) => a.Properties.Namespace === "AWS/SQS");
    expect(queueAlarms).toHaveLength(8); // DLQ depth and oldest age of the three priority bands' queues and the webhook queue
    prod.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    const broken = clone(dev.json);
    for (const [id, a] of resourcesOfType(broken, "AWS::CloudWatch::Alarm"))
      if (a.Properties.MetricName === "ApproximateNumberOfMessagesVisible") delete broken.Resources[id];
    expect(alarmViolations(broken)).toHaveLength(4); // one per DLQ
  });

  it("the sweeper fails a queued job only after SQS can no longer deliver it", () => {
    const sweeper = fn(dev, "sweeper");
    const jobs = dev.json.Resources[idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs")]!.Properties;
    expect(Number(sweeper.env.STALE_QUEUED_SECONDS)).toBe(staleQueuedSeconds(dev.config));
    expect(Number(sweeper.env.STALE_QUEUED_SECONDS)).toBeGreaterThan(jobs.VisibilityTimeout * jobs.RedrivePolicy.maxReceiveCount);
    expect(jobs.MessageRetentionPeriod).toBeGreaterThan(jobs.VisibilityTimeout * jobs.RedrivePolicy.maxReceiveCount);
  });

  it("only the webhook Lambda consumes a queue (workers poll the jobs queue): per-message failures, a capped poller", () => {
    for (const s of [dev, prod]) {
      const mappings = resourcesOfType(s.json, "AWS::Lambda::EventSourceMapping").map(([, m]) => m.Properties);
      expect(mappings).toHaveLength(1);
      const [webhook] = mappings;
      expect(refTarget(webhook.FunctionName)).toBe(fn(s, "webhook").id);
      expect(refTarget(webhook.EventSourceArn)).toBe(idOf(s, "AWS::SQS::Queue", `${s.config.namePrefix}-webhooks`));
      expect(webhook.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
      expect(webhook.ScalingConfig).toEqual({ MaximumConcurrency: s.config.webhookMaxConcurrency });
    }
  });
});

describe("IAM: least privilege per function", () => {
  it('no statement allows "*" resources beyond the documented exceptions, and the guard catches a widened one', () => {
    for (const s of [dev, prod]) expect(wildcardViolations(s.json)).toEqual([]);
    const broken = clone(dev.json);
    const [, policy] = resourcesOfType(broken, "AWS::IAM::Policy").find(([id]) => id.startsWith("ApiHandler"))!;
    policy.Properties.PolicyDocument.Statement.find((st: Json) => [st.Action].flat().includes("dynamodb:GetItem")).Resource = "*";
    const widened = wildcardViolations(broken);
    expect(widened).toHaveLength(TABLE_ACTIONS.length); // the API holds every store action
    for (const v of widened) expect(v).toMatch(/dynamodb:\w+ on Resource "\*"/);
    const noCondition = clone(dev.json);
    for (const [, p] of resourcesOfType(noCondition, "AWS::IAM::Policy")) for (const st of p.Properties.PolicyDocument.Statement) delete st.Condition;
    expect(wildcardViolations(noCondition)).toEqual([expect.stringContaining('cloudwatch:PutMetricData on "*" without a cloudwatch:namespace condition')]);
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
    // Every priority band's queue (functions/core/queue/priority.ts) is reached wherever the normal one is.
    const bands = [jobs, idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs-high"), idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs-low")];
    const webhooks = idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks");
    const bucket = refTarget(fn(dev, "api").env.BLOB_BUCKET)!; // the blob bucket (the other one holds its access logs)
    const secret = idOf(dev, "AWS::SecretsManager::Secret", "incumbent-dev/jwt-secret", "Name");
    const webhookKey = idOf(dev, "AWS::SecretsManager::Secret", "incumbent-dev/webhook-key", "Name");
    const [service] = resourcesOfType(dev.json, "AWS::ECS::Service")[0]!;
    const [taskDef] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    const taskRole = refTarget(dev.json.Resources[taskDef]!.Properties.TaskRoleArn)!;
    const reach = (statements: { Action: string[]; Resource: Json[] }[]) => {
      const ids = referencedIds(statements.filter((s) => !s.Action.every((a) => a.startsWith("logs:"))).map((s) => s.Resource));
      return [...ids].filter((id) => !id.startsWith("AWS::")).sort();
    };
    const schedulerRole = resourcesOfType(dev.json, "AWS::IAM::Role").find(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes("scheduler.amazonaws.com"),
    )![0];
    // The API passes the scheduler's role to the triggers' schedules (their ARN pattern names no resource id).
    expect(reach(fn(dev, "api").statements)).toEqual([bucket, ...bands, schedulerRole, secret, table, webhookKey, webhooks].sort());
    const schedulerStatements = identityStatements(dev.json).filter((st) => st.roles.includes(schedulerRole));
    expect(reach(schedulerStatements)).toEqual([...bands].sort());
    expect([...actionsOf(schedulerStatements)].filter((a) => a.startsWith("sqs:"))).toEqual(["sqs:SendMessage"]);
    expect(reach(fn(dev, "fleet-monitor").statements)).toEqual([...bands, service].sort());
    const webhooksDlq = idOf(dev, "AWS::SQS::Queue", "incumbent-dev-webhooks-dlq");
    // The webhook function opens sealed webhook secrets with the webhook key (functions/core/webhooks/secret-box.ts).
    expect(reach(fn(dev, "webhook").statements)).toEqual([bucket, table, webhookKey, webhooks, webhooksDlq].sort());
    // The sweep sends parked jobs of organizations with room (fair share's backstop).
    expect(reach(fn(dev, "sweeper").statements)).toEqual([bucket, ...bands, table, webhooks].sort());
    const task = identityStatements(dev.json).filter((s) => s.roles.includes(taskRole));
    // The cluster: its tasks' scale-in protection (the ECS agent calls with the task role).
    const [cluster] = resourcesOfType(dev.json, "AWS::ECS::Cluster")[0]!;
    expect(reach(task)).toEqual([bucket, ...bands, cluster, table, webhooks].sort());
  });

  it("grants name the actions, not families: ECS reads to the fleet monitor only, secrets to the API and (the webhook key) the webhook function", () => {
    const api = actionsOf(fn(dev, "api").statements);
    const monitor = actionsOf(fn(dev, "fleet-monitor").statements);
    const sweeper = actionsOf(fn(dev, "sweeper").statements);
    const webhook = actionsOf(fn(dev, "webhook").statements);
    expect([...monitor].filter((a) => !a.startsWith("logs:") && !a.startsWith("xray:")).sort()).toEqual([
      "cloudwatch:PutMetricData",
      "ecs:DescribeServices",
      "sqs:GetQueueAttributes",
    ]);
    const putMetric = fn(dev, "fleet-monitor").statements.find((s) => s.Action.includes("cloudwatch:PutMetricData"))!;
    expect(putMetric.Condition).toEqual({ StringEquals: { "cloudwatch:namespace": FLEET_METRICS_NAMESPACE } });
    for (const a of [api, sweeper, webhook]) expect([...a].some((x) => x.startsWith("ecs:"))).toBe(false);
    for (const a of [sweeper, webhook]) expect(a.has("iam:PassRole")).toBe(false);
    // The API passes one role, the scheduler's, and only to EventBridge Scheduler; it manages only the triggers' schedules.
    const passRole = fn(dev, "api").statements.filter((st) => st.Action.includes("iam:PassRole"));
    expect(passRole).toHaveLength(1);
    expect(passRole[0]!.Condition).toEqual({ StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } });
    const schedules = fn(dev, "api").statements.find((st) => st.Action.includes("scheduler:CreateSchedule"))!;
    expect([...schedules.Action].sort()).toEqual(["scheduler:CreateSchedule", "scheduler:DeleteSchedule", "scheduler:UpdateSchedule"]);
    // The stack's own schedule group (deleted with a dev stack, and its schedules with it), never `default`.
    expect(JSON.stringify(schedules.Resource)).toContain(":schedule/incumbent-dev-triggers/incumbent-dev-trg_*");
    dev.template.hasResourceProperties("AWS::Scheduler::ScheduleGroup", { Name: "incumbent-dev-triggers" });
    dev.template.hasResource("AWS::Scheduler::ScheduleGroup", { DeletionPolicy: "Delete" });
    prod.template.hasResource("AWS::Scheduler::ScheduleGroup", { DeletionPolicy: "Retain" });
    expect(fn(dev, "api").env.SCHEDULER_GROUP_NAME).toBe("incumbent-dev-triggers");
    expect(api.has("secretsmanager:GetSecretValue")).toBe(true);
    for (const a of [monitor, sweeper]) expect([...a].some((x) => x.startsWith("secretsmanager:"))).toBe(false);
    expect([...webhook].filter((x) => x.startsWith("secretsmanager:")).sort()).toEqual(["secretsmanager:GetSecretValue"]);
    // Which table and blob actions each role holds is derived from its code: test/infra/rights.test.ts.
    expect([...webhook].filter((x) => x.startsWith("s3:")).sort()).toEqual(["s3:GetObject", "s3:ListBucket"]);
  });

  it("the solver task role holds exactly what a worker calls: the fair share's Query, no BatchWriteItem; of ECS, its task's protection only", () => {
    for (const s of [dev, prod]) {
      const statements = taskRoleStatements(s.json);
      expect([...actionsOf(statements)].sort()).toEqual(WORKER_ACTIONS);
      expect([...actionsOf(statements)].filter((a) => a.startsWith("dynamodb:")).sort()).toEqual([
        "dynamodb:DeleteItem",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
      ]);
      const jobs = ["jobs", "jobs-high", "jobs-low"].map((q) => idOf(s, "AWS::SQS::Queue", `${s.config.namePrefix}-${q}`));
      const webhooks = idOf(s, "AWS::SQS::Queue", `${s.config.namePrefix}-webhooks`);
      const on = (action: string) => [...referencedIds(statements.filter((st) => st.Action.includes(action)).map((st) => st.Resource))];
      expect(on("sqs:ReceiveMessage").sort()).toEqual(jobs.sort());
      // The webhook queue for finished runs; the bands for a fired schedule's run.
      expect(on("sqs:SendMessage").sort()).toEqual([...jobs, webhooks].sort());
      const deletes = statements.filter((st) => st.Action.includes("s3:DeleteObject"));
      expect(JSON.stringify(deletes.map((st) => st.Resource))).toMatch(/\/results\/\*"/);
    }
    const widened = clone(dev.json);
    const [, policy] = resourcesOfType(widened, "AWS::IAM::Policy").find(
      ([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes("dynamodb:GetItem") && JSON.stringify(p.Properties.Roles).includes("TaskRole"),
    )!;
    policy.Properties.PolicyDocument.Statement.find((st: Json) => [st.Action].flat().includes("dynamodb:GetItem")).Action.push("dynamodb:BatchWriteItem");
    expect([...actionsOf(taskRoleStatements(widened))].sort()).not.toEqual(WORKER_ACTIONS);
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
    const bandUrls = {
      JOBS_QUEUE_URL: jobsUrl,
      JOBS_HIGH_QUEUE_URL: { Ref: idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs-high") },
      JOBS_LOW_QUEUE_URL: { Ref: idOf(dev, "AWS::SQS::Queue", "incumbent-dev-jobs-low") },
    };
    expect(api).toMatchObject({ TABLE_NAME: table, ...bandUrls, WEBHOOKS_QUEUE_URL: webhooksUrl, STAGE: "dev" });
    expect(dev.json.Resources[refTarget(api.BLOB_BUCKET)!]!.Properties.LoggingConfiguration).toBeDefined(); // the blob bucket, whose access is logged
    expect(refTarget(api.JWT_SECRET_ARN)).toBe(idOf(dev, "AWS::SecretsManager::Secret", "incumbent-dev/jwt-secret", "Name"));
    expect(refTarget(api.WEBHOOK_KEY_SECRET_ARN)).toBe(idOf(dev, "AWS::SecretsManager::Secret", "incumbent-dev/webhook-key", "Name"));
    expect(refTarget(fn(dev, "webhook").env.WEBHOOK_KEY_SECRET_ARN)).toBe(idOf(dev, "AWS::SecretsManager::Secret", "incumbent-dev/webhook-key", "Name"));
    expect(api.JWT_SECRET).toBeUndefined();
    expect(api.INSTANCE_MAX_SOLVE_TIME_SECONDS).toBe(String(dev.config.maxSolveTimeSeconds));
    expect(Number(api.MAX_REQUEST_BODY_MB)).toBeLessThanOrEqual(4);
    // The model size caps a 2 vCPU worker holds, the same as the local stack's defaults (issue 25).
    expect([api.INSTANCE_MAX_VARIABLES, api.INSTANCE_MAX_CONSTRAINTS, api.INSTANCE_MAX_NONZEROS].map(Number)).toEqual(Object.values(DEFAULT_MODEL_CAPS));

    // The fleet monitor reads its settings straight from the environment: all must be set.
    const monitor = fn(dev, "fleet-monitor").env;
    for (const name of envReadsOf("functions/fleet-monitor/lambda.ts").filter((n) => n !== "AWS_ENDPOINT_URL")) expect(monitor, name).toHaveProperty(name);
    const [serviceId] = resourcesOfType(dev.json, "AWS::ECS::Service")[0]!;
    expect(monitor).toMatchObject({ ...bandUrls, SOLVER_SERVICE_NAME: { "Fn::GetAtt": [serviceId, "Name"] } });
    expect(refTarget(monitor.SOLVER_CLUSTER_ARN)).toBe(resourcesOfType(dev.json, "AWS::ECS::Cluster")[0]![0]);
    const sweeper = fn(dev, "sweeper").env;
    expect(sweeper).toMatchObject({ TABLE_NAME: table, WEBHOOKS_QUEUE_URL: webhooksUrl });
    expect(Object.keys(sweeper).filter((n) => n.startsWith("SOLVER_"))).toEqual([]);
    // The worker's message visibility allows for two sweeps: it must know the sweeper's period.
    const [, taskDef] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    const sweepOf = (env: { Name: string; Value: Json }[]) => env.find((e) => e.Name === "SWEEP_INTERVAL_SECONDS")?.Value;
    expect(sweepOf(taskDef.Properties.ContainerDefinitions[0].Environment)).toBe("60");
    expect(sweeper.SWEEP_INTERVAL_SECONDS).toBe("60");

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
    for (const file of ["fleet-monitor", "sweeper", "webhook"]) envReadsOf(`functions/${file}/lambda.ts`).forEach((n) => known.add(n));
    known.add("NODE_OPTIONS");
    known.add("POWERTOOLS_SERVICE_NAME"); // read by Powertools' Logger and Metrics
    known.add("AWS_REGION");
    const [, taskDef] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    const containerEnv = taskDef.Properties.ContainerDefinitions[0].Environment.map((e: Json) => e.Name);
    for (const name of [...OUR_FUNCTIONS.flatMap((n) => Object.keys(fn(dev, n).env)), ...containerEnv]) expect(known, name).toContain(name);
  });

  it("a LocalStack stage points every handler and the worker at its endpoint; AWS stages set none", () => {
    const local = synthesize("local", { awsEndpointUrl: "http://localhost.localstack.cloud:4566" });
    for (const name of OUR_FUNCTIONS) expect(fn(local, name).env.AWS_ENDPOINT_URL).toBe("http://localhost.localstack.cloud:4566");
    local.template.hasResourceProperties("AWS::ECS::TaskDefinition", {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({ Environment: Match.arrayWith([{ Name: "AWS_ENDPOINT_URL", Value: "http://localhost.localstack.cloud:4566" }]) }),
      ]),
    });
    for (const name of OUR_FUNCTIONS) expect(fn(dev, name).env.AWS_ENDPOINT_URL).toBeUndefined();
  });

  it("no function reserves concurrency by default (a new account's quota of 10 allows none); the webhook Lambda has no VPC", () => {
    for (const s of [dev, prod]) for (const name of OUR_FUNCTIONS) expect(fn(s, name).props.ReservedConcurrentExecutions, name).toBeUndefined();
    expect(fn(prod, "webhook").props.VpcConfig).toBeUndefined();
    const reserved = synthesize("dev", { webhookReservedConcurrency: 8, webhookMaxConcurrency: 8 });
    expect(fn(reserved, "webhook").props.ReservedConcurrentExecutions).toBe(8);
    // A reservation below the poller's concurrency would throttle it into the DLQ: refused.
    expect(() => synthesize("dev", { webhookReservedConcurrency: 3, webhookMaxConcurrency: 5 })).toThrow(/below webhookMaxConcurrency/);
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
        // Derived from the concurrency the account leaves the API (lib/stage.ts stageNeeds), never above the stage's own.
        DefaultRouteSettings: {
          ThrottlingRateLimit: stageNeeds(s.config).apiThrottle.rateLimit,
          ThrottlingBurstLimit: stageNeeds(s.config).apiThrottle.burstLimit,
        },
        RouteSettings: {
          "POST /api/v2/solve": {
            ThrottlingRateLimit: stageNeeds(s.config).solveThrottle.rateLimit,
            ThrottlingBurstLimit: stageNeeds(s.config).solveThrottle.burstLimit,
          },
        },
      });
      s.template.hasResourceProperties("AWS::ApiGatewayV2::Route", { RouteKey: "POST /api/v2/solve" });
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
        ContainerDefinitions: Match.arrayWith([
          Match.objectLike({
            Name: SOLVER_CONTAINER_NAME,
            Command: WORKER_COMMAND,
            HealthCheck: Match.objectLike({ Command: ["CMD-SHELL", `${SOLVER_HEALTHCHECK} || exit 1`] }),
            LinuxParameters: { InitProcessEnabled: true },
            LogConfiguration: Match.objectLike({ LogDriver: "awslogs" }),
          }),
        ]),
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

describe("the warm fleet: an ECS service scaled on backlog per task", () => {
  const serviceOf = (s: Synthesized) => resourcesOfType(s.json, "AWS::ECS::Service")[0]!;
  const policies = (s: Synthesized) => resourcesOfType(s.json, "AWS::ApplicationAutoScaling::ScalingPolicy").map(([, p]) => p.Properties);

  it("runs the worker as a Fargate service with a circuit breaker, on regular Fargate unless the stage asks for Spot", () => {
    for (const s of [dev, prod]) {
      const [serviceId, service] = serviceOf(s);
      const [taskDef] = resourcesOfType(s.json, "AWS::ECS::TaskDefinition")[0]!;
      expect(service.Properties).toMatchObject({
        ServiceName: `${s.config.namePrefix}-solver`,
        TaskDefinition: { Ref: taskDef },
        DeploymentConfiguration: { DeploymentCircuitBreaker: { Enable: true, Rollback: true }, MinimumHealthyPercent: 100 },
        NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: "ENABLED" } },
        CapacityProviderStrategy: [{ CapacityProvider: "FARGATE", Weight: 1 }],
      });
      // Auto Scaling owns the count: a deployment must not reset it.
      expect(service.Properties.DesiredCount).toBeUndefined();
      expect(serviceId).toBeTruthy();
    }
    const spot = synthesize("prod", { solverSpot: true });
    expect(serviceOf(spot)[1].Properties.CapacityProviderStrategy).toEqual([
      { CapacityProvider: "FARGATE", Base: 1, Weight: 0 },
      { CapacityProvider: "FARGATE_SPOT", Weight: 1 },
    ]);
    expect(serviceOf(synthesize("dev", { solverSpot: true }))[1].Properties.CapacityProviderStrategy).toEqual([
      { CapacityProvider: "FARGATE_SPOT", Weight: 1 },
    ]);
    spot.template.hasResourceProperties("AWS::ECS::ClusterCapacityProviderAssociations", { CapacityProviders: Match.arrayWith(["FARGATE", "FARGATE_SPOT"]) });
  });

  it("per-stage task counts: dev idles at zero, prod keeps one warm, both bounded by the stage's maximum", () => {
    for (const [s, min] of [
      [dev, 0],
      [prod, 1],
    ] as const) {
      s.template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", {
        ScalableDimension: "ecs:service:DesiredCount",
        MinCapacity: min,
        MaxCapacity: s.config.maxRunningSolverTasks,
        ResourceId: { "Fn::Join": ["", Match.arrayWith([{ "Fn::GetAtt": [serviceOf(s)[0], "Name"] }])] },
      });
    }
    expect(() => synthesize("prod", { minRunningSolverTasks: 0 })).toThrow(/at least one solver task warm/);
    expect(() => synthesize("dev", { minRunningSolverTasks: 5, maxRunningSolverTasks: 4 })).toThrow(/exceeds maxRunningSolverTasks/);
  });

  it("scales on backlog per task published by the fleet monitor, and from zero by a step on waiting jobs with no task", () => {
    for (const s of [dev, prod]) {
      const tracking = policies(s).find((p) => p.PolicyType === "TargetTrackingScaling")!;
      expect(tracking.TargetTrackingScalingPolicyConfiguration).toMatchObject({
        TargetValue: s.config.backlogPerTaskTarget,
        CustomizedMetricSpecification: {
          Namespace: FLEET_METRICS_NAMESPACE,
          MetricName: FLEET_METRIC.backlogPerTask,
          Dimensions: [{ Name: "ServiceName", Value: { "Fn::GetAtt": [serviceOf(s)[0], "Name"] } }],
        },
      });
      const step = resourcesOfType(s.json, "AWS::ApplicationAutoScaling::ScalingPolicy").find(([, p]) => p.Properties.PolicyType === "StepScaling")!;
      expect(step[1].Properties.StepScalingPolicyConfiguration).toMatchObject({
        AdjustmentType: "ExactCapacity",
        StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
      });
      const [, alarm] = resourcesOfType(s.json, "AWS::CloudWatch::Alarm").find(([, a]) => refTarget(a.Properties.AlarmActions?.[0]) === step[0])!;
      const [expression, ...inputs] = alarm.Properties.Metrics;
      expect(expression.Expression).toBe("IF(running < 1 AND waiting >= 1, 1, 0)");
      expect(inputs.map((m: Json) => [m.Id, m.MetricStat.Metric.MetricName]).sort()).toEqual([
        ["running", FLEET_METRIC.runningTasks],
        ["waiting", FLEET_METRIC.waitingJobs],
      ]);
      expect(alarm.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold", EvaluationPeriods: 1 });
    }
    dev.template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(1 minute)",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [fn(dev, "fleet-monitor").id, "Arn"] } })],
    });
  });

  it("no per-job RunTask anywhere, and the guard catches one", () => {
    for (const s of [dev, prod]) expect(perJobTaskViolations(s.json)).toEqual([]);
    const broken = clone(dev.json);
    const [, policy] = resourcesOfType(broken, "AWS::IAM::Policy")[0]!;
    policy.Properties.PolicyDocument.Statement.push({ Effect: "Allow", Action: "ecs:RunTask", Resource: "*" });
    expect(perJobTaskViolations(broken)).toEqual([expect.stringContaining("grants ecs:RunTask"), "the template mentions RunTask"]);
  });

  it("the container's stop timeout and the worker's WORKER_STOP_TIMEOUT_SECONDS are one stage number, at most Fargate's 120 s", () => {
    for (const [s, seconds] of [
      [dev, 120],
      [synthesize("dev", { workerStopTimeoutSeconds: 45 }), 45],
    ] as const) {
      const [, taskDef] = resourcesOfType(s.json, "AWS::ECS::TaskDefinition")[0]!;
      const container = taskDef.Properties.ContainerDefinitions[0];
      expect(container.StopTimeout).toBe(seconds);
      expect(container.Environment).toContainEqual({ Name: "WORKER_STOP_TIMEOUT_SECONDS", Value: String(seconds) });
      for (const [name, queue] of [
        ["JOBS_QUEUE_URL", "incumbent-dev-jobs"],
        ["JOBS_HIGH_QUEUE_URL", "incumbent-dev-jobs-high"],
        ["JOBS_LOW_QUEUE_URL", "incumbent-dev-jobs-low"],
      ]) {
        expect(container.Environment).toContainEqual({ Name: name, Value: { Ref: idOf(s, "AWS::SQS::Queue", queue!) } });
      }
    }
    expect(() => synthesize("dev", { workerStopTimeoutSeconds: 300 })).toThrow(/workerStopTimeoutSeconds/);
  });

  it("fleet: false (LocalStack community) deploys everything but the fleet: no VPC, cluster, service, scaling or monitor", () => {
    const local = synthesize("local", { fleet: false, awsEndpointUrl: "http://localhost.localstack.cloud:4566" });
    for (const type of [
      "AWS::EC2::VPC",
      "AWS::ECS::Cluster",
      "AWS::ECS::Service",
      "AWS::ECS::TaskDefinition",
      "AWS::ApplicationAutoScaling::ScalableTarget",
      "AWS::ApplicationAutoScaling::ScalingPolicy",
    ])
      local.template.resourceCountIs(type, 0);
    const names = resourcesOfType(local.json, "AWS::Lambda::Function")
      .map(([, f]) => f.Properties.FunctionName)
      .filter((n) => typeof n === "string");
    expect(names.sort()).toEqual(["incumbent-local-api", "incumbent-local-sweeper", "incumbent-local-webhook"]);
    for (const type of ["AWS::DynamoDB::Table", "AWS::ApiGatewayV2::Api"]) local.template.resourceCountIs(type, 1);
    local.template.resourceCountIs("AWS::S3::Bucket", 2); // blobs and their access logs
    local.template.resourceCountIs("AWS::SQS::Queue", 8); // three priority bands and webhooks, each with its DLQ
    expect(Object.keys(local.json as Json).includes("Outputs") && (local.json as Json).Outputs.SolverClusterName).toBeFalsy();
    expect((local.json as Json).Outputs.JobsQueueUrl).toBeDefined();
  });
});

describe("alarms and alerts", () => {
  const alarmNames = (s: Synthesized) =>
    resourcesOfType(s.json, "AWS::CloudWatch::Alarm")
      .map(([, a]) => a.Properties.AlarmName as string)
      .map((n) => n.replace(`${s.config.namePrefix}-`, ""))
      .sort();

  it("lists every alarm that can fire, each with an action; the running-below-minimum one only where a minimum exists", () => {
    const perFunction = ["api", "fleet-monitor", "sweeper", "webhook"].flatMap((f) => [`${f}-errors`, `${f}-throttles`]);
    const common = [
      "api-5xx",
      "api-latency-p99",
      ...perFunction,
      ...["jobs", "jobs-high", "jobs-low"].flatMap((q) => [`${q}-dlq-not-empty`, `${q}-oldest-message-age`]),
      "account-lambda-concurrency",
      "dynamodb-throttles",
      "jobs-failed-by-sweeper",
      "solver-fleet-at-maximum",
      "solver-fleet-from-zero",
      "trigger-schedule-errors",
      "webhooks-dlq-not-empty",
      "webhooks-oldest-message-age",
    ];
    expect(alarmNames(dev)).toEqual(common.sort());
    expect(alarmNames(prod)).toEqual([...common, "solver-tasks-below-minimum"].sort());
    for (const [, a] of resourcesOfType(prod.json, "AWS::CloudWatch::Alarm"))
      expect(a.Properties.AlarmActions?.length, a.Properties.AlarmName).toBeGreaterThan(0);
    const topic = resourcesOfType(prod.json, "AWS::SNS::Topic")[0]![0];
    const notifying = resourcesOfType(prod.json, "AWS::CloudWatch::Alarm").filter(([, a]) => refTarget(a.Properties.AlarmActions[0]) === topic);
    expect(notifying).toHaveLength(alarmNames(prod).length - 1); // all but the from-zero step, whose action is the scaling policy
  });

  it("the alarm topic lets every alarm and alert rule of the stack publish, scoped to this account; the guard catches a topic that does not", () => {
    for (const s of [dev, prod]) expect(topicPublishViolations(s.json)).toEqual([]);
    const alarmsToTopic = resourcesOfType(dev.json, "AWS::CloudWatch::Alarm").filter(([, a]) =>
      (a.Properties.AlarmActions ?? []).some((x: Json) => resourcesOfType(dev.json, "AWS::SNS::Topic").some(([t]) => refTarget(x) === t)),
    );
    expect(alarmsToTopic.length).toBeGreaterThan(20);
    const policyOf = (t: Template) => resourcesOfType(t, "AWS::SNS::TopicPolicy")[0]![1].Properties.PolicyDocument;

    // As the review found it: the TLS-only policy alone, which SNS puts in place of its default one.
    const tlsOnly = clone(dev.json);
    policyOf(tlsOnly).Statement = policyOf(tlsOnly).Statement.filter((st: Json) => st.Effect === "Deny");
    const silent = topicPublishViolations(tlsOnly);
    expect(silent.filter((v) => v.startsWith("alarm "))).toHaveLength(alarmsToTopic.length);
    expect(silent.filter((v) => v.startsWith("rule "))).toEqual([expect.stringContaining("solver-task-failures")]);

    // Any account's alarms could publish: refused as too open (and no alarm of ours is admitted by it).
    const anyAccount = clone(dev.json);
    for (const st of policyOf(anyAccount).Statement) if (st.Condition?.StringEquals) delete st.Condition.StringEquals;
    expect(topicPublishViolations(anyAccount)).toEqual(expect.arrayContaining([expect.stringMatching(/admits cloudwatch\.amazonaws\.com from any source/)]));

    // EventBridge scoped to another stage's rules: the task-failure rule cannot publish.
    const otherStage = clone(dev.json);
    const events = policyOf(otherStage).Statement.find((st: Json) => st.Principal?.Service === "events.amazonaws.com");
    events.Condition.ArnLike["aws:SourceArn"]["Fn::Join"][1] = events.Condition.ArnLike["aws:SourceArn"]["Fn::Join"][1].map((part: Json) =>
      typeof part === "string" ? part.replace("incumbent-dev-", "incumbent-prod-") : part,
    );
    expect(topicPublishViolations(otherStage)).toEqual([expect.stringContaining("rule incumbent-dev-solver-task-failures")]);
  });

  it("alarms on jobs the sweeper failed, DynamoDB throttling, account concurrency, schedule delivery errors and a fleet at its maximum", () => {
    const alarms = Object.fromEntries(resourcesOfType(prod.json, "AWS::CloudWatch::Alarm").map(([, a]) => [a.Properties.AlarmName, a.Properties]));
    expect(alarms["incumbent-prod-jobs-failed-by-sweeper"]).toMatchObject({
      Namespace: SERVICE_METRICS_NAMESPACE,
      MetricName: SERVICE_METRIC.sweptJobs,
      Dimensions: [{ Name: "service", Value: "incumbent-prod-sweeper" }],
      Threshold: 1,
    });
    const metricsOf = (a: Json) => a.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric);
    const throttles = alarms["incumbent-prod-dynamodb-throttles"];
    expect(
      metricsOf(throttles)
        .map(
          (m: Json) =>
            `${m.MetricName}:${m.Dimensions.map((d: Json) => d.Name)
              .sort()
              .join("+")}`,
        )
        .sort(),
    ).toEqual([
      "ReadThrottleEvents:GlobalSecondaryIndexName+TableName",
      "ReadThrottleEvents:TableName",
      "WriteThrottleEvents:GlobalSecondaryIndexName+TableName",
      "WriteThrottleEvents:TableName",
    ]);
    expect(alarms["incumbent-prod-account-lambda-concurrency"]).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "ConcurrentExecutions",
      Threshold: 0.8 * prod.config.accountLambdaConcurrency,
    });
    expect(alarms["incumbent-prod-account-lambda-concurrency"].Dimensions).toBeUndefined(); // the account's, not a function's
    const schedules = alarms["incumbent-prod-trigger-schedule-errors"];
    expect(
      metricsOf(schedules)
        .map((m: Json) => [m.Namespace, m.MetricName, m.Dimensions[0].Name])
        .sort(),
    ).toEqual([
      ["AWS/Scheduler", "InvocationDroppedCount", "ScheduleGroup"],
      ["AWS/Scheduler", "TargetErrorCount", "ScheduleGroup"],
    ]);
    const atMaximum = alarms["incumbent-prod-solver-fleet-at-maximum"];
    expect(atMaximum.Metrics[0].Expression).toBe(`IF(running >= ${prod.config.maxRunningSolverTasks} AND waiting >= 1, 1, 0)`);
    expect(atMaximum.EvaluationPeriods).toBe(15);
    const concurrency = synthesize("dev", { accountLambdaConcurrency: 10 });
    const small = resourcesOfType(concurrency.json, "AWS::CloudWatch::Alarm").find(
      ([, a]) => a.Properties.AlarmName === "incumbent-dev-account-lambda-concurrency",
    )!;
    expect(small[1].Properties.Threshold).toBe(8);
  });

  it("a dashboard of the service: requests, errors, latency, backlog, tasks, job latency and solve outcomes", () => {
    const [, dashboard] = resourcesOfType(prod.json, "AWS::CloudWatch::Dashboard")[0]!;
    expect(dashboard.Properties.DashboardName).toBe("incumbent-prod-service");
    const body = renderValue(dashboard.Properties.DashboardBody);
    const widgets = JSON.parse(body.replace(/\$\{[^}]+\}/g, "X")).widgets as { properties: { title: string; metrics?: Json[] } }[];
    const titles = widgets.map((w) => w.properties.title);
    for (const title of ["API requests and errors", "API latency (ms)", "Backlog: jobs waiting per band", "Solver tasks", "Solve outcomes"])
      expect(titles).toContain(title);
    expect(titles.some((t) => t.startsWith("Job latency"))).toBe(true);
    for (const metric of [SERVICE_METRIC.jobQueuedToStarted, SERVICE_METRIC.jobQueuedToFinal, SERVICE_METRIC.solveOutcomes, FLEET_METRIC.runningTasks])
      expect(body).toContain(metric);
    expect(body).toContain("incumbent-prod-worker");
  });

  it("API alarms read the HTTP API's 5xx count and p99 latency below the function's timeout", () => {
    const alarms = Object.fromEntries(resourcesOfType(dev.json, "AWS::CloudWatch::Alarm").map(([, a]) => [a.Properties.AlarmName, a.Properties]));
    const apiId = resourcesOfType(dev.json, "AWS::ApiGatewayV2::Api")[0]![0];
    expect(alarms["incumbent-dev-api-5xx"]).toMatchObject({ Namespace: "AWS/ApiGateway", MetricName: "5xx", Statistic: "Sum" });
    expect(alarms["incumbent-dev-api-5xx"].Dimensions).toContainEqual({ Name: "ApiId", Value: { Ref: apiId } });
    const latency = alarms["incumbent-dev-api-latency-p99"];
    expect(latency).toMatchObject({ Namespace: "AWS/ApiGateway", MetricName: "Latency", ExtendedStatistic: "p99" });
    expect(latency.Threshold).toBeLessThan(fn(dev, "api").props.Timeout * 1000);
    expect(alarms["incumbent-dev-sweeper-errors"]).toMatchObject({ Namespace: "AWS/Lambda", MetricName: "Errors", Threshold: 1 });
  });

  it("a failed solver task (failed to start, or its worker exited on its own) is sent to the alarm topic with ECS's reason", () => {
    const topic = resourcesOfType(dev.json, "AWS::SNS::Topic")[0]![0];
    dev.template.hasResourceProperties("AWS::Events::Rule", {
      EventPattern: {
        source: ["aws.ecs"],
        "detail-type": ["ECS Task State Change"],
        detail: Match.objectLike({ lastStatus: ["STOPPED"], stopCode: ["TaskFailedToStart", "EssentialContainerExited"] }),
      },
      Targets: [
        Match.objectLike({
          Arn: { Ref: topic },
          InputTransformer: Match.objectLike({ InputPathsMap: Match.objectLike({ "detail-stoppedReason": "$.detail.stoppedReason" }) }),
        }),
      ],
    });
  });
});

describe("leftovers and new accounts", () => {
  it("production keeps its DLQs on stack removal; dev removes them", () => {
    for (const [s, policy] of [
      [prod, "Retain"],
      [dev, "Delete"],
    ] as const) {
      const dlqs = resourcesOfType(s.json, "AWS::SQS::Queue").filter(([, q]) => String(q.Properties.QueueName).endsWith("-dlq"));
      expect(dlqs).toHaveLength(4);
      for (const [id] of dlqs) expect((s.json.Resources[id] as Json).DeletionPolicy, id).toBe(policy);
    }
  });

  it("every queue's URL is a stack output, with what the stage needs of its account's quotas", () => {
    const outputs = (prod.json as Json).Outputs as Record<string, { Value: Json }>;
    const queueIds = resourcesOfType(prod.json, "AWS::SQS::Queue").map(([id]) => id);
    const outputQueues = Object.values(outputs)
      .map((o) => refTarget(o.Value))
      .filter((id) => id && queueIds.includes(id));
    expect(outputQueues.sort()).toEqual([...queueIds].sort());
    expect(Number(outputs.LambdaConcurrencyNeeded!.Value)).toBe(stageNeeds(prod.config).lambdaConcurrency);
    expect(Number(outputs.FargateVcpuNeeded!.Value)).toBe(40);
  });

  it("creates ECS's and Application Auto Scaling's service-linked roles only when the stage says the account is new", () => {
    dev.template.resourceCountIs("AWS::IAM::ServiceLinkedRole", 0);
    const fresh = synthesize("dev", { createServiceLinkedRoles: true });
    const roles = resourcesOfType(fresh.json, "AWS::IAM::ServiceLinkedRole")
      .map(([, r]) => r.Properties.AWSServiceName)
      .sort();
    expect(roles).toEqual(["ecs.amazonaws.com", "ecs.application-autoscaling.amazonaws.com"]);
    const [, service] = resourcesOfType(fresh.json, "AWS::ECS::Service")[0]!;
    expect(service.DependsOn).toEqual(expect.arrayContaining(resourcesOfType(fresh.json, "AWS::IAM::ServiceLinkedRole").map(([id]) => id)));
  });
});

describe("password-reset mail through SES", () => {
  it("a stage with a sender gives the API MAIL_FROM_ADDRESS and SendEmail from that sender only; without one, neither", () => {
    const mail = synthesize("prod", { mailFromAddress: "no-reply@example.com" });
    const api = fn(mail, "api");
    expect(api.env.MAIL_FROM_ADDRESS).toBe("no-reply@example.com");
    const send = api.statements.filter((s) => s.Action.some((a) => a.startsWith("ses:")));
    expect(send).toHaveLength(1);
    expect(send[0]!.Action).toEqual(["ses:SendEmail"]);
    expect(send[0]!.Condition).toEqual({ StringEquals: { "ses:FromAddress": "no-reply@example.com" } });
    expect(JSON.stringify(send[0]!.Resource)).toContain("identity/no-reply@example.com");
    expect(JSON.stringify(send[0]!.Resource)).toContain("identity/example.com");
    for (const other of ["webhook", "sweeper", "fleet-monitor"])
      expect([...actionsOf(fn(mail, other).statements)].some((a) => a.startsWith("ses:"))).toBe(false);
    expect(fn(dev, "api").env.MAIL_FROM_ADDRESS).toBeUndefined();
    expect([...actionsOf(fn(dev, "api").statements)].some((a) => a.startsWith("ses:"))).toBe(false);
  });
});
