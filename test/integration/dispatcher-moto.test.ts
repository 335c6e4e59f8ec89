import { CreateClusterCommand, DescribeTasksCommand, ECSClient, ListTasksCommand, RegisterTaskDefinitionCommand, StopTaskCommand } from "@aws-sdk/client-ecs";
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/core/logger.js";
import type { JobMessage } from "../../functions/core/queue/messages.js";
import { EcsTaskLauncher, type EcsLauncherOptions } from "../../functions/dispatcher/ecs-launcher.js";
import { createDispatcher, type SqsBatchResponse } from "../../functions/dispatcher/handler.js";
import { SOLVER_CONTAINER_NAME } from "../../lib/solver-fleet.js";
import { startMotoBackend, type Backend } from "../support/backends.js";
import { machineHas } from "../support/machine.js";

/**
 * The dispatcher's RunTask path against moto_server's ECS (no hand-written fake): a job message
 * becomes a Fargate task whose container override carries the job; a message whose launch fails —
 * capacity reached, an unknown task definition, a malformed body — comes back in batchItemFailures,
 * and, through a real SQS queue, is delivered again rather than lost.
 */
const REGION = "us-east-1";
const credentials = { accessKeyId: "test", secretAccessKey: "test" };
/** Launch errors the dispatcher logged, to show why a message failed when a test does not expect it. */
const launchErrors: unknown[] = [];
const logger = createLogger("dispatcher-moto-test");
logger.warn = ((_message: string, extra?: { error?: unknown }) => void launchErrors.push(extra?.error)) as typeof logger.warn;
const job = (id: string): JobMessage => ({ type: "execution", id, org_id: "org_moto" });
const record = (messageId: string, body: unknown) => ({ messageId, body: typeof body === "string" ? body : JSON.stringify(body) });

/** moto's EC2 through its query API (no EC2 SDK client in this project): the awsvpc tasks' subnet and security group. */
async function ec2(endpoint: string, action: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      // moto routes by the credential scope's service name; it does not check the signature.
      authorization: `AWS4-HMAC-SHA256 Credential=test/20240101/${REGION}/ec2/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ Action: action, Version: "2016-11-15", ...params }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`EC2 ${action}: ${res.status} ${text}`);
  return text;
}
const xmlValue = (xml: string, tag: string) => new RegExp(`<${tag}>([^<]+)</${tag}>`).exec(xml)?.[1] ?? "";

describe.skipIf(!machineHas("moto_server"))("dispatcher → ECS RunTask on moto_server", () => {
  let moto: Backend;
  let ecs: ECSClient;
  let sqs: SQSClient;
  let options: EcsLauncherOptions;

  beforeAll(async () => {
    moto = await startMotoBackend();
    ecs = new ECSClient({ region: REGION, endpoint: moto.endpoint, credentials });
    sqs = new SQSClient({ region: REGION, endpoint: moto.endpoint, credentials });
    const vpcId = xmlValue(await ec2(moto.endpoint, "CreateVpc", { CidrBlock: "10.0.0.0/16" }), "vpcId");
    // As in the stack's VPC; moto also needs it to name the task's network interface.
    await ec2(moto.endpoint, "ModifyVpcAttribute", { VpcId: vpcId, "EnableDnsHostnames.Value": "true" });
    const subnetId = xmlValue(await ec2(moto.endpoint, "CreateSubnet", { VpcId: vpcId, CidrBlock: "10.0.1.0/24" }), "subnetId");
    const groupId = xmlValue(
      await ec2(moto.endpoint, "CreateSecurityGroup", { VpcId: vpcId, GroupName: "solver", GroupDescription: "solver tasks" }),
      "groupId",
    );
    const cluster = await ecs.send(new CreateClusterCommand({ clusterName: "incumbent-test-solvers" }));
    const taskDefinition = await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: "incumbent-test-solver",
        networkMode: "awsvpc",
        requiresCompatibilities: ["FARGATE"],
        cpu: "1024",
        memory: "2048",
        // moto sizes tasks from the container (Fargate reads the task-level size).
        containerDefinitions: [{ name: SOLVER_CONTAINER_NAME, image: "incumbent-solver:test", essential: true, cpu: 1024, memory: 2048 }],
      }),
    );
    options = {
      cluster: cluster.cluster!.clusterArn!,
      taskDefinition: taskDefinition.taskDefinition!.taskDefinitionArn!,
      containerName: SOLVER_CONTAINER_NAME,
      subnets: [subnetId],
      securityGroups: [groupId],
      assignPublicIp: true,
      maxRunningTasks: 2,
      startedBy: "incumbent-test-dispatcher",
    };
  });
  afterAll(async () => moto?.stop());

  const runningTasks = async () => {
    const { taskArns = [] } = await ecs.send(new ListTasksCommand({ cluster: options.cluster, startedBy: options.startedBy, desiredStatus: "RUNNING" }));
    if (taskArns.length === 0) return [];
    const { tasks = [] } = await ecs.send(new DescribeTasksCommand({ cluster: options.cluster, tasks: taskArns, include: ["TAGS"] }));
    return tasks;
  };
  const jobOf = (task: { overrides?: { containerOverrides?: { name?: string; environment?: { name?: string; value?: string }[] }[] } }) => {
    const override = task.overrides?.containerOverrides?.find((o) => o.name === SOLVER_CONTAINER_NAME);
    return JSON.parse(override?.environment?.find((e) => e.name === "JOB")?.value ?? "null") as JobMessage | null;
  };

  it("starts one Fargate task per job, the job in the solver container's JOB override", async () => {
    const dispatch = createDispatcher(new EcsTaskLauncher(ecs, options), logger);
    const out = await dispatch({ Records: [record("m-1", job("exe_moto_1"))] });
    expect(out.batchItemFailures, String(launchErrors.at(-1))).toEqual([]);
    const tasks = await runningTasks();
    expect(tasks).toHaveLength(1);
    const task = tasks[0]!;
    expect(jobOf(task)).toEqual(job("exe_moto_1"));
    expect(task.taskDefinitionArn).toBe(options.taskDefinition);
    expect(task.launchType).toBe("FARGATE");
    expect(task.startedBy).toBe(options.startedBy);
    expect(task.tags).toEqual(expect.arrayContaining([{ key: "incumbent:job-id", value: "exe_moto_1" }]));
    // In the configured subnet (awsvpc: the task's network interface is placed there).
    expect(task.attachments?.[0]?.details).toEqual(expect.arrayContaining([{ name: "subnetId", value: options.subnets[0] }]));
  });

  it("at the maximum of running tasks, further jobs are returned as failures and wait; a stopped task frees a slot", async () => {
    const dispatch = createDispatcher(new EcsTaskLauncher(ecs, options), logger);
    const out = await dispatch({ Records: [record("m-2", job("exe_moto_2")), record("m-3", job("exe_moto_3")), record("m-4", job("exe_moto_4"))] });
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "m-3" }, { itemIdentifier: "m-4" }]);
    expect((await runningTasks()).map((t) => jobOf(t)?.id).sort()).toEqual(["exe_moto_1", "exe_moto_2"]);

    const first = (await runningTasks()).find((t) => jobOf(t)?.id === "exe_moto_1")!;
    await ecs.send(new StopTaskCommand({ cluster: options.cluster, task: first.taskArn!, reason: "job finished" }));
    const retry = await dispatch({ Records: [record("m-3", job("exe_moto_3"))] });
    expect(retry.batchItemFailures).toEqual([]);
    expect((await runningTasks()).map((t) => jobOf(t)?.id).sort()).toEqual(["exe_moto_2", "exe_moto_3"]);
  });

  it("a RunTask that ECS refuses (unknown task definition) and a malformed message are failures, and start nothing", async () => {
    const before = (await runningTasks()).length;
    const broken = createDispatcher(new EcsTaskLauncher(ecs, { ...options, taskDefinition: "incumbent-test-missing:1", maxRunningTasks: 0 }), logger);
    const out = await broken({ Records: [record("m-5", job("exe_moto_5")), record("m-6", "{not json"), record("m-7", { type: "execution" })] });
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "m-5" }, { itemIdentifier: "m-6" }, { itemIdentifier: "m-7" }]);
    expect(await runningTasks()).toHaveLength(before);
  });

  it("through SQS, a failed launch is delivered again (not lost) and reaches the DLQ after maxReceiveCount", async () => {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: "incumbent-test-jobs-dlq" }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ["QueueArn"] }))).Attributes!.QueueArn!;
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: "incumbent-test-jobs",
        Attributes: { VisibilityTimeout: "1", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }) },
      }),
    );
    const failing = createDispatcher(new EcsTaskLauncher(ecs, { ...options, taskDefinition: "incumbent-test-missing:1", maxRunningTasks: 0 }), logger);
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.QueueUrl, MessageBody: JSON.stringify(job("exe_moto_8")) }));

    /** What Lambda's SQS event source does with a batch: delete what the handler did not report. */
    const pollOnce = async (): Promise<SqsBatchResponse | null> => {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }));
      if (Messages.length === 0) return null;
      const response = await failing({ Records: Messages.map((m) => record(m.MessageId!, m.Body!)) });
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      for (const m of Messages)
        if (!failed.has(m.MessageId!)) await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
      return response;
    };

    const deliveries: SqsBatchResponse[] = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl, WaitTimeSeconds: 0 }));
      if (Messages.length > 0) {
        expect(JSON.parse(Messages[0]!.Body!)).toEqual(job("exe_moto_8"));
        break;
      }
      const response = await pollOnce();
      if (response) deliveries.push(response);
      else await new Promise((r) => setTimeout(r, 300));
    }
    // Delivered twice (maxReceiveCount), reported failed both times, then moved to the DLQ.
    expect(deliveries).toHaveLength(2);
    for (const d of deliveries) expect(d.batchItemFailures).toHaveLength(1);
    const { Messages: left = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, WaitTimeSeconds: 0 }));
    expect(left).toHaveLength(0);
  });
});
