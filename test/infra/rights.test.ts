import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";
import { CodeRights } from "./code-rights.js";
import { bundlesOf, renderRightsTable, rightsReports, type RoleReport } from "./rights.js";
import { synthesize, type Synthesized } from "./synthesize.js";
import { identityStatements, refTarget, resourcesOfType, type Json, type Template } from "./template-guards.js";

/**
 * Rights derived from the code, enforced: each deployed bundle's role holds exactly the actions its
 * code (every SDK command it can reach from its entry, test/infra/code-rights.ts) and its platform
 * (Lambda's log and SQS poller, the ECS agent) need, and may write and delete blobs under exactly the key
 * families its code does. docs/aws-rights.md is the table (`npm run rights`).
 */
let dev: Synthesized;
let prodWithMail: Synthesized;
let code: CodeRights;
let devReports: RoleReport[];

beforeAll(() => {
  dev = synthesize("dev");
  prodWithMail = synthesize("prod", { mailFromAddress: "no-reply@example.com" });
  code = new CodeRights([...new Set(bundlesOf(dev.stack).flatMap((b) => b.entries))]);
  devReports = rightsReports(code, dev.stack, dev.json, dev.config);
}, 300_000);

const clone = (t: Template): Template => JSON.parse(JSON.stringify(t));
const report = (reports: RoleReport[], name: string) => reports.find((r) => r.bundle.name === name)!;
const problems = (r: RoleReport) => [
  ...r.missing.map((a) => `${r.bundle.name} lacks ${a}`),
  ...r.unneeded.map((a) => `${r.bundle.name} holds ${a}, which nothing needs`),
  ...(JSON.stringify(r.blobs.writes) === JSON.stringify(r.blobs.mayWrite)
    ? []
    : [`${r.bundle.name} writes ${r.blobs.writes} but may write ${r.blobs.mayWrite}`]),
  ...(JSON.stringify(r.blobs.deletes) === JSON.stringify(r.blobs.mayDelete)
    ? []
    : [`${r.bundle.name} deletes ${r.blobs.deletes} but may delete ${r.blobs.mayDelete}`]),
];

describe("rights derived from the code", () => {
  it("every bundle of the stack is covered: the four functions and the worker", () => {
    expect(devReports.map((r) => r.bundle.name).sort()).toEqual(["api", "fleet-monitor", "sweeper", "webhook", "worker"]);
  });

  it("every role holds exactly what its bundle's code and platform need, in every stage", () => {
    for (const [s, reports] of [
      [dev, devReports],
      [prodWithMail, rightsReports(code, prodWithMail.stack, prodWithMail.json, prodWithMail.config)],
    ] as const) {
      expect(reports.flatMap(problems), s.config.stage).toEqual([]);
    }
  });

  it("blob keys are derived to their family for every write and delete (none unknown), and roles may write only there", () => {
    for (const r of devReports) {
      expect([...r.blobs.writes, ...r.blobs.deletes], r.bundle.name).not.toContain("*");
      expect([...r.blobs.mayWrite, ...r.blobs.mayDelete], r.bundle.name).not.toContain("*");
    }
  });

  it("closes the gaps of issue 26: the API deletes blobs, the worker deletes items, webhook and sweeper hold only their table actions", () => {
    const actions = (name: string) => report(devReports, name).granted;
    expect(actions("api")).toContain("s3:DeleteObject");
    // results/: a race result another write beat is taken back (issue 29).
    expect(report(devReports, "api").blobs.mayDelete).toEqual(["documents/", "results/", "runs/", "webhooks/"]);
    expect(actions("worker")).toContain("dynamodb:DeleteItem");
    for (const name of ["webhook", "sweeper"]) for (const a of ["dynamodb:DeleteItem", "dynamodb:BatchWriteItem"]) expect(actions(name), name).not.toContain(a);
    expect(report(devReports, "worker").blobs.mayWrite).not.toContain("documents/");
  });

  it("reaches a command called only through a port (TriggerSchedules → EventBridge Scheduler) and one only a stage setting turns on (SES)", () => {
    const api = report(devReports, "api");
    expect(api.needs.find((n) => n.action === "scheduler:CreateSchedule")?.because.join()).toContain("schedules-aws.ts");
    expect(api.granted).not.toContain("ses:SendEmail");
    expect(report(rightsReports(code, prodWithMail.stack, prodWithMail.json, prodWithMail.config), "api").granted).toContain("ses:SendEmail");
  });

  it("fails on a right removed from a role, and on one added that nothing needs", () => {
    const roleOf = (name: string) => report(devReports, name).bundle.roleId;
    const statementWith = (t: Template, roleId: string, action: string) =>
      resourcesOfType(t, "AWS::IAM::Policy")
        .filter(([, p]) => (p.Properties.Roles as Json[]).some((r) => refTarget(r) === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
        .find((s) => [s.Action].flat().includes(action));
    const removed = clone(dev.json);
    const st = statementWith(removed, roleOf("worker"), "dynamodb:UpdateItem");
    st.Action = [st.Action].flat().filter((a: string) => a !== "dynamodb:UpdateItem");
    const added = clone(dev.json);
    const webhookStatement = statementWith(added, roleOf("webhook"), "dynamodb:GetItem");
    webhookStatement.Action = [...[webhookStatement.Action].flat(), "dynamodb:Scan"];
    const check = (t: Template) => rightsReports(code, dev.stack, t, dev.config).flatMap(problems);
    expect(check(removed)).toEqual(["worker lacks dynamodb:UpdateItem"]);
    expect(check(added)).toEqual(["webhook holds dynamodb:Scan, which nothing needs"]);
  });

  it("the roles no bundle runs under hold their platform's rights only: the scheduler's and the task execution role", () => {
    const roleActions = (roleId: string) =>
      [
        ...new Set(
          identityStatements(dev.json)
            .filter((s) => s.roles.includes(roleId))
            .flatMap((s) => s.Action),
        ),
      ].sort();
    const scheduler = resourcesOfType(dev.json, "AWS::IAM::Role").find(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes("scheduler.amazonaws.com"),
    )![0];
    expect(roleActions(scheduler)).toEqual(["sqs:SendMessage"]);
    const [, taskDefinition] = resourcesOfType(dev.json, "AWS::ECS::TaskDefinition")[0]!;
    expect(roleActions(refTarget(taskDefinition.Properties.ExecutionRoleArn)!)).toEqual([
      "ecr:BatchCheckLayerAvailability",
      "ecr:BatchGetImage",
      "ecr:GetAuthorizationToken",
      "ecr:GetDownloadUrlForLayer",
      "logs:CreateLogStream",
      "logs:PutLogEvents",
    ]);
  });

  it("docs/aws-rights.md is the table the code and the template give (npm run rights)", () => {
    const current = readFileSync(path.join(REPO_ROOT, "docs/aws-rights.md"), "utf8");
    expect(current).toBe(renderRightsTable(devReports, "dev"));
  });
});
