import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { acknowledgeFinding, acknowledgeWildcardResource } from "./nag.js";

/** The checkout's root: Lambda entries and the solver image's build context are found from here. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The handlers are ESM with top-level await; some of their dependencies are CommonJS and call
 * `require`, which an ESM bundle lacks, so the bundle defines one.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __incumbentCreateRequire } from 'node:module'; const require = __incumbentCreateRequire(import.meta.url);";

/** esbuild's settings for a separate module: the main bundle's, minus nothing, into its own file. */
function separateModulesBundling(modules: { specifier: string; entry: string }[]) {
  if (modules.length === 0) return {};
  const esbuild = path.join(REPO_ROOT, "node_modules/.bin/esbuild");
  return {
    esbuildArgs: Object.fromEntries(modules.map((m) => [`--external:${m.specifier}`, true])),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_input: string, outputDir: string) =>
        modules.map((m) =>
          [
            `"${esbuild}"`,
            `"${path.join(REPO_ROOT, m.entry)}"`,
            "--bundle --platform=node --format=esm --target=node22 --main-fields=module,main --minify --sourcemap --sources-content=false --log-level=warning",
            `"--banner:js=${ESM_REQUIRE_BANNER}"`,
            `"--outfile=${path.join(outputDir, path.basename(m.specifier))}"`,
          ].join(" "),
        ),
    },
  };
}

export interface ServiceFunctionProps {
  /** Entry file, relative to the repository root (it exports `handler`). */
  entry: string;
  /** Physical name, also the log group's (`/aws/lambda/<name>`). */
  functionName: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  logRetentionDays: number;
  /** Stage data policy: production keeps its logs when the stack goes. */
  removalPolicy: RemovalPolicy;
  reservedConcurrentExecutions?: number;
  /**
   * Modules shipped as files of their own beside index.mjs, for code a cold start should not parse:
   * the handler imports `specifier` (e.g. "./mcp-sdk.mjs") dynamically; it stays external to the main
   * bundle and `entry` (relative to the repository root) is bundled to that file name after it.
   */
  separateModules?: { specifier: string; entry: string }[];
}

/**
 * One of our Lambda functions: Node 22 on ARM64, bundled locally by esbuild (never Docker), with its
 * own role and log group. The role starts empty — no AWSLambdaBasicExecutionRole, whose log rights
 * cover every log group — and gets write access to this function's log group only; each construct
 * then grants exactly what its handler calls.
 */
export class ServiceFunction extends Construct {
  /** The physical name, a plain string (also its log group's and its metrics' `service` dimension). */
  readonly name: string;
  /** The source files its bundle is built from (the entry, then any separate modules), repository-relative. */
  readonly entries: string[];
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.name = props.functionName;
    this.entries = [props.entry, ...(props.separateModules ?? []).map((m) => m.entry)];
    this.logGroup = new logs.LogGroup(this, "Logs", {
      logGroupName: `/aws/lambda/${props.functionName}`,
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: props.removalPolicy,
    });
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `${props.functionName}: least privilege, granted per resource by its construct`,
    });
    this.logGroup.grant(this.role, "logs:CreateLogStream", "logs:PutLogEvents");

    this.fn = new NodejsFunction(this, "Function", {
      entry: path.join(REPO_ROOT, props.entry),
      handler: "handler",
      functionName: props.functionName,
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      // X-Ray: each invocation's handler and its AWS calls (Powertools Tracer, functions/core/observability/lambda.ts).
      tracing: lambda.Tracing.ACTIVE,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, "package-lock.json"),
      environment: {
        NODE_OPTIONS: "--enable-source-maps",
        // Powertools' service name: the logger's `service` and the metrics' `service` dimension, which the
        // stack's alarms and dashboard name (functions/core/observability/metric-names.ts).
        POWERTOOLS_SERVICE_NAME: props.functionName,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: "node22",
        mainFields: ["module", "main"],
        banner: ESM_REQUIRE_BANNER,
        // Ship the SDK versions the code was tested with, not whichever the runtime carries.
        bundleAwsSDK: true,
        minify: true,
        // Stack traces keep file and line; the map carries no copy of the sources, which Node would
        // otherwise read and parse on every cold start (npm run bench -- cold-start).
        sourceMap: true,
        sourcesContent: false,
        forceDockerBundling: false,
        ...separateModulesBundling(props.separateModules ?? []),
      },
    });
    acknowledgeWildcardResource(
      this.role,
      "*",
      "Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource type (granted by Lambda's tracing config).",
    );
    acknowledgeFinding(
      this.fn,
      "AwsSolutions-L1",
      "Node.js 22 is the runtime the bundles are built for (esbuild target node22) and tested on (the assembly test); moving to a newer runtime is a change of its own.",
    );
  }
}
