import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The ECS agent's task-protection endpoint as a task sees it (`PUT ${ECS_AGENT_URI}/task-protection/v1/state`),
 * recording each call. It answers as the agent does: 200 with `protection`, or 400 with `error` for a
 * body the agent would refuse.
 */
export interface ProtectionCall {
  enabled: boolean;
  expiresInMinutes: number | null;
  at: number;
}

export class FakeEcsAgent {
  readonly calls: ProtectionCall[] = [];
  private server: Server | null = null;
  url = "";

  /** The protection as the agent holds it now. */
  get protectedNow(): boolean {
    return this.calls.at(-1)?.enabled ?? false;
  }

  async start(): Promise<void> {
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
        this.calls.push({ enabled: parsed.ProtectionEnabled, expiresInMinutes: typeof minutes === "number" ? minutes : null, at: Date.now() });
        answer(200, {
          protection: { ProtectionEnabled: parsed.ProtectionEnabled, ExpirationDate: null, TaskArn: "arn:aws:ecs:us-east-1:000000000000:task/test/1" },
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
