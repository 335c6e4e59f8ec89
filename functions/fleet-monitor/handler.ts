import { PutMetricDataCommand, type CloudWatchClient, type MetricDatum } from "@aws-sdk/client-cloudwatch";
import { DescribeServicesCommand, type ECSClient } from "@aws-sdk/client-ecs";
import { GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";

/**
 * The fleet monitor: once a minute it publishes what the fleet's scaling policy tracks, backlog per
 * task = (jobs waiting + jobs held by workers, over every priority band's queue) ÷ running tasks, with the counts it came from.
 *
 * CloudWatch has no running-task count of a Fargate service without Container Insights, so the ratio is
 * computed here rather than in metric math. With no task running the ratio is undefined and is not
 * published (target tracking then does nothing); starting from zero is a step policy's job, on the
 * waiting jobs and running tasks published here (lib/fleet-scaling.ts). The queue's own CloudWatch
 * metrics are not used for that: SQS stops publishing them for a queue idle six hours and resumes late.
 */
export const FLEET_METRICS_NAMESPACE = "Incumbent/Fleet";

export const FLEET_METRIC = {
  backlogPerTask: "BacklogPerTask",
  /** Jobs no worker has taken (the queue's visible messages). */
  waitingJobs: "WaitingJobs",
  runningTasks: "RunningTasks",
} as const;

export interface FleetMonitorOptions {
  cluster: string;
  service: string;
  /** Every priority band's queue (functions/core/queue/priority.ts): the backlog is their sum. */
  queueUrls: string[];
}

export interface FleetReading {
  waiting: number;
  held: number;
  running: number;
  desired: number;
  backlogPerTask: number | null;
}

export function createFleetMonitor(
  clients: { ecs: Pick<ECSClient, "send">; sqs: Pick<SQSClient, "send">; cloudwatch: Pick<CloudWatchClient, "send"> },
  options: FleetMonitorOptions,
) {
  return async (): Promise<FleetReading> => {
    const [bands, services] = await Promise.all([
      Promise.all(
        [...new Set(options.queueUrls)].map((url) =>
          clients.sqs.send(
            new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }),
          ),
        ),
      ),
      clients.ecs.send(new DescribeServicesCommand({ cluster: options.cluster, services: [options.service] })),
    ]);
    const service = services.services?.[0];
    if (!service) throw new Error(`ECS service ${options.service} not found in ${options.cluster}: ${JSON.stringify(services.failures ?? [])}`);
    const count = (name: "ApproximateNumberOfMessages" | "ApproximateNumberOfMessagesNotVisible") =>
      bands.reduce((sum, band) => sum + Number(band.Attributes?.[name] ?? 0), 0);
    const waiting = count("ApproximateNumberOfMessages");
    const held = count("ApproximateNumberOfMessagesNotVisible");
    const running = service.runningCount ?? 0;
    const reading: FleetReading = {
      waiting,
      held,
      running,
      desired: service.desiredCount ?? 0,
      backlogPerTask: running > 0 ? (waiting + held) / running : null,
    };
    const dimensions = [{ Name: "ServiceName", Value: options.service }];
    const timestamp = new Date();
    const data: MetricDatum[] = [
      { MetricName: FLEET_METRIC.waitingJobs, Dimensions: dimensions, Timestamp: timestamp, Unit: "Count", Value: waiting },
      { MetricName: FLEET_METRIC.runningTasks, Dimensions: dimensions, Timestamp: timestamp, Unit: "Count", Value: running },
    ];
    if (reading.backlogPerTask !== null) {
      data.push({ MetricName: FLEET_METRIC.backlogPerTask, Dimensions: dimensions, Timestamp: timestamp, Unit: "None", Value: reading.backlogPerTask });
    }
    await clients.cloudwatch.send(new PutMetricDataCommand({ Namespace: FLEET_METRICS_NAMESPACE, MetricData: data }));
    return reading;
  };
}
