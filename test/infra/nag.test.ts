import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { App, Validations } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, it } from "vitest";
import { IncumbentStack } from "../../lib/incumbent-stack.js";
import { resolveStageConfig } from "../../lib/stage.js";
import { REPO_ROOT } from "../support/machine.js";

/**
 * cdk-nag's AwsSolutions pack on the synthesized app, as CI runs it (its v3 form: a validation plugin,
 * `Validations.of(app).addPlugins(...)`): zero findings that are not acknowledged, and every
 * acknowledgement on the construct it is about, with a reason (lib/nag.ts).
 */
const CDK_CONTEXT = JSON.parse(readFileSync(path.join(REPO_ROOT, "cdk.json"), "utf8")).context as Record<string, unknown>;

interface Finding {
  rule: string;
  path: string;
}

/** Synthesizes a stage with the pack attached; the findings it reports and the app. */
function nag(stage: string, settings: Record<string, unknown> = {}, tamper?: (stack: IncumbentStack) => void): { findings: Finding[]; app: App } {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "incumbent-nag-"));
  try {
    const context: Record<string, unknown> = { ...CDK_CONTEXT, stage, "aws:cdk:bundling-stacks": [] };
    for (const [key, value] of Object.entries(settings)) context[`incumbent:${key}`] = value;
    const app = new App({ outdir, context });
    const config = resolveStageConfig({ context: (key) => app.node.tryGetContext(key), env: {} });
    const stack = new IncumbentStack(app, `Incumbent-${stage}`, { config });
    tamper?.(stack);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    try {
      app.synth();
    } catch (error) {
      // The pack reports through the validation report, which synth writes before it throws.
      if (!/ValidationFailed|Validation failed/.test(`${(error as Error).name} ${String(error)}`)) throw error;
    }
    const report = JSON.parse(readFileSync(path.join(outdir, "validation-report.json"), "utf8")) as {
      pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
    };
    const findings = report.pluginReports.flatMap((p) =>
      p.violations.flatMap((v) => v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath }))),
    );
    return { findings, app };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const STAGES: [string, Record<string, unknown>][] = [
  ["dev", {}],
  ["prod", { alarmEmail: "ops@example.com", mailFromAddress: "no-reply@example.com", solverSpot: true }],
  ["prod", { domainName: "api.example.com", certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc" }],
  ["local", { fleet: false, awsEndpointUrl: "http://localhost.localstack.cloud:4566" }],
];

describe("cdk-nag AwsSolutions on the synthesized app", () => {
  it.each(STAGES)("stage %s %j: no finding left unacknowledged", (stage, settings) => {
    expect(nag(stage, settings).findings).toEqual([]);
  });

  it("every acknowledgement names its rule, sits on the construct concerned (not the app or a stack) and says why", () => {
    const { app } = nag("dev");
    const acks: { path: string; id: string; reason: string }[] = [];
    for (const c of app.node.findAll()) {
      for (const entry of c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)) {
        for (const [id, value] of Object.entries(entry.data as Record<string, { reason?: string } | string>)) {
          // Ours only (CDK acknowledges some of its own validator's rules on the stack).
          if (id.includes("AwsSolutions")) acks.push({ path: c.node.path, id, reason: typeof value === "string" ? value : (value?.reason ?? "") });
        }
      }
    }
    expect(acks.length).toBeGreaterThan(10);
    for (const a of acks) {
      expect(a.id, a.path).toMatch(/AwsSolutions-[A-Z]+\d+/);
      expect(a.path.split("/").length, `${a.id} on ${a.path}`).toBeGreaterThan(2);
      expect(a.reason.length, `${a.id} on ${a.path}`).toBeGreaterThan(40);
    }
  });

  it("reports what is not acknowledged: a wildcard grant added to a role is a finding", () => {
    const { findings } = nag("dev", {}, (stack) =>
      stack.api.handler.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ["s3:GetObject"], resources: ["arn:aws:s3:::someone-elses-bucket/*"] })),
    );
    expect(findings).toEqual([
      { rule: "AwsSolutions-IAM5[Resource::arn:aws:s3:::someone-elses-bucket/*]", path: "Incumbent-dev/Api/Handler/Role/DefaultPolicy/Resource" },
    ]);
  });
});
