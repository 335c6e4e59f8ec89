import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../support/machine.js";

/**
 * The cloud assembly `cdk synth` writes (template, Lambda bundles, the image's build context), made
 * offline as CI makes it and kept in `.build/cdk.out/<fingerprint>` while the inputs are unchanged: the
 * assembly test and the cold-start bench share one synth per change, and a rerun costs nothing.
 */
export const STACK_NAME = "Incumbent-dev";

/** What the synthesized stack is made from; any change here means a new synth. */
const INPUTS = ["bin/app.ts", "cdk.json", "package.json", "package-lock.json", "tsconfig.json", "lib", "functions", "solver-container", ".dockerignore"];

function fingerprint(): string {
  const hash = createHash("sha256");
  const visit = (rel: string) => {
    const full = path.join(REPO_ROOT, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) {
        if (name === "dist" || name === "node_modules" || name === "__pycache__" || name.endsWith(".test.ts")) continue;
        visit(path.join(rel, name));
      }
    } else {
      hash.update(`${rel}\0`).update(readFileSync(full)).update("\0");
    }
  };
  for (const input of INPUTS) visit(input);
  return hash.digest("hex").slice(0, 16);
}

function runSynth(outdir: string): Promise<{ code: number | null; output: string }> {
  // Offline, as in CI: no credentials, no profile, no metadata lookups, no version or telemetry calls.
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(AWS_|CDK_)/.test(key)) env[key] = value;
  Object.assign(env, {
    AWS_CONFIG_FILE: path.join(os.tmpdir(), "incumbent-no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: path.join(os.tmpdir(), "incumbent-no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    CDK_DISABLE_VERSION_CHECK: "true",
    CDK_DISABLE_CLI_TELEMETRY: "true",
  });
  const cli = path.join(REPO_ROOT, "node_modules/aws-cdk/bin/cdk");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "synth", "--quiet", "--no-notices", "--output", outdir, STACK_NAME], { cwd: REPO_ROOT, env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Keeps the newest few synths (other checkouts' states), not one per edit ever made (~25 MB each). */
function pruneOlderThan(current: string): void {
  const parent = path.dirname(current);
  const entries = readdirSync(parent)
    .filter((name) => !name.includes(".tmp-"))
    .map((name) => ({ full: path.join(parent, name), mtime: statSync(path.join(parent, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(3)) if (old.full !== current) rmSync(old.full, { recursive: true, force: true });
}

/** The cloud assembly's folder, synthesized now or reused from an earlier run over the same inputs. */
export async function ensureCloudAssembly(): Promise<string> {
  const dir = path.join(REPO_ROOT, ".build/cdk.out", fingerprint());
  if (existsSync(path.join(dir, `${STACK_NAME}.template.json`))) return dir;
  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  const { code, output } = await runSynth(tmp);
  if (code !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`cdk synth failed (${code}):\n${output}`);
  }
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // a parallel run finished the same synth first
  }
  pruneOlderThan(dir);
  return dir;
}

export type Resource = { Type: string; Properties?: Record<string, any> };
export interface Template {
  Resources: Record<string, Resource>;
}

export function readTemplate(assembly: string): Template {
  return JSON.parse(readFileSync(path.join(assembly, `${STACK_NAME}.template.json`), "utf8")) as Template;
}

/** A Lambda function of the stack as the template declares it, with the folder of its bundle. */
export interface LambdaFunction {
  logicalId: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  environment: Record<string, unknown>;
  assetDir: string;
  /** Custom-resource providers CDK adds (their code is CDK's, not ours). */
  ours: boolean;
}

/** Asset folders by the S3 key the template names (`<hash>.zip`), from the assembly's asset manifest. */
function assetDirs(assembly: string): Map<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(assembly, `${STACK_NAME}.assets.json`), "utf8")) as {
    files: Record<string, { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }>;
  };
  const byKey = new Map<string, string>();
  for (const file of Object.values(manifest.files)) {
    if (file.source.packaging !== "zip") continue;
    for (const destination of Object.values(file.destinations)) byKey.set(destination.objectKey, path.join(assembly, file.source.path));
  }
  return byKey;
}

export function lambdaFunctions(assembly: string, template: Template): LambdaFunction[] {
  const dirs = assetDirs(assembly);
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === "AWS::Lambda::Function")
    .map(([logicalId, r]) => {
      const p = r.Properties!;
      const assetDir = dirs.get(p.Code?.S3Key);
      if (!assetDir) throw new Error(`${logicalId}: no bundle in the cloud assembly for ${JSON.stringify(p.Code)}`);
      return {
        logicalId,
        handler: p.Handler,
        timeoutSeconds: p.Timeout ?? 3,
        memoryMb: p.MemorySize ?? 128,
        environment: p.Environment?.Variables ?? {},
        assetDir,
        ours: !logicalId.startsWith("Custom"),
      };
    });
}

/** `{"Fn::GetAtt": [id, "Arn"]}` or `{"Ref": id}` → id. */
export function referencedId(value: unknown): string | null {
  const v = value as { Ref?: string; "Fn::GetAtt"?: [string, string] };
  return v?.Ref ?? v?.["Fn::GetAtt"]?.[0] ?? null;
}

/** The function behind the HTTP API's integration, the SQS mappings, and the schedules. */
export function triggersOf(template: Template) {
  const resources = Object.entries(template.Resources);
  const http = resources.filter(([, r]) => r.Type === "AWS::ApiGatewayV2::Integration").map(([, r]) => referencedId(r.Properties!.IntegrationUri));
  const sqs = resources
    .filter(([, r]) => r.Type === "AWS::Lambda::EventSourceMapping")
    .map(([, r]) => ({
      functionId: referencedId(r.Properties!.FunctionName)!,
      queueId: referencedId(r.Properties!.EventSourceArn)!,
      batchSize: (r.Properties!.BatchSize as number | undefined) ?? 10,
      reportsFailures: ((r.Properties!.FunctionResponseTypes as string[] | undefined) ?? []).includes("ReportBatchItemFailures"),
    }));
  const schedules = resources
    .filter(([, r]) => r.Type === "AWS::Events::Rule" && r.Properties!.ScheduleExpression)
    .flatMap(([ruleId, r]) => (r.Properties!.Targets as { Arn: unknown }[]).map((t) => ({ ruleId, functionId: referencedId(t.Arn)! })));
  return { http, sqs, schedules };
}

/** The solver container: its image asset's build context, command and environment. */
export function solverTask(assembly: string, template: Template) {
  const definitions = Object.values(template.Resources).filter((r) => r.Type === "AWS::ECS::TaskDefinition");
  if (definitions.length !== 1) throw new Error(`expected one task definition, found ${definitions.length}`);
  // The worker's container (the task also runs the X-Ray daemon beside it).
  const container = (definitions[0]!.Properties!.ContainerDefinitions as Record<string, any>[]).find(
    (c) => Array.isArray(c.Command) && c.Command[0] === "node",
  )!;
  const manifest = JSON.parse(readFileSync(path.join(assembly, `${STACK_NAME}.assets.json`), "utf8")) as {
    dockerImages: Record<string, { source: { directory: string } }>;
  };
  const images = Object.values(manifest.dockerImages);
  if (images.length !== 1) throw new Error(`expected one image asset, found ${images.length}`);
  const environment: Record<string, unknown> = {};
  for (const e of (container.Environment ?? []) as { Name: string; Value: unknown }[]) environment[e.Name] = e.Value;
  return {
    command: [...((container.EntryPoint as string[] | undefined) ?? []), ...((container.Command as string[] | undefined) ?? [])],
    environment,
    healthCheck: (container.HealthCheck?.Command ?? undefined) as string[] | undefined,
    secrets: (container.Secrets ?? []) as unknown[],
    contextDir: path.join(assembly, images[0]!.source.directory),
  };
}
