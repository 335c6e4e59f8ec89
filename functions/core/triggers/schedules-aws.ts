import type { SchedulerClient } from "@aws-sdk/client-scheduler";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { priorityBand } from "../queue/priority.js";
import { bandQueueUrls } from "../queue/sqs.js";
import type { TriggerSchedules } from "./schedules.js";
import { SCHEDULED_TIME_ATTRIBUTE, scheduleMessage } from "./schedules.js";
import type { TriggerRecord } from "./store.js";

type SchedulerConfig = Pick<
  Config,
  "region" | "awsEndpointUrl" | "tableName" | "jobsQueueUrl" | "jobsHighQueueUrl" | "jobsLowQueueUrl" | "schedulerRoleArn" | "schedulerGroupName"
>;

/** SQS's queue ARN from its URL (…/<account>/<name>), in the stage's region. */
export function queueArnOf(queueUrl: string, region: string): string {
  const [account, name] = new URL(queueUrl).pathname.split("/").filter(Boolean).slice(-2);
  if (!account || !name) throw new Error(`not an SQS queue URL: ${queueUrl}`);
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

/** One schedule per trigger, named after the stage's table and the trigger (at most 64 characters). */
export const scheduleName = (config: Pick<Config, "tableName">, triggerId: string) => `${config.tableName}-${triggerId}`.slice(0, 64);

/**
 * The triggers' schedules as EventBridge Scheduler schedules: each sends the trigger's schedule message
 * (schedules.ts) to its priority band's jobs queue, through the role the template creates for the
 * scheduler. The SDK is loaded on the first schedule change, so the API's cold start does not pay for it.
 */
export class EventBridgeSchedules implements TriggerSchedules {
  private client: Promise<{ client: SchedulerClient; sdk: typeof import("@aws-sdk/client-scheduler") }> | null = null;

  constructor(private readonly config: SchedulerConfig) {}

  private scheduler() {
    this.client ??= import("@aws-sdk/client-scheduler").then((sdk) => ({
      sdk,
      client: new sdk.SchedulerClient({ region: this.config.region, ...(this.config.awsEndpointUrl ? { endpoint: this.config.awsEndpointUrl } : {}) }),
    }));
    return this.client;
  }

  async put(trigger: TriggerRecord): Promise<void> {
    const schedule = trigger.schedule!;
    const { client, sdk } = await this.scheduler();
    const queueUrl = bandQueueUrls(this.config)[priorityBand(trigger.priority)];
    const input = {
      Name: scheduleName(this.config, trigger.id),
      GroupName: this.config.schedulerGroupName,
      ScheduleExpression: schedule.expression,
      ScheduleExpressionTimezone: schedule.timezone,
      FlexibleTimeWindow: { Mode: "OFF" as const },
      State: "ENABLED" as const,
      Description: `Incumbent trigger ${trigger.id} (${trigger.org_id})`,
      Target: {
        Arn: queueArnOf(queueUrl, this.config.region),
        RoleArn: this.config.schedulerRoleArn,
        Input: JSON.stringify(scheduleMessage(trigger, SCHEDULED_TIME_ATTRIBUTE)),
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 },
      },
    };
    try {
      await client.send(new sdk.UpdateScheduleCommand(input));
    } catch (error) {
      if (!(error instanceof sdk.ResourceNotFoundException)) throw unavailable(error);
      await client.send(new sdk.CreateScheduleCommand(input)).catch((e: unknown) => {
        throw unavailable(e);
      });
    }
  }

  async remove(trigger: Pick<TriggerRecord, "id">): Promise<void> {
    const { client, sdk } = await this.scheduler();
    try {
      await client.send(new sdk.DeleteScheduleCommand({ Name: scheduleName(this.config, trigger.id), GroupName: this.config.schedulerGroupName }));
    } catch (error) {
      if (!(error instanceof sdk.ResourceNotFoundException)) throw unavailable(error);
    }
  }
}

function unavailable(error: unknown): AppError {
  return new AppError("service_unavailable", `The scheduler refused the change (${(error as Error).name}); retry shortly.`);
}
