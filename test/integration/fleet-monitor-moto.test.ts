import { CloudWatchClient, GetMetricStatisticsCommand } from "@aws-sdk/client-cloudwatch";
import { CreateClusterCommand, CreateServiceCommand, ECSClient, RegisterTaskDefinitionCommand, UpdateServiceCommand } from "@aws-sdk/client-ecs";
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFleetMonitor, FLEET_METRIC, FLEET_METRICS_NAMESPACE } from "../../functions/fleet-monitor/handler.js";
import { SOLVER_CONTAINER_NAME } from "../../lib/solver-fleet.js";
import { startMotoBackend, type Backend } from "../support/backends.js";
import { machineHas } from "../support/machine.js";

/**
 * The fleet monitor against moto_server's SQS, ECS and CloudWatch (no hand-written fake): it reads a
 * real queue's visible and in-flight counts and a real service's running count, and the metrics the
 * scaling policy and the from-zero step read come back from CloudWatch under the service's dimension.
 * (moto starts a service with no running task and runs every desired task once the count is updated.)
 */
const REGION = "us-east-1";
const credentials = { accessKeyId: "test", secretAccessKey: "test" };
const SERVICE = "incumbent-test-solver";

describe.skipIf(!machineHas("moto_server"))("fleet monitor on moto_server: queue + service → Incumbent/Fleet metrics", () => {
  let moto: Backend;
  let ecs: ECSClient;
  let sqs: SQSClient;
  let cloudwatch: CloudWatchClient;
  let cluster: string;
  let queueUrl: string;
  let startedAt: Date;

  beforeAll(async () => {
    moto = await startMotoBackend();
    const client = { region: REGION, endpoint: moto.endpoint, credentials };
    ecs = new ECSClient(client);
    sqs = new SQSClient(client);
    cloudwatch = new CloudWatchClient(client);
    startedAt = new Date(Date.now() - 60_000);
    cluster = (await ecs.send(new CreateClusterCommand({ clusterName: "incumbent-test-solvers" }))).cluster!.clusterArn!;
    const taskDefinition = await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: "incumbent-test-solver",
        requiresCompatibilities: ["FARGATE"],
        cpu: "1024",
        memory: "2048",
        containerDefinitions: [{ name: SOLVER_CONTAINER_NAME, image: "incumbent-solver:test", essential: true, cpu: 1024, memory: 2048 }],
      }),
    );
    await ecs.send(
      new CreateServiceCommand({ cluster, serviceName: SERVICE, taskDefinition: taskDefinition.taskDefinition!.taskDefinitionArn!, desiredCount: 0 }),
    );
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: "incumbent-test-jobs" }))).QueueUrl!;
  }, 60_000);

  afterAll(async () => {
    await moto?.stop();
  });

  const monitor = () => createFleetMonitor({ ecs, sqs, cloudwatch }, { cluster, service: SERVICE, queueUrls: [queueUrl] })();
  const statistics = async (metric: string) => {
    const out = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: FLEET_METRICS_NAMESPACE,
        MetricName: metric,
        Dimensions: [{ Name: "ServiceName", Value: SERVICE }],
        StartTime: startedAt,
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ["Maximum", "SampleCount"],
      }),
    );
    return out.Datapoints ?? [];
  };

  it("with jobs waiting and no task running: waiting jobs and zero tasks published, no ratio (the from-zero step's inputs)", async () => {
    for (const n of [1, 2, 3]) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ n }) }));
    const reading = await monitor();
    expect(reading).toMatchObject({ waiting: 3, held: 0, running: 0, backlogPerTask: null });
    expect((await statistics(FLEET_METRIC.waitingJobs)).map((d) => d.Maximum)).toEqual([3]);
    expect((await statistics(FLEET_METRIC.runningTasks)).map((d) => d.Maximum)).toEqual([0]);
    expect(await statistics(FLEET_METRIC.backlogPerTask)).toEqual([]);
  });

  it("with tasks running: (waiting + held) ÷ running, a held job counted as backlog", async () => {
    await ecs.send(new UpdateServiceCommand({ cluster, service: SERVICE, desiredCount: 2 }));
    // A worker holds one job: it is in flight, still backlog until its message is deleted.
    const held = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 300 }));
    expect(held.Messages).toHaveLength(1);
    const reading = await monitor();
    expect(reading).toMatchObject({ waiting: 2, held: 1, running: 2, desired: 2, backlogPerTask: 1.5 });
    const ratio = await statistics(FLEET_METRIC.backlogPerTask);
    expect(ratio.map((d) => d.Maximum)).toEqual([1.5]);
  });
});
