import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { evaluate, type PolicyStatement } from "./iam-policy.js";

/**
 * The ECS agent's task-protection endpoint as a task sees it (`PUT ${ECS_AGENT_URI}/task-protection/v1/state`),
 * recording each call. The real agent turns each PUT into an `ecs:UpdateTaskProtection` call for its task,
 * signed with the credentials of the task's *role* (not the execution role), so a task role without that
 * right gets an AccessDeniedException back. Given `credentials` (the role and its identity-policy
 * statements, rendered from the synthesized template), this stand-in checks each call against them as
 * IAM would and answers the refusal as the agent documents it (`{"requestID", "error": {Arn, Code,
 * Message}}`); without, it lets every call through. A body the agent would refuse gets 400 with `error`.
 */
export interface ProtectionCall {
  enabled: boolean;
  expiresInMinutes: number | null;
  at: number;
  /** The identity the agent's ECS call carried, and whether its policies allowed it. */
  principal: string;
  authorized: boolean;
}

export interface FakeEcsAgentOptions {
  taskArn?: string;
  clusterArn?: string;
  credentials?: { principal: string; statements: PolicyStatement[] };
}

export class FakeEcsAgent {
  readonly calls: ProtectionCall[] = [];
  private server: Server | null = null;
  /** What ECS holds for the task: changed only by calls the credentials allowed. */
  private protection = false;
  url = "";

  constructor(private readonly options: FakeEcsAgentOptions = {}) {}

  /** The protection as ECS holds it now. */
  get protectedNow(): boolean {
    return this.protection;
  }

  async start(): Promise<void> {
    const taskArn = this.options.taskArn ?? "arn:aws:ecs:us-east-1:000000000000:task/test/1";
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const answer = (status: number, json: unknown) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(json));
        };
        if (req.method !== "PUT" || req.url !== "/task-protection/v1/state") return answer(404, { error: { Code: "NotFound" } });
        let parsed: { ProtectionEnabled?: unknown; ExpiresInMinutes?: unknown };
        try {
          parsed = JSON.parse(body);
        } catch {
          return answer(400, { error: { Code: "InvalidParameterException", Message: "bad JSON" } });
        }
        const minutes = parsed.ExpiresInMinutes;
        if (typeof parsed.ProtectionEnabled !== "boolean" || (minutes !== undefined && (typeof minutes !== "number" || minutes < 1 || minutes > 2880))) {
          return answer(400, { error: { Code: "InvalidParameterException", Message: body } });
        }
        const credentials = this.options.credentials;
        const decision = credentials
          ? evaluate(credentials.statements, {
              action: "ecs:UpdateTaskProtection",
              resource: taskArn,
              context: this.options.clusterArn ? { "ecs:cluster": this.options.clusterArn } : {},
            })
          : { allowed: true, reason: "not checked" };
        const principal = credentials?.principal ?? "unchecked";
        this.calls.push({
          enabled: parsed.ProtectionEnabled,
          expiresInMinutes: typeof minutes === "number" ? minutes : null,
          at: Date.now(),
          principal,
          authorized: decision.allowed,
        });
        if (!decision.allowed) {
          return answer(400, {
            requestID: randomUUID(),
            error: {
              Arn: taskArn,
              Code: "AccessDeniedException",
              Message: `User: ${principal} is not authorized to perform: ecs:UpdateTaskProtection on resource: ${taskArn} because ${decision.reason}`,
            },
          });
        }
        this.protection = parsed.ProtectionEnabled;
        answer(200, { protection: { ProtectionEnabled: parsed.ProtectionEnabled, ExpirationDate: null, TaskArn: taskArn } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
