import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as appscaling from "aws-cdk-lib/aws-applicationautoscaling";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as ecs from "aws-cdk-lib/aws-ecs";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import type * as sns from "aws-cdk-lib/aws-sns";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { FLEET_METRIC, FLEET_METRICS_NAMESPACE } from "../functions/fleet-monitor/handler.js";
import { publishingTarget } from "./alarm-topic.js";
import { acknowledgeWildcardResource } from "./nag.js";
import { ServiceFunction } from "./service-function.js";
import type { SolverFleet } from "./solver-fleet.js";

export interface FleetScalingProps {
  namePrefix: string;
  production: boolean;
  fleet: SolverFleet;
  jobsQueue: sqs.IQueue;
  /** The high and low priority bands' queues: the backlog counts every band. */
  jobBands: { high: sqs.IQueue; low: sqs.IQueue };
  alarmTopic: sns.ITopic;
  logRetentionDays: number;
  /** LocalStack: the endpoint the monitor's AWS clients use. */
  awsEndpointUrl?: string;
  minTasks: number;
  maxTasks: number;
  /** Jobs (waiting + held) per running task the target-tracking policy keeps. */
  backlogPerTaskTarget: number;
}

/** The monitor publishes once a minute, the finest an EventBridge schedule runs. */
const MONITOR_PERIOD = Duration.minutes(1);

/**
 * How the warm fleet grows and shrinks, and the alerts about it:
 *
 * - the fleet monitor Lambda (functions/fleet-monitor) publishes backlog per task every minute;
 * - a target-tracking policy keeps it at `backlogPerTaskTarget` between the stage's minimum and maximum
 *   (scale-in never stops a task whose worker holds a job: the worker protects it);
 * - from zero tasks the ratio is undefined, so a step policy sets the count to one when a job waits and
 *   no task runs; target tracking takes over once that task reports;
 * - alerts: running tasks below the minimum, and a task that failed (failed to start, or its worker
 *   exited on its own) sent to the alarm topic with ECS's stop reason.
 */
export class FleetScaling extends Construct {
  readonly monitor: ServiceFunction;
  readonly scalableTarget: ecs.ScalableTaskCount;
  readonly fromZeroAlarm: cloudwatch.Alarm;
  readonly belowMinimumAlarm?: cloudwatch.Alarm;
  readonly atMaximumAlarm: cloudwatch.Alarm;
  readonly taskFailureRule: events.Rule;

  constructor(scope: Construct, id: string, props: FleetScalingProps) {
    super(scope, id);
    const { fleet } = props;
    const serviceName = fleet.service.serviceName;

    this.monitor = new ServiceFunction(this, "Monitor", {
      entry: "functions/fleet-monitor/lambda.ts",
      functionName: `${props.namePrefix}-fleet-monitor`,
      description: "Publishes the solver fleet's backlog per task for its scaling policy",
      memorySize: 256,
      timeout: Duration.seconds(30),
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      environment: {
        ...(props.awsEndpointUrl ? { AWS_ENDPOINT_URL: props.awsEndpointUrl } : {}),
        SOLVER_CLUSTER_ARN: fleet.cluster.clusterArn,
        SOLVER_SERVICE_NAME: serviceName,
        JOBS_QUEUE_URL: props.jobsQueue.queueUrl,
        JOBS_HIGH_QUEUE_URL: props.jobBands.high.queueUrl,
        JOBS_LOW_QUEUE_URL: props.jobBands.low.queueUrl,
      },
    });
    const role = this.monitor.role;
    for (const queue of [props.jobsQueue, props.jobBands.high, props.jobBands.low]) queue.grant(role, "sqs:GetQueueAttributes");
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: "DescribeSolverService", actions: ["ecs:DescribeServices"], resources: [fleet.service.serviceArn] }),
    );
    // PutMetricData names no resource; the namespace condition keeps the monitor to its own metrics.
    acknowledgeWildcardResource(
      role,
      "*",
      "cloudwatch:PutMetricData has no resource type; the cloudwatch:namespace condition keeps the monitor to Incumbent/Fleet.",
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "PublishFleetMetrics",
        actions: ["cloudwatch:PutMetricData"],
        resources: ["*"],
        conditions: { StringEquals: { "cloudwatch:namespace": FLEET_METRICS_NAMESPACE } },
      }),
    );
    new events.Rule(this, "Schedule", {
      ruleName: `${props.namePrefix}-fleet-monitor`,
      description: "Runs the Incumbent fleet monitor",
      schedule: events.Schedule.rate(MONITOR_PERIOD),
      targets: [new targets.LambdaFunction(this.monitor.fn, { retryAttempts: 0, maxEventAge: Duration.seconds(60) })],
    });

    const metric = (name: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: FLEET_METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { ServiceName: serviceName },
        period: MONITOR_PERIOD,
        statistic,
      });

    this.scalableTarget = fleet.service.autoScaleTaskCount({ minCapacity: props.minTasks, maxCapacity: props.maxTasks });
    this.scalableTarget.scaleToTrackCustomMetric("BacklogPerTask", {
      policyName: `${props.namePrefix}-backlog-per-task`,
      metric: metric(FLEET_METRIC.backlogPerTask, "Average"),
      targetValue: props.backlogPerTaskTarget,
      scaleOutCooldown: Duration.minutes(1),
      // Workers warm their solvers once; keep them a while rather than start new ones for the next burst.
      scaleInCooldown: Duration.minutes(5),
    });

    const fromZero = new appscaling.StepScalingAction(this, "FromZero", {
      scalingTarget: this.scalableTarget,
      policyName: `${props.namePrefix}-from-zero`,
      adjustmentType: appscaling.AdjustmentType.EXACT_CAPACITY,
      metricAggregationType: appscaling.MetricAggregationType.MAXIMUM,
      // About a Fargate start: the task the step asked for is still starting until then.
      cooldown: Duration.minutes(2),
    });
    fromZero.addAdjustment({ adjustment: 1, lowerBound: 0 });
    this.fromZeroAlarm = new cloudwatch.MathExpression({
      expression: "IF(running < 1 AND waiting >= 1, 1, 0)",
      usingMetrics: { running: metric(FLEET_METRIC.runningTasks, "Maximum"), waiting: metric(FLEET_METRIC.waitingJobs, "Maximum") },
      period: MONITOR_PERIOD,
      label: "jobs waiting with no task running",
    }).createAlarm(this, "FromZeroAlarm", {
      alarmName: `${props.namePrefix}-solver-fleet-from-zero`,
      alarmDescription: "A job waits and no solver task runs: the step policy starts one (target tracking cannot scale from zero).",
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.fromZeroAlarm.addAlarmAction(new actions.ApplicationScalingAction(fromZero));

    const notify = new actions.SnsAction(props.alarmTopic);
    if (props.minTasks > 0) {
      this.belowMinimumAlarm = metric(FLEET_METRIC.runningTasks, "Maximum").createAlarm(this, "BelowMinimum", {
        alarmName: `${props.namePrefix}-solver-tasks-below-minimum`,
        alarmDescription: `Fewer than ${props.minTasks} solver task(s) ran for 5 minutes (or the fleet monitor stopped reporting): tasks fail to start or keep crashing.`,
        threshold: props.minTasks,
        evaluationPeriods: 5,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        // No reading is a monitor down: nothing would scale either.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
      this.belowMinimumAlarm.addAlarmAction(notify);
      this.belowMinimumAlarm.addOkAction(notify);
    }

    // At its maximum the fleet cannot grow: jobs wait however long the backlog gets. A minute or two
    // there is a burst being served; a quarter of an hour with jobs still waiting is a fleet too small
    // for the load (raise maxRunningSolverTasks, and the account's Fargate vCPU quota with it).
    this.atMaximumAlarm = new cloudwatch.MathExpression({
      expression: `IF(running >= ${props.maxTasks} AND waiting >= 1, 1, 0)`,
      usingMetrics: { running: metric(FLEET_METRIC.runningTasks, "Maximum"), waiting: metric(FLEET_METRIC.waitingJobs, "Minimum") },
      period: MONITOR_PERIOD,
      label: "fleet at its maximum with jobs waiting",
    }).createAlarm(this, "AtMaximum", {
      alarmName: `${props.namePrefix}-solver-fleet-at-maximum`,
      alarmDescription: `The solver fleet ran at its maximum (${props.maxTasks} tasks) with jobs waiting for 15 minutes: raise maxRunningSolverTasks (and the Fargate vCPU quota) or expect long waits.`,
      threshold: 1,
      evaluationPeriods: 15,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.atMaximumAlarm.addAlarmAction(notify);
    this.atMaximumAlarm.addOkAction(notify);

    // Scale-in, deployments and Spot interruptions stop tasks with other stop codes: not failures.
    this.taskFailureRule = new events.Rule(this, "TaskFailures", {
      ruleName: `${props.namePrefix}-solver-task-failures`,
      description: "A solver task failed to start or its worker exited on its own",
      eventPattern: {
        source: ["aws.ecs"],
        detailType: ["ECS Task State Change"],
        detail: {
          clusterArn: [fleet.cluster.clusterArn],
          group: [`service:${serviceName}`],
          lastStatus: ["STOPPED"],
          stopCode: ["TaskFailedToStart", "EssentialContainerExited"],
        },
      },
      targets: [
        // The topic's own policy admits this stage's rules; an imported reference adds no second statement.
        new targets.SnsTopic(publishingTarget(this, "AlarmTopic", props.alarmTopic), {
          message: events.RuleTargetInput.fromText(
            `Solver task ${events.EventField.fromPath("$.detail.taskArn")} stopped (${events.EventField.fromPath("$.detail.stopCode")}): ${events.EventField.fromPath("$.detail.stoppedReason")}`,
          ),
        }),
      ],
    });
  }
}
