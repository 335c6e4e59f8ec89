import { PutMetricDataCommand, type PutMetricDataCommandInput } from "@aws-sdk/client-cloudwatch";
import { DescribeServicesCommand } from "@aws-sdk/client-ecs";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { createFleetMonitor, FLEET_METRIC, FLEET_METRICS_NAMESPACE } from "../../../../functions/fleet-monitor/handler.js";

/** Fake AWS clients: each answers its one command and records what it was sent. */
function fleet(state: { waiting: number; held: number; running: number; desired: number; otherBands?: { waiting: number; held: number } }) {
  const published: PutMetricDataCommandInput[] = [];
  const asked: unknown[] = [];
  const clients = {
    sqs: {
      send: async (command: unknown) => {
        asked.push(command);
        if (!(command instanceof GetQueueAttributesCommand)) throw new Error("unexpected SQS command");
        // The normal band's queue holds `waiting` and `held`; the high and low bands' each hold `otherBands`.
        const band = command.input.QueueUrl === options.queueUrls[0] ? state : (state.otherBands ?? { waiting: 0, held: 0 });
        return { Attributes: { ApproximateNumberOfMessages: String(band.waiting), ApproximateNumberOfMessagesNotVisible: String(band.held) } };
      },
    },
    ecs: {
      send: async (command: unknown) => {
        asked.push(command);
        if (!(command instanceof DescribeServicesCommand)) throw new Error("unexpected ECS command");
        return command.input.services?.[0] === "incumbent-dev-solver"
          ? { services: [{ serviceName: "incumbent-dev-solver", runningCount: state.running, desiredCount: state.desired }] }
          : { services: [], failures: [{ reason: "MISSING" }] };
      },
    },
    cloudwatch: {
      send: async (command: unknown) => {
        if (!(command instanceof PutMetricDataCommand)) throw new Error("unexpected CloudWatch command");
        published.push(command.input);
        return {};
      },
    },
  };
  return { clients: clients as never, published, asked };
}

const options = {
  cluster: "arn:aws:ecs:eu-west-1:123456789012:cluster/incumbent-dev-solvers",
  service: "incumbent-dev-solver",
  queueUrls: ["https://sqs/jobs", "https://sqs/jobs-high", "https://sqs/jobs-low"],
};
const metricValue = (input: PutMetricDataCommandInput, name: string) => input.MetricData?.find((d) => d.MetricName === name)?.Value;

describe("fleet monitor: backlog per task", () => {
  it("publishes (waiting + held) ÷ running, with the waiting jobs and running tasks, per service", async () => {
    const f = fleet({ waiting: 5, held: 3, running: 4, desired: 4 });
    const reading = await createFleetMonitor(f.clients, options)();
    expect(reading).toEqual({ waiting: 5, held: 3, running: 4, desired: 4, backlogPerTask: 2 });
    expect(f.published).toHaveLength(1);
    const [input] = f.published;
    expect(input!.Namespace).toBe(FLEET_METRICS_NAMESPACE);
    expect(metricValue(input!, FLEET_METRIC.backlogPerTask)).toBe(2);
    expect(metricValue(input!, FLEET_METRIC.waitingJobs)).toBe(5);
    expect(metricValue(input!, FLEET_METRIC.runningTasks)).toBe(4);
    for (const d of input!.MetricData ?? []) expect(d.Dimensions).toEqual([{ Name: "ServiceName", Value: "incumbent-dev-solver" }]);
    const describe = f.asked.find((c) => c instanceof DescribeServicesCommand) as DescribeServicesCommand;
    expect(describe.input).toEqual({ cluster: options.cluster, services: [options.service] });
  });

  it("counts the jobs of every priority band's queue", async () => {
    const f = fleet({ waiting: 5, held: 3, running: 4, desired: 4, otherBands: { waiting: 2, held: 1 } });
    const reading = await createFleetMonitor(f.clients, options)();
    expect(reading).toEqual({ waiting: 9, held: 5, running: 4, desired: 4, backlogPerTask: 3.5 });
    const asked = f.asked.filter((c) => c instanceof GetQueueAttributesCommand).map((c) => (c as GetQueueAttributesCommand).input.QueueUrl);
    expect(asked.sort()).toEqual([...options.queueUrls].sort());
  });

  it("with no task running the ratio is undefined: it is not published, the waiting jobs and zero tasks are (the from-zero step reads them)", async () => {
    const f = fleet({ waiting: 2, held: 0, running: 0, desired: 0 });
    const reading = await createFleetMonitor(f.clients, options)();
    expect(reading.backlogPerTask).toBeNull();
    const [input] = f.published;
    expect(metricValue(input!, FLEET_METRIC.backlogPerTask)).toBeUndefined();
    expect(metricValue(input!, FLEET_METRIC.waitingJobs)).toBe(2);
    expect(metricValue(input!, FLEET_METRIC.runningTasks)).toBe(0);
  });

  it("an idle fleet reports zero backlog per task, so target tracking scales it in to its minimum", async () => {
    const f = fleet({ waiting: 0, held: 0, running: 3, desired: 3 });
    expect((await createFleetMonitor(f.clients, options)()).backlogPerTask).toBe(0);
    expect(metricValue(f.published[0]!, FLEET_METRIC.backlogPerTask)).toBe(0);
  });

  it("a service ECS does not know fails the invocation (the monitor's error alarm), publishing nothing", async () => {
    const f = fleet({ waiting: 1, held: 0, running: 1, desired: 1 });
    await expect(createFleetMonitor(f.clients, { ...options, service: "gone" })()).rejects.toThrow(/ECS service gone not found/);
    expect(f.published).toEqual([]);
  });
});
