import { Duration } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { OUTCOME_DIMENSION, SERVICE_DIMENSION, SERVICE_METRIC, SERVICE_METRICS_NAMESPACE } from "../functions/core/observability/metric-names.js";
import { FLEET_METRIC, FLEET_METRICS_NAMESPACE } from "../functions/fleet-monitor/handler.js";
import type { ServiceFunction } from "./service-function.js";

export interface ServiceDashboardProps {
  namePrefix: string;
  httpApi: apigwv2.HttpApi;
  /** The API function's timeout, drawn on the latency graph. */
  apiTimeout: Duration;
  functions: Record<string, ServiceFunction>;
  /** Work queues by band name (high, normal, low, webhooks) and their DLQs. */
  queues: Record<string, { queue: sqs.IQueue; dlq: sqs.IQueue }>;
  /** The fleet's ECS service name and bounds, when the stage has a fleet. */
  fleet?: { serviceName: string; maxTasks: number };
  /** `service` dimensions of the worker's, the API's and the sweeper's own metrics. */
  services: { worker: string; api: string; sweeper: string };
  accountLambdaConcurrency: number;
}

const PERIOD = Duration.minutes(5);

/**
 * One CloudWatch dashboard for the service, in the order an operator reads it: is the API answering
 * (requests, errors, latency), is work flowing (backlog, tasks, how long jobs wait and run), what do
 * solves end in, and what failed for good (DLQs, jobs the sweeper failed).
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const ours = (metricName: string, { service, statistic, label }: { service: string; statistic: string; label?: string }) =>
      new cloudwatch.Metric({
        namespace: SERVICE_METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { [SERVICE_DIMENSION]: service },
        period: PERIOD,
        statistic,
        label,
      });
    const fleetMetric = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: FLEET_METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { ServiceName: props.fleet!.serviceName },
        period: Duration.minutes(1),
        statistic,
        label,
      });
    const api = props.httpApi;
    const width = 12;

    const widgets: cloudwatch.IWidget[][] = [
      [
        new cloudwatch.GraphWidget({
          title: "API requests and errors",
          width,
          left: [
            api.metricCount({ period: PERIOD, statistic: "Sum", label: "requests" }),
            api.metricClientError({ period: PERIOD, statistic: "Sum", label: "4xx" }),
            api.metricServerError({ period: PERIOD, statistic: "Sum", label: "5xx" }),
          ],
        }),
        new cloudwatch.GraphWidget({
          title: "API latency (ms)",
          width,
          left: ["p50", "p90", "p99"].map((statistic) => api.metricLatency({ period: PERIOD, statistic, label: statistic })),
          leftAnnotations: [{ value: props.apiTimeout.toMilliseconds(), label: "function timeout", color: cloudwatch.Color.RED }],
        }),
      ],
      [
        new cloudwatch.GraphWidget({
          title: "Function errors and throttles",
          width,
          left: Object.entries(props.functions).map(([name, f]) => f.fn.metricErrors({ period: PERIOD, statistic: "Sum", label: `${name} errors` })),
          right: Object.entries(props.functions).map(([name, f]) => f.fn.metricThrottles({ period: PERIOD, statistic: "Sum", label: `${name} throttles` })),
        }),
        new cloudwatch.GraphWidget({
          title: "Account Lambda concurrency",
          width,
          left: [
            new cloudwatch.Metric({
              namespace: "AWS/Lambda",
              metricName: "ConcurrentExecutions",
              period: Duration.minutes(1),
              statistic: "Maximum",
              label: "concurrent executions",
            }),
          ],
          leftAnnotations: [{ value: props.accountLambdaConcurrency, label: "account quota (stage setting)", color: cloudwatch.Color.RED }],
        }),
      ],
      [
        new cloudwatch.GraphWidget({
          title: "Backlog: jobs waiting per band",
          width,
          left: [
            ...Object.entries(props.queues)
              .filter(([band]) => band !== "webhooks")
              .map(([band, q]) =>
                q.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum", label: `${band} waiting` }),
              ),
            ...(props.fleet ? [fleetMetric(FLEET_METRIC.backlogPerTask, "Average", "backlog per task")] : []),
          ],
        }),
        new cloudwatch.GraphWidget({
          title: "Solver tasks",
          width,
          left: props.fleet ? [fleetMetric(FLEET_METRIC.runningTasks, "Maximum", "running tasks")] : [],
          leftAnnotations: props.fleet ? [{ value: props.fleet.maxTasks, label: "maximum", color: cloudwatch.Color.RED }] : [],
        }),
      ],
      [
        new cloudwatch.GraphWidget({
          title: "Job latency (s): queued → started, queued → final",
          width,
          left: ["p50", "p99"].flatMap((statistic) => [
            ours(SERVICE_METRIC.jobQueuedToStarted, { service: props.services.worker, statistic, label: `to started ${statistic}` }),
            ours(SERVICE_METRIC.jobQueuedToFinal, { service: props.services.worker, statistic, label: `to final ${statistic}` }),
          ]),
        }),
        new cloudwatch.GraphWidget({
          title: "Solve outcomes",
          width,
          stacked: true,
          left: [props.services.worker, props.services.api].map(
            (service) =>
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${SERVICE_METRICS_NAMESPACE},${SERVICE_DIMENSION},${OUTCOME_DIMENSION}} MetricName="${SERVICE_METRIC.solveOutcomes}" ${SERVICE_DIMENSION}="${service}"', 'Sum', ${PERIOD.toSeconds()})`,
                usingMetrics: {},
                period: PERIOD,
                label: "",
              }),
          ),
        }),
      ],
      [
        new cloudwatch.GraphWidget({
          title: "Dead letters, jobs swept or handed back, solves answered by the API",
          width: 24,
          left: Object.entries(props.queues).map(([band, q]) =>
            q.dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum", label: `${band} DLQ` }),
          ),
          right: [
            ours(SERVICE_METRIC.sweptJobs, { service: props.services.sweeper, statistic: "Sum", label: "jobs failed by the sweeper" }),
            ours(SERVICE_METRIC.jobsHandedBack, { service: props.services.worker, statistic: "Sum", label: "jobs handed back" }),
            ours(SERVICE_METRIC.apiSolves, { service: props.services.api, statistic: "Sum", label: "solved in the API" }),
          ],
        }),
      ],
    ];

    this.dashboard = new cloudwatch.Dashboard(this, "Dashboard", {
      dashboardName: `${props.namePrefix}-service`,
      defaultInterval: Duration.hours(6),
      widgets,
    });
  }
}
