import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { createAlarmTopic } from "./alarm-topic.js";

export interface QueueSettings {
  /** Longer than the longest piece of work one message starts (see stage.ts). */
  visibilityTimeout: Duration;
  maxReceiveCount: number;
  /** Alarm when the oldest message has waited this long: consumers are stuck or saturated. */
  oldestMessageAlarmAge: Duration;
}

export interface QueuesProps {
  namePrefix: string;
  /** Production keeps its DLQs (and what failed in them) when the stack goes. */
  production: boolean;
  jobs: QueueSettings;
  webhooks: QueueSettings;
  alarmEmail?: string;
}

/** A work queue, its dead-letter queue, and the two alarms an operator needs on them. */
export interface WorkQueue {
  queue: sqs.Queue;
  dlq: sqs.Queue;
  dlqDepthAlarm: cloudwatch.Alarm;
  oldestMessageAlarm: cloudwatch.Alarm;
}

/** SQS's longest retention; a DLQ keeps what it receives as long as it can. */
const DLQ_RETENTION = Duration.days(14);
const QUEUE_RETENTION = Duration.days(4);

/**
 * The queues — solve jobs, one per priority band (→ the warm fleet's workers), and webhook deliveries (→ webhook
 * Lambda) — each with a DLQ and a redrive policy, encrypted, TLS-only, and alarmed: a message in a DLQ
 * is a job or delivery that failed every attempt, and an old message means the consumer is not keeping
 * up. Alarms publish to one topic (optionally mailed).
 */
export class Queues extends Construct {
  /** The normal priority band's jobs (priority 0); `jobsHigh` (> 0) and `jobsLow` (< 0) are the other bands. */
  readonly jobs: WorkQueue;
  readonly jobsHigh: WorkQueue;
  readonly jobsLow: WorkQueue;
  readonly webhooks: WorkQueue;
  readonly alarmTopic: sns.Topic;

  private readonly production: boolean;

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    this.production = props.production;
    this.alarmTopic = createAlarmTopic(this, "Alarms", { namePrefix: props.namePrefix, alarmEmail: props.alarmEmail });

    // One queue per priority band (functions/core/queue/priority.ts): SQS has no priority of its own.
    this.jobs = this.workQueue("Jobs", `${props.namePrefix}-jobs`, props.jobs);
    this.jobsHigh = this.workQueue("JobsHigh", `${props.namePrefix}-jobs-high`, props.jobs);
    this.jobsLow = this.workQueue("JobsLow", `${props.namePrefix}-jobs-low`, props.jobs);
    this.webhooks = this.workQueue("Webhooks", `${props.namePrefix}-webhooks`, props.webhooks);
  }

  private workQueue(id: string, name: string, settings: QueueSettings): WorkQueue {
    const retentionNeeded = settings.visibilityTimeout.toSeconds() * settings.maxReceiveCount;
    if (retentionNeeded >= QUEUE_RETENTION.toSeconds()) {
      throw new Error(`${name}: ${settings.maxReceiveCount} receives × visibility outlast the queue's retention; lower maxReceiveCount`);
    }
    const dlq = new sqs.Queue(this, `${id}Dlq`, {
      queueName: `${name}-dlq`,
      retentionPeriod: DLQ_RETENTION,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // What failed every attempt is evidence: a production stack removed keeps it.
      removalPolicy: this.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const queue = new sqs.Queue(this, id, {
      queueName: name,
      visibilityTimeout: settings.visibilityTimeout,
      retentionPeriod: QUEUE_RETENTION,
      deadLetterQueue: { queue: dlq, maxReceiveCount: settings.maxReceiveCount },
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    const dlqDepthAlarm = dlq
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" })
      .createAlarm(this, `${id}DlqDepth`, {
        alarmName: `${name}-dlq-not-empty`,
        alarmDescription: `Messages in ${name}-dlq failed every attempt. Inspect them, fix the cause, then redrive (docs/deploy.md, Operations).`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const oldestMessageAlarm = queue
      .metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: "Maximum" })
      .createAlarm(this, `${id}OldestMessage`, {
        alarmName: `${name}-oldest-message-age`,
        alarmDescription: `A message has waited over ${settings.oldestMessageAlarmAge.toHumanString()} in ${name}: its consumer is failing or saturated.`,
        threshold: settings.oldestMessageAlarmAge.toSeconds(),
        evaluationPeriods: 5,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    for (const alarm of [dlqDepthAlarm, oldestMessageAlarm]) {
      alarm.addAlarmAction(new actions.SnsAction(this.alarmTopic));
      alarm.addOkAction(new actions.SnsAction(this.alarmTopic));
    }
    return { queue, dlq, dlqDepthAlarm, oldestMessageAlarm };
  }
}
