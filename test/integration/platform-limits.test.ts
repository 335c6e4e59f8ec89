import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../functions/core/clock.js";
import { signUp } from "../support/accounts.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
let stack: Stack;
// A minute boundary, so "the 121st request of a minute" is unambiguous.
const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

beforeAll(async () => {
  stack = await startTestStack({ clock });
});
afterAll(() => stack?.stop());

/** A request from a chosen loopback address, to act as different client IPs. */
function postFrom(localAddress: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      stack.url + path,
      { method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

describe("organization rate limit (120 requests a minute)", () => {
  it("refuses the 121st request of a minute with the spec's body and headers, spares other organizations, and admits again in the next window", async () => {
    const first = await stack.api.get("/api/v2/credits/balance");
    expect(first.headers.get("x-ratelimit-limit")).toBe("120");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("119");
    const reset = Number(first.headers.get("x-ratelimit-reset"));
    expect(reset).toBe(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000);
    expect(first.headers.get("ratelimit-policy")).toContain('"all-minute";q=120;w=60');
    expect(first.headers.get("ratelimit")).toBe('"all-minute";r=119;t=60');

    for (let i = 2; i <= 120; i++) {
      const res = await stack.api.get("/api/v2/credits/balance");
      expect(res.status, `request ${i}`).toBe(200);
    }
    clock.advance(30_000);
    const refused = await stack.api.get("/api/v2/credits/balance");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: "rate_limit_exceeded",
      message: expect.any(String),
      limit: 120,
      remaining: 0,
      reset_at: reset,
      retry_after: 30,
      status_code: 429,
    });
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");

    // Another organization has its own windows.
    const signup = await signUp(stack.api.as(null), stack.mail, { organization_name: "Other", email: "other@example.test", password: "another password" });
    expect(signup.status).toBe(201);
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email: "other@example.test", password: "another password" });
    const other = stack.api.as(login.body.access_token);
    const theirs = await other.get("/api/v2/credits/balance");
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("x-ratelimit-remaining")).toBe("119");

    clock.advance(30_000);
    const next = await stack.api.get("/api/v2/credits/balance");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-remaining")).toBe("119");
  });
});

describe("sign-in limit (30 a minute per client IP)", () => {
  it("counts attempts per client address, not per organization", async () => {
    clock.set(Date.UTC(2026, 10, 21, 13, 0, 0));
    for (let i = 0; i < 30; i++) {
      // Different unknown addresses, so the per-account limit never binds first.
      const res = await postFrom("127.0.0.2", "/api/v2/auth/login", { email: `nobody${i}@example.test`, password: "x" });
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    const refused = await postFrom("127.0.0.2", "/api/v2/auth/login", { email: "owner@example.test", password: "correct horse battery" });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("rate_limit_exceeded");
    expect(refused.body.limit).toBe(30);
    const elsewhere = await postFrom("127.0.0.3", "/api/v2/auth/login", { email: "owner@example.test", password: "correct horse battery" });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.token_type).toBe("bearer");
  });

  it("answers password reset with 202 for known and unknown addresses alike, three an hour per address", async () => {
    clock.set(Date.UTC(2026, 10, 21, 14, 0, 0));
    const anon = stack.api.as(null);
    for (const email of ["owner@example.test", "ghost@example.test"]) {
      for (let i = 0; i < 3; i++) {
        const res = await anon.post("/api/v2/auth/password-reset", { email });
        expect(res.status).toBe(202);
        expect(res.body.status).toBe("accepted");
      }
      const fourth = await anon.post("/api/v2/auth/password-reset", { email });
      expect(fourth.status).toBe(429);
    }
  });
});
