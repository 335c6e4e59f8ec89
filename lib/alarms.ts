import { Duration } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as sns from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import type { ServiceFunction } from "./service-function.js";

export interface ServiceAlarmsProps {
  namePrefix: string;
  alarmTopic: sns.ITopic;
  httpApi: apigwv2.HttpApi;
  /** Every function of the stack, by the short name its alarms carry (api, webhook, sweeper, …). */
  functions: Record<string, ServiceFunction>;
  /** The API function's timeout: a p99 near it means requests are about to fail. */
  apiTimeout: Duration;
}

/** 5xx answers in five minutes that are more than a blip. */
export const API_5XX_THRESHOLD = 5;

/**
 * The alarms that say the service is failing, each to the alarm topic (and back to OK):
 * API 5xx answers and p99 latency near the function timeout, and per function its errors (a handler
 * that threw: for the sweeper, a sweep that failed) and throttles. Queue alarms live with the queues,
 * fleet alarms with the fleet.
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
