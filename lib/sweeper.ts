import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import type * as s3 from "aws-cdk-lib/aws-s3";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantBlobs, grantTableItems } from "./data.js";
import { ServiceFunction } from "./service-function.js";

export interface SweeperProps {
  namePrefix: string;
  production: boolean;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  webhooksQueue: sqs.IQueue;
  /** The jobs queue (normal band) and the other bands: the sweep sends parked jobs of organizations with room. */
  jobsQueue: sqs.IQueue;
  jobBands: { high: sqs.IQueue; low: sqs.IQueue };
  /** Settings every handler shares (stage, table, caps…), set by the stack. */
  environment: Record<string, string>;
  logRetentionDays: number;
  intervalMinutes: number;
  /** A queued job older than this has left the queue for the DLQ: fail it (stage.ts staleQueuedSeconds). */
  staleQueuedSeconds: number;
}

/**
 * The scheduled reconcile (see docs/decisions.md, Infrastructure): fails runs whose worker died or whose
 * job never started, and sends the webhooks a crash left unqueued. Sweeps are idempotent (conditional
 * writes), so an overlapping or retried invocation does no harm, and a missed one is made up by the
 * next: the schedule does not retry.
 */
export class Sweeper extends Construct {
  readonly handler: ServiceFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    const interval = Duration.minutes(props.intervalMinutes);
    this.handler = new ServiceFunction(this, "Handler", {
      entry: "functions/sweeper/lambda.ts",
      functionName: `${props.namePrefix}-sweeper`,
      description: "Scheduled reconcile: abandoned runs, stale queued jobs, unsent webhooks",
      memorySize: 512,
      // Finishes well before the next sweep starts.
      timeout: Duration.seconds(Math.min(interval.toSeconds() - 10, 300)),
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      environment: {
        ...props.environment,
        TABLE_NAME: props.table.tableName,
        BLOB_BUCKET: props.bucket.bucketName,
        WEBHOOKS_QUEUE_URL: props.webhooksQueue.queueUrl,
        JOBS_QUEUE_URL: props.jobsQueue.queueUrl,
        JOBS_HIGH_QUEUE_URL: props.jobBands.high.queueUrl,
        JOBS_LOW_QUEUE_URL: props.jobBands.low.queueUrl,
        STALE_QUEUED_SECONDS: String(props.staleQueuedSeconds),
      },
    });
    const role = this.handler.role;
    // Reads the ACTIVE index, fails lapsed items with conditional updates, records deliveries.
    grantTableItems(props.table, role, ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"]);
    // A swept trigger run still owes its webhook a "failed" delivery, whose body (and the run's outcome)
    // may go to the blob store. A swept race entrant may end its race (functions/core/races/settle.ts):
    // the winner's result is read and the race's written (and deleted again when another write won).
    props.webhooksQueue.grant(role, "sqs:SendMessage");
    grantBlobs(props.bucket, role, { read: true, write: ["results/", "runs/", "webhooks/"], delete: ["results/"] });
    // The fair share's backstop (functions/core/queue/fair-share.ts): parked jobs of an organization whose
    // slot a dead worker held are sent by the sweep.
    for (const queue of [props.jobsQueue, props.jobBands.high, props.jobBands.low]) queue.grant(role, "sqs:SendMessage");

    this.rule = new events.Rule(this, "Schedule", {
      ruleName: `${props.namePrefix}-sweep`,
      description: "Runs the Incumbent sweeper",
      schedule: events.Schedule.rate(interval),
      targets: [new targets.LambdaFunction(this.handler.fn, { retryAttempts: 0, maxEventAge: Duration.seconds(Math.max(60, interval.toSeconds())) })],
    });
  }
}
