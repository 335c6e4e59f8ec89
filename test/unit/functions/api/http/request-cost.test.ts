import { describe, expect, it, vi } from "vitest";
import type { ApiDeps } from "../../../../../functions/api/http/context.js";
import { fakeApp } from "../../../../support/fake-api.js";

/**
 * Issue 25, Build 1: every request's cost bounded before any work. These run the real app over fakes:
 * a service a request must not reach is a spy that fails the test when called.
 */
const json = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body,
});

const nested = (depth: number) => `{"override_data": {"x": ${"[".repeat(depth)}1${"]".repeat(depth)}}}`;

function fireSpy() {
  const fire = vi.fn(async () => {
    throw new Error("the fire must not be reached");
  });
  return { fire, triggerRuns: { fire } as unknown as ApiDeps["triggerRuns"] };
}

describe("a JSON body is measured before it is parsed", () => {
  it("answers a fire whose override_data nests 20,000 arrays 422 (was 500), before the secret is checked", async () => {
    const { fire, triggerRuns } = fireSpy();
    const { app } = fakeApp({ triggerRuns });
    const res = await app.request("/api/v2/triggers/trg_x/fire", json(nested(20_000), { authorization: "Bearer inc_trg_guess" }));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ loc: ["body"], type: "too_deep" }], status_code: 422 });
    expect(fire).not.toHaveBeenCalled();
  });

  it("takes 32 levels and refuses 33", async () => {
    const { triggerRuns } = fireSpy();
    const { app } = fakeApp({ triggerRuns });
    // override_data and x are two levels: 30 arrays inside them reach 32.
    expect((await app.request("/api/v2/triggers/trg_x/fire", json(nested(31)))).status).toBe(422);
    const at = await app.request("/api/v2/triggers/trg_x/fire", json(nested(30)));
    expect(at.status).toBe(500); // reached the (throwing) fire: the body was admitted
  });

  it("refuses a __proto__ key anywhere with 422 (zod's records dropped it silently)", async () => {
    const { fire, triggerRuns } = fireSpy();
    const { app } = fakeApp({ triggerRuns });
    const res = await app.request("/api/v2/triggers/trg_x/fire", json('{"override_data": {"__proto__": {"n": 1}}}'));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ type: "forbidden_key" }] });
    expect(fire).not.toHaveBeenCalled();
  });

  it("answers 413 past the value count", async () => {
    const { fire, triggerRuns } = fireSpy();
    const { app } = fakeApp({ triggerRuns }, { MAX_REQUEST_BODY_MB: "8" });
    const res = await app.request("/api/v2/triggers/trg_x/fire", json(`{"override_data": {"x": [${Array(1_000_001).fill("0").join(",")}]}}`));
    expect(res.status).toBe(413);
    expect(fire).not.toHaveBeenCalled();
  });
});

describe("the body ceiling", () => {
  it("is 4 MB when MAX_REQUEST_BODY_MB is not set, as in the AWS stages (there was none locally)", async () => {
    const { fire, triggerRuns } = fireSpy();
    const { app, deps } = fakeApp({ triggerRuns });
    expect(deps.config.maxRequestBodyMb).toBe(4);
    const res = await app.request("/api/v2/triggers/trg_x/fire", json(`{"override_data": {"s": "${"x".repeat(4 * 1024 * 1024)}"}}`));
    expect(res.status).toBe(413);
    expect(fire).not.toHaveBeenCalled();
  });
});

describe("rate limits count before the body where the caller is known", () => {
  it("counts a password reset against the client IP before reading the body (it counted only the address, after the body)", async () => {
    const requestPasswordReset = vi.fn(async () => undefined);
    const { app, counters } = fakeApp(
      { auth: { requestPasswordReset } as unknown as ApiDeps["auth"], mailbox: () => undefined },
      // A day's window, so no window boundary falls between the three requests.
      { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_RATE_LIMIT_PER_DAY: "2", AUTH_PASSWORD_RESET_RATE_LIMIT_PER_HOUR: "100" },
    );
    for (const n of [1, 2]) expect((await app.request("/api/v2/auth/password-reset", json(`{"email": "user${n}@example.test"}`))).status).toBe(202);
    expect([...counters.counts.keys()].some((k) => k.startsWith("IP#192.0.2.1#anonymous|"))).toBe(true);
    // A new address each time: only the IP's window can stop the flood, and it does before the body.
    const refused = await app.request("/api/v2/auth/password-reset", json('{"email": "user3@example.test"}'));
    expect(refused.status).toBe(429);
    expect(requestPasswordReset).toHaveBeenCalledTimes(2);
  });

  it("answers the quadratic e-mail attack with the length issue alone (the shape is never checked past 254 characters)", async () => {
    const { app } = fakeApp();
    for (const path of ["/api/v2/auth/password-reset", "/api/v2/auth/login", "/api/v2/auth/signup"]) {
      const res = await app.request(path, json(JSON.stringify({ email: `a@${".".repeat(60_000)}@`, password: "x".repeat(12), organization_name: "o" })));
      expect(res.status, path).toBe(422);
      const issues = ((await res.json()) as { detail: { loc: string[]; type: string }[] }).detail.filter((i) => i.loc.includes("email"));
      expect(
        issues.map((i) => i.type),
        path,
      ).toEqual(["too_big"]);
    }
  });
});

describe("the public recent-requests list", () => {
  it("records route templates, never a request's own path, and is counted per client IP", async () => {
    const recorded: { path: string }[] = [];
    const { app, counters } = fakeApp({
      metrics: { recordRequest: (r: { path: string }) => void recorded.push(r), flushIfDue: async () => undefined } as unknown as ApiDeps["metrics"],
      metricsStore: { recent: async () => recorded.map((r) => ({ method: "GET", status: 200, duration_ms: 1, timestamp: "t", ...r })) } as never,
    });
    await app.request("/api/v2/models/executions/exe_secret_of_another_tenant", { headers: { authorization: "Bearer viewer" } });
    await app.request("/api/v2/no/such/exe_secret");
    expect(recorded.map((r) => r.path)).toEqual(["/api/v2/models/executions/:execution_id", "(no route)"]);
    const res = await app.request("/api/v2/health/metrics/recent");
    expect(JSON.stringify(await res.json())).not.toContain("secret");
    expect([...counters.counts.keys()].filter((k) => k.startsWith("IP#192.0.2.1#anonymous|")).length).toBeGreaterThan(0);
    expect(res.headers.get("x-ratelimit-limit")).toEqual(expect.any(String));
  });
});
