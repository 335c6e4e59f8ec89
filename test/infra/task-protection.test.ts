import type { SQSClient } from "@aws-sdk/client-sqs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobMessage } from "../../functions/core/queue/messages.js";
import { createLogger } from "../../functions/core/logger.js";
import { QueueWorker } from "../../solver-container/src/queue-worker.js";
import { TaskProtection } from "../../solver-container/src/task-protection.js";
import { FakeEcsAgent } from "../support/fake-ecs-agent.js";
import { type PolicyStatement, renderPolicyValue } from "../support/iam-policy.js";
import { eventually } from "../support/triggers.js";
import { synthesize } from "./synthesize.js";
import { identityStatements, refTarget, resourcesOfType, type Template } from "./template-guards.js";

/**
 * Scale-in protection as it works in a task: the worker PUTs to the ECS agent, and the agent calls
 * `ecs:UpdateTaskProtection` for its task with the credentials of the task role. The stand-in agent
 * checks each call against the task role's statements in the synthesized template (rendered with this
 * stage's names), so a role without the right is a refused call here as it is in AWS.
 */
const REGION = "us-east-1";
const ACCOUNT = "123456789012";
const PSEUDO = { "AWS::Partition": "aws", "AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::URLSuffix": "amazonaws.com" };

let template: Template;
let clusterName: string;

beforeAll(() => {
  const dev = synthesize("dev");
  template = dev.json;
  clusterName = `${dev.config.namePrefix}-solvers`;
}, 120_000);

/** The solver task's role as the agent would carry it: its name, and its statements with real ARNs. */
function taskRole(t: Template): { roleId: string; statements: PolicyStatement[] } {
  const [, taskDefinition] = resourcesOfType(t, "AWS::ECS::TaskDefinition")[0]!;
  const roleId = refTarget(taskDefinition.Properties.TaskRoleArn)!;
  const resolve = (id: string, attribute: string) => {
    const type = t.Resources[id]?.Type;
    if (type === "AWS::ECS::Cluster" && attribute === "Ref") return clusterName;
    if (type === "AWS::ECS::Cluster" && attribute === "Arn") return `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${clusterName}`;
    return `arn:aws:test:${REGION}:${ACCOUNT}:${id}/${attribute}`; // resources this test does not ask about
  };
  const statements = identityStatements(t)
    .filter((s) => s.roles.includes(roleId))
    .map((s) => renderPolicyValue({ Effect: s.Effect, Action: s.Action, Resource: s.Resource, Condition: s.Condition }, resolve, PSEUDO) as PolicyStatement);
  return { roleId, statements };
}

/** One message on one queue, then nothing: what the worker's receives see. */
function oneJobQueue(job: JobMessage) {
  let delivered = false;
  const calls: string[] = [];
  const sqs = {
    send: async (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      if (command.constructor.name === "ReceiveMessageCommand" && !delivered) {
        delivered = true;
        return { Messages: [{ MessageId: "m-1", ReceiptHandle: "rh-1", Body: JSON.stringify(job), Attributes: { ApproximateReceiveCount: "1" } }] };
      }
      return {};
    },
  } as unknown as SQSClient;
  return { sqs, calls };
}

const running: QueueWorker[] = [];
afterEach(async () => {
  for (const w of running.splice(0)) await w.stop();
});

/** Drives a worker through one job whose end the test decides, against `agent`; returns what it logged. */
async function driveOneJob(agent: FakeEcsAgent, during: () => Promise<void>) {
  const warnings: string[] = [];
  const logger = createLogger("task-protection-test");
  logger.warn = ((message: string) => warnings.push(message)) as typeof logger.warn;
  const { sqs } = oneJobQueue({ type: "execution", id: "exe_1", org_id: "org_1" });
  let finish!: () => void;
  const jobRunning = new Promise<void>((resolveStarted) => {
    const worker = new QueueWorker({
      sqs,
      queueUrls: { high: "q", normal: "q", low: "q" },
      pollSeconds: 0,
      claimSeconds: 20,
      visibilitySeconds: 60,
      heartbeatMs: 60_000,
      stopTimeoutMs: 10_000,
      handBackReserveMs: 1000,
      protection: new TaskProtection({
        agentUri: agent.url,
        expiresInMinutes: 30,
        timeoutMs: 60_000,
        onError: (error) => logger.warn(`ECS task protection call failed: ${error}`),
      }),
      logger,
      runJob: () =>
        new Promise<void>((resolve) => {
          finish = resolve;
          resolveStarted();
        }),
      handBack: async () => true,
    });
    running.push(worker);
    void worker.run();
  });
  await jobRunning;
  await during();
  finish();
  await eventually(
    async () => agent.calls.length,
    (n) => n >= 2,
    { timeoutMs: 10_000, everyMs: 20 },
  );
  return warnings;
}

describe("ECS task scale-in protection with the task role's rights", () => {
  it("the task role may UpdateTaskProtection on its cluster's tasks, and nothing else of ECS", () => {
    const { statements } = taskRole(template);
    const ecs = statements.filter((s) => [s.Action].flat().some((a) => a!.startsWith("ecs:")));
    expect(ecs).toEqual([{ Effect: "Allow", Action: ["ecs:UpdateTaskProtection"], Resource: [`arn:aws:ecs:${REGION}:${ACCOUNT}:task/${clusterName}/*`] }]);
  });

  it("a worker holding a job has the agent protect its task with the task role's credentials, and lifts it when the job ends", async () => {
    const { roleId, statements } = taskRole(template);
    const principal = `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/task-1`;
    const agent = new FakeEcsAgent({
      taskArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${clusterName}/0123456789abcdef`,
      clusterArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${clusterName}`,
      credentials: { principal, statements },
    });
    await agent.start();
    try {
      const warnings = await driveOneJob(agent, async () => {
        await eventually(async () => agent.protectedNow, Boolean, { timeoutMs: 10_000, everyMs: 20 });
      });
      expect(agent.calls.map(({ enabled, expiresInMinutes, principal, authorized }) => ({ enabled, expiresInMinutes, principal, authorized }))).toEqual([
        { enabled: true, expiresInMinutes: 30, principal, authorized: true },
        { enabled: false, expiresInMinutes: null, principal, authorized: true },
      ]);
      expect(agent.protectedNow).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      await agent.stop();
    }
  });

  it("without the right (the role as it was), every call is refused and the task stays unprotected while it works", async () => {
    const withoutRight = JSON.parse(JSON.stringify(template)) as Template;
    for (const [, policy] of resourcesOfType(withoutRight, "AWS::IAM::Policy")) {
      policy.Properties.PolicyDocument.Statement = policy.Properties.PolicyDocument.Statement.filter(
        (s: { Action: string | string[] }) => ![s.Action].flat().includes("ecs:UpdateTaskProtection"),
      );
    }
    const { roleId, statements } = taskRole(withoutRight);
    const agent = new FakeEcsAgent({
      taskArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${clusterName}/0123456789abcdef`,
      credentials: { principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/task-1`, statements },
    });
    await agent.start();
    try {
      const warnings = await driveOneJob(agent, async () => {
        await eventually(
          async () => agent.calls.length,
          (n) => n >= 1,
          { timeoutMs: 10_000, everyMs: 20 },
        );
        expect(agent.protectedNow).toBe(false);
      });
      expect(agent.calls.every((c) => !c.authorized)).toBe(true);
      expect(warnings.join("\n")).toMatch(/AccessDeniedException/);
    } finally {
      await agent.stop();
    }
  });
});
