import { Duration } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type * as scheduler from "aws-cdk-lib/aws-scheduler";
import type * as sns from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import { SERVICE_DIMENSION, SERVICE_METRIC, SERVICE_METRICS_NAMESPACE } from "../functions/core/observability/metric-names.js";
import type { ServiceFunction } from "./service-function.js";

export interface ServiceAlarmsProps {
  namePrefix: string;
  alarmTopic: sns.ITopic;
  httpApi: apigwv2.HttpApi;
  /** Every function of the stack, by the short name its alarms carry (api, webhook, sweeper, …). */
  functions: Record<string, ServiceFunction>;
  /** The API function's timeout: a p99 near it means requests are about to fail. */
  apiTimeout: Duration;
  /** The single table and the names of its global secondary indexes (throttles are counted per index too). */
  table: dynamodb.ITable;
  tableIndexes: string[];
  /** The group holding the triggers' EventBridge Scheduler schedules. */
  scheduleGroup: scheduler.IScheduleGroup;
  /** The `service` dimension of the sweeper's metrics (its function's name). */
  sweeperService: string;
  /** The account's Lambda concurrent-executions quota in this region (stage setting). */
  accountLambdaConcurrency: number;
}

/** DynamoDB throttle events in five minutes worth waking someone: the SDK retries a few, a sustained stream fails requests. */
export const DYNAMODB_THROTTLE_THRESHOLD = 10;
/** Share of the account's Lambda concurrency above which new invocations are close to being throttled. */
export const ACCOUNT_CONCURRENCY_ALARM_SHARE = 0.8;

/** 5xx answers in five minutes that are more than a blip. */
export const API_5XX_THRESHOLD = 5;

/**
 * The alarms that say the service is failing, each to the alarm topic (and back to OK):
 * API 5xx answers and p99 latency near the function timeout; per function its errors (a handler
 * that threw: for the sweeper, a sweep that failed) and throttles; jobs the sweeper failed (a worker
 * died holding them, or none took them); DynamoDB throttling on the table or its indexes; the account's
 * Lambda concurrency near its quota (every function of the account shares it); and schedules whose
 * target (a band's jobs queue) refused or dropped a firing. Queue alarms live with the queues, fleet
 * alarms with the fleet.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const fiveMinutes = Duration.minutes(5);
    const add = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(new actions.SnsAction(props.alarmTopic));
      alarm.addOkAction(new actions.SnsAction(props.alarmTopic));
      this.alarms.push(alarm);
    };

    add(
      props.httpApi.metricServerError({ period: fiveMinutes, statistic: "Sum" }).createAlarm(this, "Api5xx", {
        alarmName: `${props.namePrefix}-api-5xx`,
        alarmDescription: `The API answered ${API_5XX_THRESHOLD} or more 5xx in five minutes: see /aws/lambda/${props.namePrefix}-api.`,
        threshold: API_5XX_THRESHOLD,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    // A plain solve waits up to SOLVE_WAIT_SECONDS by design; p99 above that plus a margin means requests
    // are close to the function's timeout and API Gateway's 30 s limit.
    const latencyThresholdMs = (props.apiTimeout.toSeconds() - 1) * 1000;
    add(
      props.httpApi.metricLatency({ period: fiveMinutes, statistic: "p99" }).createAlarm(this, "ApiLatencyP99", {
        alarmName: `${props.namePrefix}-api-latency-p99`,
        alarmDescription: `The API's p99 latency exceeded ${latencyThresholdMs} ms for 15 minutes: requests are reaching the ${props.apiTimeout.toSeconds()} s timeout.`,
        threshold: latencyThresholdMs,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    add(
      new cloudwatch.Metric({
        namespace: SERVICE_METRICS_NAMESPACE,
        metricName: SERVICE_METRIC.sweptJobs,
        dimensionsMap: { [SERVICE_DIMENSION]: props.sweeperService },
        period: fiveMinutes,
        statistic: "Sum",
      }).createAlarm(this, "SweptJobs", {
        alarmName: `${props.namePrefix}-jobs-failed-by-sweeper`,
        alarmDescription: `The sweeper failed jobs: their worker died holding them (lease expired) or no worker took them in time. The sweeper's log (/aws/lambda/${props.sweeperService}) names each with its reason.`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    const throttleMetrics: Record<string, cloudwatch.IMetric> = {};
    const dimensionSets = [
      { TableName: props.table.tableName },
      ...props.tableIndexes.map((index) => ({ TableName: props.table.tableName, GlobalSecondaryIndexName: index })),
    ];
    dimensionSets.forEach((dimensionsMap, i) => {
      for (const [key, metricName] of [
        ["r", "ReadThrottleEvents"],
        ["w", "WriteThrottleEvents"],
      ] as const) {
        throttleMetrics[`${key}${i}`] = new cloudwatch.Metric({ namespace: "AWS/DynamoDB", metricName, dimensionsMap, period: fiveMinutes, statistic: "Sum" });
      }
    });
    add(
      new cloudwatch.MathExpression({
        expression: Object.keys(throttleMetrics).join(" + "),
        usingMetrics: throttleMetrics,
        period: fiveMinutes,
        label: "DynamoDB throttle events (table and indexes)",
      }).createAlarm(this, "DynamoDbThrottles", {
        alarmName: `${props.namePrefix}-dynamodb-throttles`,
        alarmDescription: `DynamoDB throttled ${DYNAMODB_THROTTLE_THRESHOLD} or more requests on the table or an index in five minutes: a hot partition (the ACTIVE index partition, docs/decisions.md) or a burst past on-demand's ramp.`,
        threshold: DYNAMODB_THROTTLE_THRESHOLD,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    const concurrencyThreshold = Math.max(1, Math.floor(props.accountLambdaConcurrency * ACCOUNT_CONCURRENCY_ALARM_SHARE));
    add(
      new cloudwatch.Metric({ namespace: "AWS/Lambda", metricName: "ConcurrentExecutions", period: Duration.minutes(1), statistic: "Maximum" }).createAlarm(
        this,
        "AccountConcurrency",
        {
          alarmName: `${props.namePrefix}-account-lambda-concurrency`,
          alarmDescription: `The account's Lambda functions ran ${concurrencyThreshold} or more executions at once (${ACCOUNT_CONCURRENCY_ALARM_SHARE * 100} % of the ${props.accountLambdaConcurrency} this stage assumes) for 5 minutes: new invocations, the API's included, are about to be throttled. Raise the quota (docs/deploy.md, New accounts).`,
          threshold: concurrencyThreshold,
          evaluationPeriods: 5,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        },
      ),
    );

    add(
      new cloudwatch.MathExpression({
        expression: "errors + dropped",
        usingMetrics: {
          errors: props.scheduleGroup.metricTargetErrors({ period: fiveMinutes, statistic: "Sum" }),
          dropped: props.scheduleGroup.metricDropped({ period: fiveMinutes, statistic: "Sum" }),
        },
        period: fiveMinutes,
        label: "schedule target errors and dropped firings",
      }).createAlarm(this, "ScheduleTargetErrors", {
        alarmName: `${props.namePrefix}-trigger-schedule-errors`,
        alarmDescription: `EventBridge Scheduler could not deliver a trigger's firing to its jobs queue (target error, or dropped after its retries) in the group ${props.scheduleGroup.scheduleGroupName}: scheduled runs are being missed.`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const [name, service] of Object.entries(props.functions)) {
      add(
        service.fn.metricErrors({ period: fiveMinutes, statistic: "Sum" }).createAlarm(this, `${name}Errors`, {
          alarmName: `${props.namePrefix}-${name}-errors`,
          alarmDescription: `The ${name} function failed (threw or timed out) in the last five minutes: see /aws/lambda/${props.namePrefix}-${name}.`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      add(
        service.fn.metricThrottles({ period: fiveMinutes, statistic: "Sum" }).createAlarm(this, `${name}Throttles`, {
          alarmName: `${props.namePrefix}-${name}-throttles`,
          alarmDescription: `The ${name} function was throttled: the account's concurrency is exhausted (Lambda quotas).`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }
}
