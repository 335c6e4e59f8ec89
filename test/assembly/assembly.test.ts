import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GetScheduleCommand, ResourceNotFoundException, SchedulerClient } from "@aws-sdk/client-scheduler";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../functions/core/auth/secrets.js";
import { Api } from "../support/api.js";
import { type Backend, startMotoBackend } from "../support/backends.js";
import { machineHas, REPO_ROOT } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { createKnapsackDocument, createTrigger, eventually, KNAPSACK_BEST } from "../support/triggers.js";
import { FakeEcsAgent } from "../support/fake-ecs-agent.js";
import type { PolicyStatement } from "../support/iam-policy.js";
import { verifyIncumbentSignature, WebhookReceiver } from "../support/webhook-receiver.js";
import { identityStatements } from "../infra/template-guards.js";
import { ensureCloudAssembly, type LambdaFunction, lambdaFunctions, readTemplate, referencedId, solverTask, triggersOf } from "./cloud-assembly.js";
import { HttpApiGateway, LambdaProcess, SqsEventSource, scheduledEvent } from "./lambda-runtime.js";
import { MotoIam, otherRoles, roleOfFunction } from "./moto-iam.js";
import { ACCOUNT, MotoResources, REGION } from "./moto-resources.js";
import { buildWorkerImage, WorkerProcess } from "./worker-image.js";
import { SMALL_MILP } from "../support/models.js";

/**
 * The deployed artifacts, run: `cdk synth`'s cloud assembly (cached per change), its Lambda bundles
 * each in a fresh Node with only its asset and the environment the template gives it, the HTTP API's
 * v2 events, Lambda's SQS event source, EventBridge's scheduled event, and the solver container's
 * worker built by the image's build step and started with the task definition's command and
 * environment — all against one moto_server holding the template's table, queues, bucket and secret.
 *
 * Every process calls moto as its own role: the template's roles are created in moto with their
 * policies, each function and the worker get credentials of their role through STS AssumeRole (as
 * Lambda and ECS give them), and moto's IAM enforcement is on (moto-iam.ts says what moto can check), so
 * a right a role lacks is a refused request here. Lambda's SQS poller uses the webhook function's role,
 * the scheduler's firing the scheduler role; the test's own inspection an administrator. moto serves one
 * request at a time except SQS long polls, so the worker long-polls as deployed.
 *
 * What the test sets beyond the template, and why:
 *  - AWS_ENDPOINT_URL and the role's credentials (moto), AWS_REGION for the Lambdas (the runtime sets it);
 *  - WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for the API and the webhook function: the receiver is on 127.0.0.1;
 *  - OPERATOR_TOKEN_SHA256 for the API: no mail transport here to confirm a sign-up, so the instance
 *    operator makes the owner (a stage sets it as it sets its operator);
 *  - for the worker: JOB_LEASE_SECONDS=5 (the kill flow waits for the lease to lapse), SOLVER_PYTHON (the
 *    image's /app/.venv is this checkout's .venv), ECS_AGENT_URI (a stand-in of the ECS agent that checks
 *    each task-protection call against the task role, as the agent's own ECS call would be).
 */
const run = machineHas("moto_server", "cbc", "glpsol", "python_solvers");

const MILP = { ...SMALL_MILP, name: "assembly-milp" };
const WEBHOOK_SECRET = "whsec_YXNzZW1ibHktdGVzdC1zaWduaW5nLXNlY3JldA==";
const OPERATOR_TOKEN = "inc_op_the-assembly-test-operator";
const final = (b: { status: string }) => ["completed", "failed", "cancelled"].includes(b.status);

let moto: Backend;
let root: string;
let template: ReturnType<typeof readTemplate>;
let resources: MotoResources;
let iam: MotoIam;
let admin: { accessKeyId: string; secretAccessKey: string };
let agent: FakeEcsAgent;
let livenessFile: string;
let healthCheck: string[];
const lambdas = new Map<string, LambdaProcess>();
let functions: LambdaFunction[];
let gateway: HttpApiGateway;
const eventSources: SqsEventSource[] = [];
let worker: WorkerProcess;
let sweeper: LambdaProcess;
let sweepRule: string;
/** Scheduled functions and their rule's name. */
const scheduled = new Map<string, string>();
let anon: Api;
let api: Api;
const receiver = new WebhookReceiver();

/** The liveness file the task definition gives the worker (the health check reads it). */
const taskLivenessPath = () => {
  const task = solverTask(ensuredAssembly, template);
  return String(task.environment.WORKER_LIVENESS_FILE);
};
let ensuredAssembly: string;

/** Everything the processes logged, for a failing flow's message. */
const logs = () => [...[...lambdas.values()].map((l) => `--- ${l.name}\n${l.logs().slice(-3000)}`), `--- worker\n${worker?.logs().slice(-3000)}`].join("\n");

beforeAll(async () => {
  if (!run) return;
  const assembly = await ensureCloudAssembly();
  ensuredAssembly = assembly;
  template = readTemplate(assembly);
  functions = lambdaFunctions(assembly, template).filter((f) => f.ours);
  const triggers = triggersOf(template);
  const task = solverTask(assembly, template);

  moto = await startMotoBackend({ longPolls: true });
  resources = new MotoResources(moto.endpoint, template);
  await resources.create();
  // Every role a process runs as, with credentials from STS; then moto refuses whatever a role lacks.
  const roles = otherRoles(template);
  iam = new MotoIam(moto.endpoint, template, resources);
  await iam.create([...new Set([...functions.map((f) => roleOfFunction(template, f.logicalId)), roles.task, roles.scheduler])]);
  await iam.enforce();
  admin = iam.admin;
  root = mkdtempSync(path.join(os.tmpdir(), "incumbent-assembly-"));
  await receiver.start();

  const lambdaOverrides: Record<string, string> = {
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    LOG_LEVEL: "WARN",
    OPERATOR_TOKEN_SHA256: sha256Hex(OPERATOR_TOKEN),
  };
  await Promise.all(
    functions.map(async (fn) => {
      // Only the asset: nothing above the task root to resolve a missing file or package from.
      const taskRoot = path.join(root, "lambda", fn.logicalId);
      cpSync(fn.assetDir, taskRoot, { recursive: true });
      const environment = { ...resources.resolveEnvironment(fn.environment), ...lambdaOverrides, ...iam.environment(roleOfFunction(template, fn.logicalId)) };
      const lambda = new LambdaProcess(fn.logicalId, { taskRoot, handler: fn.handler, environment, timeoutSeconds: fn.timeoutSeconds, memoryMb: fn.memoryMb });
      lambdas.set(fn.logicalId, lambda);
      await lambda.start();
    }),
  );

  const apiId = triggers.http[0]!;
  gateway = new HttpApiGateway(lambdas.get(apiId)!);
  await gateway.start();
  anon = new Api(gateway.url, null);

  // The jobs queue is the workers'; every other SQS mapping is Lambda's event source.
  const jobsQueueId = referencedId(functions.find((f) => f.logicalId === apiId)!.environment.JOBS_QUEUE_URL)!;
  for (const mapping of triggers.sqs.filter((m) => m.queueId !== jobsQueueId)) {
    const queue = resources.physical.get(mapping.queueId)!;
    // Lambda's poller reads the queue with the function's role.
    const role = iam.credentials.get(roleOfFunction(template, mapping.functionId))!;
    const sqs = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials: role });
    const source = new SqsEventSource(sqs, { url: queue.QueueUrl!, arn: queue.Arn! }, lambdas.get(mapping.functionId)!, mapping);
    source.start();
    eventSources.push(source);
  }
  for (const schedule of triggers.schedules) scheduled.set(schedule.functionId, template.Resources[schedule.ruleId]!.Properties!.Name ?? schedule.ruleId);
  // The sweeper's schedule, beside the fleet monitor's.
  const sweeperId = [...scheduled.keys()].find((id) => /sweeper/i.test(id))!;
  sweeper = lambdas.get(sweeperId)!;
  sweepRule = scheduled.get(sweeperId)!;

  const app = path.join(root, "app");
  livenessFile = path.join(root, "worker-alive");
  healthCheck = (task.healthCheck as string[] | undefined) ?? [];
  buildWorkerImage(task.contextDir, app);
  // Secrets would come from Secrets Manager or SSM at task start; none yet, so none are modelled.
  if (task.secrets.length > 0) throw new Error(`the task definition has secrets the assembly test does not model: ${JSON.stringify(task.secrets)}`);
  const taskEnvironment = resources.resolveEnvironment(task.environment);
  // The ECS agent acts with the task role: the stand-in checks each call against the role's statements.
  const clusterId = Object.keys(template.Resources).find((id) => template.Resources[id]!.Type === "AWS::ECS::Cluster")!;
  const clusterName = resources.physical.get(clusterId)!.Ref;
  agent = new FakeEcsAgent({
    taskArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${clusterName}/0123456789abcdef`,
    credentials: {
      principal: `arn:aws:sts::${ACCOUNT}:assumed-role/assembly-${roles.task}/0123456789abcdef`,
      statements: identityStatements(template as never)
        .filter((st) => st.roles.includes(roles.task))
        .map((st) => resources.resolve({ Effect: st.Effect, Action: st.Action, Resource: st.Resource, Condition: st.Condition }) as PolicyStatement),
    },
  });
  await agent.start();
  worker = new WorkerProcess(app, task.command, {
    ...taskEnvironment,
    AWS_ENDPOINT_URL: moto.endpoint,
    ...iam.environment(roles.task),
    SOLVER_PYTHON: path.join(REPO_ROOT, ".venv/bin/python"),
    JOB_LEASE_SECONDS: "5",
    ECS_AGENT_URI: agent.url,
    // The task's liveness file, in this test's folder (the task's path is shared on this machine).
    WORKER_LIVENESS_FILE: livenessFile,
    LOG_LEVEL: "WARN",
  });
  await worker.ready;
}, 240_000);

afterAll(async () => {
  await Promise.all(eventSources.map((s) => s.stop()));
  await worker?.stop();
  for (const lambda of lambdas.values()) lambda.stop();
  await gateway?.stop();
  await receiver.stop();
  await agent?.stop();
  await moto?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.runIf(run)("the cloud assembly's bundles and worker against moto", () => {
  it("initialises every Lambda bundle of the stack from its asset alone, with the template's environment", () => {
    const names = functions.map((f) => f.logicalId);
    expect(names.some((n) => n.startsWith("Api"))).toBe(true);
    expect(names.some((n) => n.startsWith("Webhooks"))).toBe(true);
    expect(names.some((n) => n.startsWith("Sweeper"))).toBe(true);
    // The API carries no native or WebAssembly solver: only jaos (TypeScript), beside its bundle.
    const apiAsset = functions.find((f) => f.logicalId.startsWith("Api"))!.assetDir;
    expect(readdirSync(apiAsset).filter((f) => f.endsWith(".wasm"))).toEqual([]);
    for (const fn of functions) expect(existsSync(path.join(fn.assetDir, "index.mjs")), fn.logicalId).toBe(true);
    expect(existsSync(path.join(apiAsset, "mcp-sdk.mjs"))).toBe(true);
    // jaos for the small solves the API answers itself, a file of its own (parsed only when used).
    expect(existsSync(path.join(apiAsset, "api-solver.mjs"))).toBe(true);
  });

  it("moto enforces each role's rights: a call its role lacks is refused, the same call as the right role passes", async () => {
    const { task } = otherRoles(template);
    const webhookRole = roleOfFunction(template, functions.find((f) => f.logicalId.startsWith("Webhooks"))!.logicalId);
    const tableName = resources.resolveEnvironment({
      t: { Ref: Object.keys(template.Resources).find((id) => template.Resources[id]!.Type === "AWS::DynamoDB::Table")! },
    }).t!;
    const bucket = resources.resolveEnvironment(functions.find((f) => f.logicalId.startsWith("Api"))!.environment).BLOB_BUCKET!;
    const as = (roleId: string) => ({ region: REGION, endpoint: moto.endpoint, credentials: iam.credentials.get(roleId)! });
    const del = new DeleteCommand({ TableName: tableName, Key: { pk: "ASSEMBLY#RIGHTS", sk: "x" } });
    // moto answers a refusal 403 (as XML, which the JSON clients cannot parse; the status is what counts).
    const refused = { $metadata: expect.objectContaining({ httpStatusCode: 403 }) };
    // The webhook function may not delete items (no code of it does); the worker may.
    await expect(DynamoDBDocumentClient.from(new DynamoDBClient(as(webhookRole))).send(del)).rejects.toMatchObject(refused);
    await DynamoDBDocumentClient.from(new DynamoDBClient(as(task))).send(del);
    // The worker writes results, never documents: resource-level rights hold for S3 too.
    const s3 = new S3Client({ ...as(task), forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "results/assembly/rights.json", Body: "{}" }));
    await expect(s3.send(new PutObjectCommand({ Bucket: bucket, Key: "documents/assembly/rights.json", Body: "{}" }))).rejects.toMatchObject(refused);
  });

  it("reports every health component healthy, the solver from the worker's heartbeat", async () => {
    const res = await anon.get("/api/v2/health/status");
    expect(res.status, logs()).toBe(200);
    const components = Object.fromEntries(res.body.components.map((c: { name: string; status: string; message: string }) => [c.name, c]));
    for (const name of ["database", "solver", "memory", "disk"]) expect(components[name].status, `${name}: ${components[name].message}`).toBe("healthy");
    expect(components.solver.message).toMatch(/^1 live worker\(s\); solvers: /);
    for (const solver of ["highs", "scip", "cbc", "glpk", "jaos"]) expect(components.solver.message).toContain(`${solver} `);
    expect(res.body.status).toBe("healthy");
  });

  it("the task's health check passes on the running worker: its liveness file is fresh", () => {
    expect(healthCheck[0]).toBe("CMD-SHELL");
    const command = healthCheck[1]!.replaceAll(taskLivenessPath(), livenessFile);
    expect(() => execFileSync("sh", ["-c", command], { stdio: "pipe" }), worker.logs()).not.toThrow();
  });

  it("makes an owner through the operator's API, signs in (JWT from the Secrets Manager secret), then mints an API key", async () => {
    const email = `owner-${Date.now()}@assembly.example`;
    const made = await anon
      .as(OPERATOR_TOKEN)
      .post("/api/v2/operator/organizations", { organization_name: "Assembly", email, password: "correct horse battery staple 9" });
    expect(made.status, made.text).toBe(201);
    const login = await anon.post("/api/v2/auth/login", { email, password: "correct horse battery staple 9" });
    expect(login.status, login.text).toBe(200);
    const key = await anon.as(login.body.access_token).post("/api/v2/keys", { name: "assembly" });
    expect(key.status, key.text).toBe(201);
    api = anon.as(key.body.key);
    expect((await api.get("/api/v2/credits/balance")).status).toBe(200);
  });

  it("answers MCP from the SDK module shipped beside the API bundle (loaded on the first MCP request)", async () => {
    const headers = { accept: "application/json, text/event-stream" };
    const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => api.post("/api/v2/mcp", { jsonrpc: "2.0", id, method, params }, headers);
    const init = await rpc(1, "initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "assembly", version: "1" } });
    expect(init.status, `${init.text}\n${logs()}`).toBe(200);
    expect(init.body.result.serverInfo.name).toBe("incumbent");
    const tools = await rpc(2, "tools/list");
    expect(tools.body.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      "compare_solvers",
      "compare_solvers_on_datasets",
      "get_solver_comparison",
      "get_solver_comparison_matrix",
    ]);
  });

  it("serves the web console from the API bundle: the page under its CSP, and the script and stylesheet it names", async () => {
    const page = await fetch(`${gateway.url}/console`);
    const html = await page.text();
    expect(page.status, `${html.slice(0, 300)}\n${logs()}`).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const res = await fetch(`${gateway.url}${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type")).toMatch(asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      expect((await res.text()).length).toBeGreaterThan(1000);
    }
  });

  it("answers a plain solve: API → jobs queue → worker → table → API, the worker's task protected while it solves", async () => {
    const res = await api.post("/api/v2/solve", { problem: MILP, solver_name: "highs" });
    expect(res.status, `${res.text}\n${logs()}`).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", objective_value: 10.5, solution: { x: 0.5, y: 5 }, solver_name: "highs" });
    // The ECS agent's calls, made with the task role's credentials: protected for the job, then lifted.
    await eventually(
      async () => agent.calls.length,
      (n) => n >= 2,
      { timeoutMs: 10_000, everyMs: 50 },
    );
    expect(agent.calls.slice(0, 2).map((c) => [c.enabled, c.authorized])).toEqual([
      [true, true],
      [false, true],
    ]);
  });

  it("runs a comparison of every solver the image carries, rows one after another on the worker", async () => {
    const launched = await api.post("/api/v2/solvers/compare", { problem: MILP, solver_names: ["highs", "scip", "cbc", "glpk", "jaos"] });
    expect(launched.status, launched.text).toBe(202);
    const done = await eventually<any>(async () => (await api.get(`/api/v2/solvers/compare/${launched.body.id}`)).body, final, {
      timeoutMs: 60_000,
      everyMs: 250,
    });
    expect(done.status, JSON.stringify(done)).toBe("completed");
    expect(done.results.map((r: { objective_value: number }) => r.objective_value)).toEqual([10.5, 10.5, 10.5, 10.5, 10.5]);
    expect(done.agreement.objectives_agree).toBe(true);
  });

  it("fires a trigger whose run ends in a signed webhook: worker → webhooks queue → webhook function → receiver", async () => {
    const { documentId, versionId } = await createKnapsackDocument(api);
    const trigger = await createTrigger(api, {
      document_id: documentId,
      version_id: versionId,
      override_schema: [{ name: "capacity", type: "number", required: true, default: 5 }],
      webhook_url: receiver.url,
      webhook_secret: WEBHOOK_SECRET,
    });
    const fired = await anon.post(`/api/v2/triggers/${trigger.id}/fire`, { override_data: { capacity: 7 } }, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status, fired.text).toBe(202);
    const [hook] = await receiver.waitFor(1, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${logs()}`);
    });
    expect(verifyIncumbentSignature(hook!, WEBHOOK_SECRET)).toBe(true);
    expect(verifyIncumbentSignature(hook!, "whsec_someone-else")).toBe(false);
    expect(hook!.body).toMatchObject({ event: "trigger.run.completed", trigger_id: trigger.id, run_id: fired.body.run_id, data: { status: "completed" } });
    expect(hook!.body.data.result.objective_value).toBeCloseTo(KNAPSACK_BEST[7]!, 9);
  });

  it("keeps a scheduled trigger's EventBridge schedule from the API's bundle; its firing, delivered twice, makes one run", async () => {
    const scheduler = new SchedulerClient({ region: REGION, endpoint: moto.endpoint, credentials: admin });
    const apiFunction = functions.find((f) => f.logicalId.startsWith("Api"))!;
    const environment = resources.resolveEnvironment(apiFunction.environment);
    const { documentId, versionId } = await createKnapsackDocument(api);
    const trigger = await createTrigger(api, {
      document_id: documentId,
      version_id: versionId,
      schedule: { expression: "cron(0 6 ? * MON-FRI *)", timezone: "Europe/Amsterdam" },
    });
    const name = `${environment.TABLE_NAME}-${trigger.id}`.slice(0, 64);
    const read = () => scheduler.send(new GetScheduleCommand({ Name: name, GroupName: environment.SCHEDULER_GROUP_NAME }));

    // Created by the API's bundle through the template's role and group, aimed at the trigger's band's queue.
    const created = await read();
    expect(created).toMatchObject({ ScheduleExpression: "cron(0 6 ? * MON-FRI *)", ScheduleExpressionTimezone: "Europe/Amsterdam", State: "ENABLED" });
    expect(created.FlexibleTimeWindow?.Mode).toBe("OFF");
    expect(created.Target?.RoleArn).toBe(environment.SCHEDULER_ROLE_ARN);
    const queue = [...resources.physical.values()].find((r) => r.Arn === created.Target?.Arn);
    expect(queue?.QueueUrl, `target ${created.Target?.Arn}`).toBe(environment.JOBS_QUEUE_URL);
    const input = JSON.parse(created.Target!.Input!);
    expect(input).toMatchObject({ type: "trigger_schedule", trigger_id: trigger.id, scheduled_at: "<aws.scheduler.scheduled-time>" });

    // The scheduler's delivery, at least once, as the schedule's role: the same firing twice makes one
    // run, owned by the schedule.
    const firing = created.Target!.Input!.replace("<aws.scheduler.scheduled-time>", "2026-11-23T05:00:00Z");
    const asScheduler = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials: iam.credentials.get(otherRoles(template).scheduler)! });
    for (let i = 0; i < 2; i++) await asScheduler.send(new SendMessageCommand({ QueueUrl: queue!.QueueUrl!, MessageBody: firing }));
    const sqs = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials: admin });
    const runsOf = async () => (await api.get(`/api/v2/triggers/${trigger.id}/runs?page_size=100`)).body.items as { id: string; status: string }[];
    const [run] = await eventually(runsOf, (items) => items.length > 0 && items.every((r) => ["completed", "failed"].includes(r.status)), {
      timeoutMs: 60_000,
      everyMs: 250,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${logs()}`);
    });
    expect((await api.get(`/api/v2/triggers/${trigger.id}/runs/${run!.id}`)).body).toMatchObject({
      source: "schedule",
      status: "completed",
      trigger_id: trigger.id,
    });
    // The worker took both messages (the queue drains) and recorded the second as the same firing.
    await eventually(
      async () =>
        (
          await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: queue!.QueueUrl!,
              AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
            }),
          )
        ).Attributes!,
      (a) => a.ApproximateNumberOfMessages === "0" && a.ApproximateNumberOfMessagesNotVisible === "0",
      { timeoutMs: 30_000, everyMs: 250 },
    );
    expect((await runsOf()).map((r) => r.id)).toEqual([run!.id]);

    // A changed schedule updates the same schedule; removing it deletes it.
    expect((await api.patch(`/api/v2/triggers/${trigger.id}`, { schedule: { expression: "rate(2 hours)" } })).status).toBe(200);
    expect(await read()).toMatchObject({ ScheduleExpression: "rate(2 hours)", ScheduleExpressionTimezone: "UTC" });
    expect((await api.patch(`/api/v2/triggers/${trigger.id}`, { schedule: null })).status).toBe(200);
    await expect(read()).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it("runs every scheduled function on EventBridge's event (the fleet monitor reads the service and the queue)", async () => {
    expect(scheduled.size).toBeGreaterThanOrEqual(1);
    for (const [id, rule] of scheduled) {
      const out = await lambdas.get(id)!.invoke(scheduledEvent(rule));
      expect(out.error, `${id}: ${out.error?.stack}\n${lambdas.get(id)!.logs()}`).toBeUndefined();
    }
  });

  it("fails the job of a worker killed mid-solve once its lease lapses, when the scheduled sweeper runs", async () => {
    const res = await api.post("/api/v2/solve/async", { problem: marketSplitProblem(4, 40, 3), solver_name: "glpk", settings: { time_limit_seconds: 60 } });
    expect(res.status, res.text).toBe(202);
    const id = res.body.execution_id;
    const read = async () => (await api.get(`/api/v2/models/executions/${id}`)).body;
    await eventually(read, (e) => e.status === "running", { timeoutMs: 30_000, everyMs: 100 });
    worker.killTask();

    // A sweep while the lease still holds leaves the job alone…
    const early = await sweeper.invoke(scheduledEvent(sweepRule));
    expect(early.error, sweeper.logs()).toBeUndefined();
    expect((await read()).status).toBe("running");
    // …and once it lapsed (5 s, never renewed by the dead worker) the sweep fails it.
    const swept = await eventually(
      async () => {
        const out = await sweeper.invoke(scheduledEvent(sweepRule));
        expect(out.error, sweeper.logs()).toBeUndefined();
        return read();
      },
      final,
      { timeoutMs: 20_000, everyMs: 1000 },
    );
    expect(swept.status).toBe("failed");
    expect(JSON.stringify(swept)).toMatch(/lease expired/);
  });

  it("answers from zero: with no live worker (the fleet at zero tasks), a small plain solve is answered by the API function itself", async () => {
    // The killed worker is gone; its last heartbeat would still read live for three beats. A stage at
    // zero has no live heartbeat at all: mark every worker stopped, as a clean stop does.
    const env = resources.resolveEnvironment(functions.find((f) => f.logicalId.startsWith("Api"))!.environment);
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: REGION, endpoint: moto.endpoint, credentials: admin }));
    const workers = await doc.send(
      new QueryCommand({ TableName: env.TABLE_NAME, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "WORKERS" } }),
    );
    for (const w of workers.Items ?? []) {
      await doc.send(
        new UpdateCommand({
          TableName: env.TABLE_NAME,
          Key: { pk: w.pk, sk: w.sk },
          UpdateExpression: "SET stopped_at = :t",
          ExpressionAttributeValues: { ":t": new Date().toISOString() },
        }),
      );
    }
    expect(Number(env.API_SOLVE_MAX_NONZEROS)).toBeGreaterThan(0);
    const res = await api.post("/api/v2/solve", { problem: MILP, solver_name: "auto" });
    expect(res.status, `${res.text}\n${logs()}`).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", objective_value: 10.5, solution: { x: 0.5, y: 5 }, solver_name: "jaos" });
    expect((await api.get(`/api/v2/models/executions/${res.body.execution_id}`)).body).toMatchObject({ status: "completed", solved_by: "api" });
  });
});
