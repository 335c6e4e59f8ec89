import path from "node:path";
import { type CfnElement, Stack } from "aws-cdk-lib";
import type { IncumbentStack } from "../../lib/incumbent-stack.js";
import { ServiceFunction } from "../../lib/service-function.js";
import { XRAY_DAEMON_ACTIONS } from "../../lib/solver-fleet.js";
import type { StageConfig } from "../../lib/stage.js";
import { WORKER_ENTRIES } from "../../solver-container/build.js";
import { REPO_ROOT } from "../support/machine.js";
import type { BundleUsage, CodeRights, CommandSite } from "./code-rights.js";
import { identityStatements, refTarget, renderValue, resourcesOfType, type Template } from "./template-guards.js";

/**
 * The rights table: for every bundle the stack deploys, the AWS actions its code can need (derived by
 * CodeRights from the source) and the platform needs around it (Lambda's logs and SQS poller, the ECS
 * agent's calls), against the actions its role holds in the synthesized template. A right the code
 * needs and the role lacks fails a request in AWS; a right the role holds and nothing needs is a
 * right an attacker with the role's credentials gets for free. Both are reported.
 */

/** IAM service prefix of each SDK package we use; a package not here fails the test until mapped. */
const SERVICE_PREFIX: Record<string, string> = {
  "@aws-sdk/client-dynamodb": "dynamodb",
  "@aws-sdk/lib-dynamodb": "dynamodb",
  "@aws-sdk/client-s3": "s3",
  "@aws-sdk/client-sqs": "sqs",
  "@aws-sdk/client-secrets-manager": "secretsmanager",
  "@aws-sdk/client-scheduler": "scheduler",
  "@aws-sdk/client-sesv2": "ses",
  "@aws-sdk/client-cloudwatch": "cloudwatch",
  "@aws-sdk/client-ecs": "ecs",
};

/** Commands whose action is not their name, or that need a second right to work as the code expects. */
const COMMAND_ACTIONS: Record<string, { actions: string[]; why?: string }> = {
  "lib-dynamodb:GetCommand": { actions: ["dynamodb:GetItem"] },
  "lib-dynamodb:PutCommand": { actions: ["dynamodb:PutItem"] },
  "lib-dynamodb:UpdateCommand": { actions: ["dynamodb:UpdateItem"] },
  "lib-dynamodb:DeleteCommand": { actions: ["dynamodb:DeleteItem"] },
  "lib-dynamodb:QueryCommand": { actions: ["dynamodb:Query"] },
  "lib-dynamodb:ScanCommand": { actions: ["dynamodb:Scan"] },
  "lib-dynamodb:BatchWriteCommand": { actions: ["dynamodb:BatchWriteItem"] },
  "lib-dynamodb:BatchGetCommand": { actions: ["dynamodb:BatchGetItem"] },
  "lib-dynamodb:TransactWriteCommand": { actions: ["dynamodb:TransactWriteItems"] },
  "lib-dynamodb:TransactGetCommand": { actions: ["dynamodb:TransactGetItems"] },
  "client-s3:GetObjectCommand": {
    actions: ["s3:GetObject", "s3:ListBucket"],
    why: "ListBucket: a missing key answers NoSuchKey (read as absent), not AccessDenied",
  },
  "client-s3:HeadObjectCommand": { actions: ["s3:GetObject", "s3:ListBucket"] },
  "client-sqs:SendMessageBatchCommand": { actions: ["sqs:SendMessage"] },
  "client-sqs:DeleteMessageBatchCommand": { actions: ["sqs:DeleteMessage"] },
  "client-sqs:ChangeMessageVisibilityBatchCommand": { actions: ["sqs:ChangeMessageVisibility"] },
  "client-scheduler:CreateScheduleCommand": {
    actions: ["scheduler:CreateSchedule", "iam:PassRole"],
    why: "PassRole: the schedule names the role the scheduler assumes",
  },
  "client-scheduler:UpdateScheduleCommand": {
    actions: ["scheduler:UpdateSchedule", "iam:PassRole"],
    why: "PassRole: the schedule names the role the scheduler assumes",
  },
};

/** Endpoints our code calls that act in AWS on its behalf, with the rights they use of the caller's role. */
export const AGENT_ENDPOINTS: Record<string, { actions: string[]; why: string }> = {
  "/task-protection/v1/state": { actions: ["ecs:UpdateTaskProtection"], why: "the ECS agent calls UpdateTaskProtection with the task role's credentials" },
};

/** Rights the code needs only where a stage setting turns its path on; granted exactly then. */
export const RIGHTS_BY_SETTING: Record<string, { needed: (config: StageConfig) => boolean; why: string }> = {
  "ses:SendEmail": {
    needed: (c) => Boolean(c.mailFromAddress),
    why: "password-reset mail is sent through SES only when the stage names mailFromAddress (deployedMailbox)",
  },
};

export function actionsOf(site: Pick<CommandSite, "pkg" | "command">): { actions: string[]; why?: string } {
  const key = `${site.pkg.replace("@aws-sdk/", "")}:${site.command}`;
  const mapped = COMMAND_ACTIONS[key];
  if (mapped) return mapped;
  const prefix = SERVICE_PREFIX[site.pkg];
  if (!prefix || site.pkg === "@aws-sdk/lib-dynamodb") throw new Error(`no IAM action known for ${key}: map it in test/infra/rights.ts`);
  return { actions: [`${prefix}:${site.command.replace(/Command$/, "")}`] };
}

export interface Bundle {
  name: string;
  entries: string[];
  roleId: string;
  kind: "lambda" | "task";
}

/** Every bundle the synthesized stack deploys, with its role: each ServiceFunction, and the solver task's worker. */
export function bundlesOf(stack: IncumbentStack): Bundle[] {
  const logicalId = (element: unknown) => Stack.of(stack).getLogicalId(element as CfnElement);
  const bundles: Bundle[] = stack.node
    .findAll()
    .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
    .map((f) => ({
      name: f.name.slice(stack.config.namePrefix.length + 1),
      entries: f.entries,
      roleId: logicalId(f.role.node.defaultChild),
      kind: "lambda" as const,
    }));
  if (stack.fleet) {
    bundles.push({
      name: "worker",
      entries: Object.values(WORKER_ENTRIES).map((f) => path.relative(REPO_ROOT, f)),
      roleId: logicalId(stack.fleet.taskDefinition.taskRole.node.defaultChild),
      kind: "task",
    });
  }
  return bundles;
}

export interface Need {
  action: string;
  /** What asks for it: `SendMessageCommand (functions/core/queue/sqs.ts)`, `platform: …`. */
  because: string[];
}

export interface RoleReport {
  bundle: Bundle;
  needs: Need[];
  granted: string[];
  missing: string[];
  unneeded: string[];
  /** S3 key families: what the code writes and deletes, and what the role may. */
  blobs: { writes: string[]; deletes: string[]; mayWrite: string[]; mayDelete: string[] };
}

const add = (needs: Map<string, Set<string>>, action: string, because: string) => {
  if (!needs.has(action)) needs.set(action, new Set());
  needs.get(action)!.add(because);
};

/** S3 key families a role's statements allow an action under (`results/`), `*` for the whole bucket. */
function familiesGranted(statements: ReturnType<typeof identityStatements>, action: string): string[] {
  const out = new Set<string>();
  for (const s of statements.filter((st) => st.Effect === "Allow" && st.Action.includes(action))) {
    for (const r of s.Resource) {
      const rendered = renderValue(r);
      const m = /\/([^/*]+\/)?\*$/.exec(rendered);
      out.add(m?.[1] ?? "*");
    }
  }
  return [...out].sort();
}

export function roleReport(template: Template, config: StageConfig, bundle: Bundle, usage: BundleUsage): RoleReport {
  const needs = new Map<string, Set<string>>();
  for (const site of usage.commands) {
    const { actions } = actionsOf(site);
    for (const action of actions) add(needs, action, `${site.command} (${site.at.split(":")[0]})`);
  }
  for (const literal of usage.literals)
    for (const action of AGENT_ENDPOINTS[literal.text]?.actions ?? []) add(needs, action, `agent ${literal.text} (${literal.at.split(":")[0]})`);
  if (bundle.kind === "lambda") {
    for (const action of ["logs:CreateLogStream", "logs:PutLogEvents"]) add(needs, action, "platform: Lambda writes the function's log");
    const [fnId] = resourcesOfType(template, "AWS::Lambda::Function").find(([, f]) => refTarget(f.Properties.Role) === bundle.roleId) ?? [];
    const polled = resourcesOfType(template, "AWS::Lambda::EventSourceMapping").some(([, m]) => refTarget(m.Properties.FunctionName) === fnId);
    if (polled) for (const action of ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]) add(needs, action, "platform: Lambda's SQS poller");
    const fn = fnId ? template.Resources[fnId] : undefined;
    if (fn?.Properties?.TracingConfig?.Mode === "Active")
      for (const action of ["xray:PutTraceSegments", "xray:PutTelemetryRecords"]) add(needs, action, "platform: active tracing");
  }
  if (bundle.kind === "task") {
    const containers = resourcesOfType(template, "AWS::ECS::TaskDefinition")
      .filter(([, d]) => refTarget(d.Properties.TaskRoleArn) === bundle.roleId)
      .flatMap(([, d]) => d.Properties.ContainerDefinitions as { Image?: unknown }[]);
    if (containers.some((c) => JSON.stringify(c.Image).includes("aws-xray-daemon"))) {
      for (const action of XRAY_DAEMON_ACTIONS) add(needs, action, "platform: the X-Ray daemon beside the worker");
    }
  }
  for (const [action, guard] of Object.entries(RIGHTS_BY_SETTING)) if (needs.has(action) && !guard.needed(config)) needs.delete(action);

  const statements = identityStatements(template).filter((s) => s.roles.includes(bundle.roleId));
  const granted = [...new Set(statements.filter((s) => s.Effect === "Allow").flatMap((s) => s.Action))].sort();
  const needed = [...needs.keys()].sort();
  const writes = [...new Set(usage.blobKeys.filter((k) => k.op === "put").map((k) => k.prefix))].sort();
  const deletes = [...new Set(usage.blobKeys.filter((k) => k.op === "delete").map((k) => k.prefix))].sort();
  return {
    bundle,
    needs: needed.map((action) => ({ action, because: [...needs.get(action)!].sort() })),
    granted,
    missing: needed.filter((a) => !granted.includes(a)),
    unneeded: granted.filter((a) => !needs.has(a)),
    blobs: { writes, deletes, mayWrite: familiesGranted(statements, "s3:PutObject"), mayDelete: familiesGranted(statements, "s3:DeleteObject") },
  };
}

/** Every bundle's report for one synthesized stage. */
export function rightsReports(code: CodeRights, stack: IncumbentStack, template: Template, config: StageConfig): RoleReport[] {
  return bundlesOf(stack).map((b) => roleReport(template, config, b, code.usage(b.entries, Object.keys(AGENT_ENDPOINTS))));
}

/** The table docs/aws-rights.md holds (npm run rights writes it; the test fails when it is stale). */
export function renderRightsTable(reports: RoleReport[], stage: string): string {
  const lines = [
    "# AWS rights per bundle",
    "",
    `Generated by \`npm run rights\` from the source and the synthesized \`${stage}\` stage; \`test/infra/rights.test.ts\` fails when`,
    "it is stale, when a role lacks a right its code needs, or holds one nothing needs. How the needs are",
    "derived: `test/infra/code-rights.ts` (every SDK command and blob key of the code each bundle can reach",
    "from its entry), `test/infra/rights.ts` (command → action, platform needs).",
    "",
  ];
  for (const r of reports) {
    lines.push(`## ${r.bundle.name}`, "", `Entries: ${r.bundle.entries.map((e) => `\`${e}\``).join(", ")}.`, "");
    lines.push(
      ...markdownTable(
        ["action", "needed by"],
        r.needs.map((n) => [`\`${n.action}\``, n.because.join("; ")]),
      ),
    );
    lines.push("");
    if (r.blobs.writes.length || r.blobs.deletes.length) {
      lines.push(
        `Blob keys written: ${r.blobs.writes.map((p) => `\`${p}\``).join(", ") || "none"}; deleted: ${r.blobs.deletes.map((p) => `\`${p}\``).join(", ") || "none"}.`,
        "",
      );
    }
  }
  lines.push("## Rights that depend on a stage setting", "");
  for (const [action, guard] of Object.entries(RIGHTS_BY_SETTING)) lines.push(`- \`${action}\`: ${guard.why}.`);
  lines.push("");
  return lines.join("\n");
}

/** A table with its columns padded, as the formatter (biome) lays markdown tables out. */
function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}
