import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import type * as s3 from "aws-cdk-lib/aws-s3";
import type * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantBlobs, grantTableItems } from "./data.js";
import { ServiceFunction } from "./service-function.js";

export interface WebhooksProps {
  namePrefix: string;
  production: boolean;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  webhooksQueue: sqs.IQueue;
  /** Where an exhausted delivery's last message goes, for operators to inspect or redrive. */
  webhooksDlq: sqs.IQueue;
  /** Settings every handler shares (stage, table, caps…), set by the stack. */
  environment: Record<string, string>;
  logRetentionDays: number;
  /** 0 leaves the function unreserved. */
  reservedConcurrency: number;
  /** Most concurrent invocations the SQS poller starts (its maximumConcurrency). */
  maxConcurrency: number;
  /** The webhook key (the API's): opens a trigger's sealed webhook secret to sign a delivery. */
  webhookKey: secretsmanager.ISecret;
}

/** What Lambda's SQS poller does with the function's role (AWS: "Amazon SQS execution role permissions"). */
export const SQS_EVENT_SOURCE_ACTIONS = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"] as const;

/** Spec: a receiver has 30 s to answer one delivery. */
export const WEBHOOK_TIMEOUT_SECONDS = 30;
/** Deliveries taken per invocation; the handler posts a batch's deliveries concurrently. */
export const WEBHOOK_BATCH_SIZE = 10;
/**
 * A batch takes as long as its slowest delivery: one receiver timeout, plus the store writes and the
 * follow-up message around it.
 */
export const WEBHOOK_FUNCTION_TIMEOUT_SECONDS = WEBHOOK_TIMEOUT_SECONDS + 30;

/**
 * Webhook delivery: a Lambda on the deliveries queue that signs and POSTs a run's outcome to the
 * trigger's URL and, on failure, schedules the next attempt by sending a delayed message to the same
 * queue; an exhausted delivery's last message is put in the queue's DLQ by the handler itself.
 *
 * Egress only to the internet: the function is deliberately outside any VPC, so it has no route to the
 * solver fleet's network or anything private; the handler also refuses private, loopback and
 * link-local destinations (WEBHOOK_ALLOW_PRIVATE_NETWORKS=false). The event source's maximum concurrency
 * (× the batch size) caps how many deliveries are in flight at once, so a burst cannot hammer receivers
 * or starve the API. It caps without reserving: reserved concurrency would fail the deploy on a new
 * account (10 concurrent executions, none reservable), and a reservation below the poller's concurrency
 * throttles invocations, whose messages then count receives towards the DLQ. Both are optional stage
 * settings; a reservation, when set, must not be below the maximum concurrency.
 */
export class Webhooks extends Construct {
  readonly handler: ServiceFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    this.handler = new ServiceFunction(this, "Handler", {
      entry: "functions/webhook/lambda.ts",
      functionName: `${props.namePrefix}-webhook`,
      description: "Webhook deliveries queue → signed POST to the receiver, retried on a schedule",
      memorySize: 256,
      timeout: Duration.seconds(WEBHOOK_FUNCTION_TIMEOUT_SECONDS),
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      reservedConcurrentExecutions: props.reservedConcurrency > 0 ? props.reservedConcurrency : undefined,
      environment: {
        ...props.environment,
        TABLE_NAME: props.table.tableName,
        BLOB_BUCKET: props.bucket.bucketName,
        WEBHOOKS_QUEUE_URL: props.webhooksQueue.queueUrl,
        WEBHOOKS_DLQ_URL: props.webhooksDlq.queueUrl,
        WEBHOOK_KEY_SECRET_ARN: props.webhookKey.secretArn,
        WEBHOOK_TIMEOUT_SECONDS: String(WEBHOOK_TIMEOUT_SECONDS),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
      },
    });
    const role = this.handler.role;
    // Deliveries are claimed and recorded on the run (reads, conditional puts and updates); the body
    // posted may live in the blob store.
    grantTableItems(props.table, role, ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]);
    grantBlobs(props.bucket, role, { read: true });
    // The webhook key opens sealed secrets to sign (webhooks/secret-box.ts): GetSecretValue, nothing else.
    iam.Grant.addToPrincipal({ grantee: role, actions: ["secretsmanager:GetSecretValue"], resourceArns: [props.webhookKey.secretArn] });
    // The next attempt is the same message again, delayed; an exhausted delivery's last one goes to the DLQ.
    props.webhooksQueue.grant(role, "sqs:SendMessage");
    props.webhooksDlq.grant(role, "sqs:SendMessage");
    // Lambda's poller reads the queue with the function's role: the three rights its SQS event source
    // needs (CDK's SqsEventSource would grant its whole consume set, GetQueueUrl and
    // ChangeMessageVisibility included, which nothing here uses).
    props.webhooksQueue.grant(role, ...SQS_EVENT_SOURCE_ACTIONS);
    new lambda.EventSourceMapping(this, "Deliveries", {
      target: this.handler.fn,
      eventSourceArn: props.webhooksQueue.queueArn,
      batchSize: WEBHOOK_BATCH_SIZE,
      reportBatchItemFailures: true,
      maxConcurrency: props.maxConcurrency,
    });
  }
}
