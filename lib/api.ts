import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import { Arn, ArnFormat, Stack } from "aws-cdk-lib";
import * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as scheduler from "aws-cdk-lib/aws-scheduler";
import type * as s3 from "aws-cdk-lib/aws-s3";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantBlobs, grantTableItems, TABLE_ACTIONS } from "./data.js";
import { acknowledgeFinding, acknowledgeWildcardResource } from "./nag.js";
import { ServiceFunction } from "./service-function.js";

export interface ApiProps {
  namePrefix: string;
  production: boolean;
  table: dynamodb.ITable;
  bucket: s3.IBucket;
  jobsQueue: sqs.IQueue;
  /** The high and low priority bands' queues (jobsQueue is the normal band). */
  jobBands: { high: sqs.IQueue; low: sqs.IQueue };
  webhooksQueue: sqs.IQueue;
  /** Settings every handler shares (stage, table, caps…), set by the stack. */
  environment: Record<string, string>;
  logRetentionDays: number;
  /** API Gateway's stage throttle, and the plain-solve route's own (lib/stage.ts stageNeeds). */
  throttle: { rateLimit: number; burstLimit: number };
  solveThrottle: { rateLimit: number; burstLimit: number };
  domain?: { name: string; certificateArn: string };
  /** SES sender of password-reset mail (a verified identity); absent, tokens are logged as not delivered. */
  mailFromAddress?: string;
  /** The instance operator's token hash (OPERATOR_TOKEN_SHA256); absent, no operator. */
  operatorTokenSha256?: string;
  /** Plain solves up to this many nonzeros the API answers itself when no warm worker takes them (0: never). */
  apiSolveMaxNonzeros: number;
}

/**
 * HTTP API latency ceiling: API Gateway gives up on an integration after 30 s, so the function stops
 * first, and a plain solve waits for its result a little less than that before answering "queued".
 */
const FUNCTION_TIMEOUT_SECONDS = 29;
const SOLVE_WAIT_SECONDS = 25;
/** The plain solve's route (spec: POST /api/v2/solve). */
export const SOLVE_ROUTE = { path: "/api/v2/solve" } as const;

/**
 * The public API: an HTTP API whose default route sends every request to the Hono app in one Lambda,
 * with JSON access logs, stage throttling, and the JWT signing secret generated in Secrets Manager
 * (never in the template or the function's environment: the function receives its ARN).
 */
export class Api extends Construct {
  readonly httpApi: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly handler: ServiceFunction;
  readonly jwtSecret: secretsmanager.Secret;
  /** The webhook key: seals webhook secrets at rest (functions/core/webhooks/secret-box.ts); the API seals, the webhook function opens. */
  readonly webhookKey: secretsmanager.Secret;
  readonly accessLogs: logs.LogGroup;
  readonly url: string;
  /** Assumed by EventBridge Scheduler to send a trigger's schedule message to its band's jobs queue. */
  readonly schedulerRole: iam.Role;
  /**
   * The group of the triggers' schedules, the stack's own: deleting the group deletes its schedules, so
   * a torn-down stage leaves none firing at queues that are gone (the account's `default` group would
   * keep them). Retained with the data in production.
   */
  readonly scheduleGroup: scheduler.ScheduleGroup;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.jwtSecret = new secretsmanager.Secret(this, "JwtSecret", {
      secretName: `${props.namePrefix}/jwt-secret`,
      description: "HMAC key that signs Incumbent session tokens; resolveJwtSecret reads the `secret` field.",
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: "secret",
        passwordLength: 64,
        excludePunctuation: true,
      },
      removalPolicy,
    });
    acknowledgeFinding(
      this.jwtSecret,
      "AwsSolutions-SMG4",
      "The session-token signing key: rotating it signs every user out at once, so it is rotated by hand (docs/deploy.md, Operations), not on a schedule; sessions expire after JWT_TTL_SECONDS anyway.",
    );

    this.webhookKey = new secretsmanager.Secret(this, "WebhookKey", {
      secretName: `${props.namePrefix}/webhook-key`,
      description: "Key material that seals Incumbent webhook secrets at rest; the `secret` field is read.",
      generateSecretString: { secretStringTemplate: JSON.stringify({}), generateStringKey: "secret", passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    acknowledgeFinding(
      this.webhookKey,
      "AwsSolutions-SMG4",
      "The envelope key that seals webhook secrets at rest: rotating it means re-sealing every stored secret under the new key (scripts/seal-webhook-secrets.ts), which a scheduled rotation Lambda cannot do atomically; it is rotated by hand (docs/deploy.md, Operations).",
    );

    const scheduleGroupName = `${props.namePrefix}-triggers`;
    this.scheduleGroup = new scheduler.ScheduleGroup(this, "TriggerSchedules", { scheduleGroupName, removalPolicy });
    const bands = [props.jobsQueue, props.jobBands.high, props.jobBands.low];
    this.schedulerRole = new iam.Role(this, "SchedulerRole", {
      description: "EventBridge Scheduler: sends each scheduled trigger's message to its priority band's jobs queue",
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", { conditions: { StringEquals: { "aws:SourceAccount": Stack.of(this).account } } }),
    });
    for (const queue of bands) queue.grant(this.schedulerRole, "sqs:SendMessage");

    this.handler = new ServiceFunction(this, "Handler", {
      entry: "functions/api/lambda.ts",
      separateModules: [
        { specifier: "./mcp-sdk.mjs", entry: "functions/api/routes/mcp-sdk.mts" },
        // jaos, for small plain solves the API answers itself (answers from zero): parsed only when used.
        { specifier: "./api-solver.mjs", entry: "functions/api/api-solver.mts" },
      ],
      functionName: `${props.namePrefix}-api`,
      description: "Incumbent HTTP API (Hono)",
      memorySize: 1024,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      logRetentionDays: props.logRetentionDays,
      removalPolicy,
      environment: {
        ...props.environment,
        TABLE_NAME: props.table.tableName,
        BLOB_BUCKET: props.bucket.bucketName,
        JOBS_QUEUE_URL: props.jobsQueue.queueUrl,
        JOBS_HIGH_QUEUE_URL: props.jobBands.high.queueUrl,
        JOBS_LOW_QUEUE_URL: props.jobBands.low.queueUrl,
        WEBHOOKS_QUEUE_URL: props.webhooksQueue.queueUrl,
        SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
        SCHEDULER_GROUP_NAME: this.scheduleGroup.scheduleGroupName,
        JWT_SECRET_ARN: this.jwtSecret.secretArn,
        WEBHOOK_KEY_SECRET_ARN: this.webhookKey.secretArn,
        ...(props.operatorTokenSha256 ? { OPERATOR_TOKEN_SHA256: props.operatorTokenSha256 } : {}),
        SOLVE_WAIT_SECONDS: String(SOLVE_WAIT_SECONDS),
        API_SOLVE_MAX_NONZEROS: String(props.apiSolveMaxNonzeros),
        ...(props.mailFromAddress ? { MAIL_FROM_ADDRESS: props.mailFromAddress } : {}),
      },
    });
    const role = this.handler.role;
    // Every store action: the API lists, counts, batch-deletes (a trigger's runs) and checks the table's health.
    grantTableItems(props.table, role, TABLE_ACTIONS);
    // Large payloads are written on submit and read back for results; a deleted trigger's run results and
    // webhook bodies, and a document's pruned versions, are deleted with them.
    grantBlobs(props.bucket, role, {
      read: true,
      // results/: the result of a small plain solve the API answers itself (answers from zero), when it outgrows an item.
      write: ["comparisons/", "datasets/", "documents/", "problems/", "projects/", "results/", "runs/", "webhooks/"],
      // results/: a race whose enqueue was refused settles its entrants here, and takes back a race result another write beat.
      delete: ["documents/", "results/", "runs/", "webhooks/"],
    });
    for (const queue of bands) queue.grant(role, "sqs:SendMessage");
    // One EventBridge Scheduler schedule per scheduled trigger (functions/core/triggers/schedules-aws.ts),
    // named <table>-<trigger id>; the table is named after the stage's prefix.
    const triggerSchedules = Stack.of(this).formatArn({
      service: "scheduler",
      resource: "schedule",
      resourceName: `${scheduleGroupName}/${props.namePrefix}-trg_*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    acknowledgeWildcardResource(
      role,
      triggerSchedules,
      "One schedule per scheduled trigger, named after the trigger's id, created at run time: the stack's group and this stage's prefix bound them.",
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "ManageTriggerSchedules",
        actions: ["scheduler:CreateSchedule", "scheduler:UpdateSchedule", "scheduler:DeleteSchedule"],
        resources: [triggerSchedules],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "PassSchedulerRole",
        actions: ["iam:PassRole"],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } },
      }),
    );
    // Trigger runs and "run now" enqueue their own webhook deliveries.
    props.webhooksQueue.grant(role, "sqs:SendMessage");
    // The signing key and the webhook key are read once per cold start (functions/core/secrets.ts,
    // webhooks/secret-box.ts): GetSecretValue, nothing else.
    iam.Grant.addToPrincipal({
      grantee: role,
      actions: ["secretsmanager:GetSecretValue"],
      resourceArns: [this.jwtSecret.secretArn, this.webhookKey.secretArn],
    });
    if (props.mailFromAddress) grantSendMailFrom(role, props.mailFromAddress);

    this.accessLogs = new logs.LogGroup(this, "AccessLogs", {
      logGroupName: `/aws/apigateway/${props.namePrefix}-api`,
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy,
    });

    this.httpApi = new apigwv2.HttpApi(this, "HttpApi", {
      apiName: `${props.namePrefix}-api`,
      description: "Incumbent /api/v2",
      defaultIntegration: new HttpLambdaIntegration("Hono", this.handler.fn, { payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0 }),
      // The default stage is declared below, with logs and throttling.
      createDefaultStage: false,
    });

    const domainName = props.domain
      ? new apigwv2.DomainName(this, "Domain", {
          domainName: props.domain.name,
          certificate: acm.Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
        })
      : undefined;

    this.stage = this.httpApi.addStage("DefaultStage", {
      stageName: "$default",
      autoDeploy: true,
      throttle: props.throttle,
      ...(domainName ? { domainMapping: { domainName } } : {}),
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogs),
        // One JSON line per request; no headers, so no credentials reach the logs.
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            time: "$context.requestTime",
            ip: "$context.identity.sourceIp",
            method: "$context.httpMethod",
            path: "$context.path",
            status: "$context.status",
            responseLength: "$context.responseLength",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            integrationError: "$context.integrationErrorMessage",
            userAgent: "$context.identity.userAgent",
          }),
        ),
      },
    });
    acknowledgeFinding(
      this.httpApi,
      "AwsSolutions-APIG4",
      "Authorization is the application's (API keys, session JWTs, trigger secrets, per route: the spec's model); health, sign-up, sign-in and the console are public by design.",
    );
    // The plain solve holds its invocation up to the solve wait: its own route, with its own throttle
    // (derived from the concurrency the API gets), so a burst of them cannot take the whole account.
    this.httpApi.addRoutes({
      path: SOLVE_ROUTE.path,
      methods: [apigwv2.HttpMethod.POST],
      integration: new HttpLambdaIntegration("PlainSolve", this.handler.fn, { payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0 }),
    });
    (this.stage.node.defaultChild as apigwv2.CfnStage).routeSettings = {
      // Raw CloudFormation (the property is untyped JSON): its keys are written as the template spells them.
      [`POST ${SOLVE_ROUTE.path}`]: { ThrottlingRateLimit: props.solveThrottle.rateLimit, ThrottlingBurstLimit: props.solveThrottle.burstLimit },
    };
    acknowledgeFinding(
      this.httpApi.node.findChild("POST--api--v2--solve"),
      "AwsSolutions-APIG4",
      "The plain solve authorizes in the application (API key or session JWT), as every route (the spec's model).",
    );
    this.url = domainName ? `https://${props.domain!.name}` : this.httpApi.apiEndpoint;
  }
}

/**
 * SES SendEmail from one sender: the identity may be the address itself or its domain, whichever the
 * operator verified, so both identities are named; the condition pins the From address either way.
 */
function grantSendMailFrom(role: iam.IRole, from: string): void {
  const stack = Stack.of(role);
  const identity = (name: string) => Arn.format({ service: "ses", resource: "identity", resourceName: name, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }, stack);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: "SendPasswordResetMail",
      actions: ["ses:SendEmail"],
      resources: [identity(from), identity(from.split("@")[1]!)],
      conditions: { StringEquals: { "ses:FromAddress": from } },
    }),
  );
}
