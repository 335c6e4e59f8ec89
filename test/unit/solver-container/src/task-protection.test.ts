import { describe, expect, it } from "vitest";
import { TaskProtection } from "../../../../solver-container/src/task-protection.js";

/** A stand-in for the ECS agent's endpoint: records each PUT, answers as told. */
function agent(answer: (body: unknown) => { status: number; body: unknown } = () => ({ status: 200, body: { protection: {} } })) {
  const calls: { url: string; body: { ProtectionEnabled: boolean; ExpiresInMinutes?: number } }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body));
    calls.push({ url, body });
    const out = answer(body);
    return new Response(JSON.stringify(out.body), { status: out.status });
  }) as unknown as typeof globalThis.fetch;
  return { calls, fetch };
}

describe("ECS task scale-in protection", () => {
  it("protects once per job, renews only past half its time, and lifts it after", async () => {
    const a = agent();
    const p = new TaskProtection({ agentUri: "http://agent", expiresInMinutes: 30, fetch: a.fetch });
    await p.protect();
    await p.protect(); // a heartbeat well within the protection: no call
    await p.release();
    await p.release(); // not protected: no call
    expect(a.calls).toEqual([
      { url: "http://agent/task-protection/v1/state", body: { ProtectionEnabled: true, ExpiresInMinutes: 30 } },
      { url: "http://agent/task-protection/v1/state", body: { ProtectionEnabled: false } },
    ]);
  });

  it("reports an agent's refusal and asks again on the next heartbeat", async () => {
    let refuse = true;
    const a = agent(() => (refuse ? { status: 200, body: { failure: { Reason: "TASK_NOT_VALID" } } } : { status: 200, body: { protection: {} } }));
    const errors: unknown[] = [];
    const p = new TaskProtection({ agentUri: "http://agent", expiresInMinutes: 5, fetch: a.fetch, onError: (e) => errors.push(e) });
    await p.protect();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("TASK_NOT_VALID");
    refuse = false;
    await p.protect();
    expect(a.calls.map((c) => c.body.ProtectionEnabled)).toEqual([true, true]);
    expect(errors).toHaveLength(1);
  });

  it("counts only a `protection` answer as protected: the agent's `error` (a task role without the right) is a failure whatever its status", async () => {
    const denied = {
      requestID: "r-1",
      error: { Arn: "arn:aws:ecs:us-east-1:1:task/c/1", Code: "AccessDeniedException", Message: "not authorized to perform: ecs:UpdateTaskProtection" },
    };
    for (const status of [200, 400]) {
      const a = agent(() => ({ status, body: denied }));
      const errors: unknown[] = [];
      const p = new TaskProtection({ agentUri: "http://agent", expiresInMinutes: 30, fetch: a.fetch, onError: (e) => errors.push(e) });
      await p.protect();
      expect(String(errors[0]), `status ${status}`).toContain("AccessDeniedException");
      await p.protect(); // not held, so the next heartbeat asks again
      expect(a.calls).toHaveLength(2);
    }
  });

  it("does nothing outside ECS (no agent URI)", async () => {
    const a = agent();
    const p = new TaskProtection({ agentUri: "", expiresInMinutes: 30, fetch: a.fetch });
    await p.protect();
    await p.release();
    expect(p.enabled).toBe(false);
    expect(a.calls).toEqual([]);
  });
});
