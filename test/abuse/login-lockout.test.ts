import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../functions/core/clock.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Issue 25: "ten wrong logins lock the real user out". The per-account sign-in window counted every
 * attempt on the address, whoever made it; now it is per account and client address together, so a
 * stranger exhausts only their own pair. The clock is frozen inside one minute: the windows are exact.
 */
describe("sign-in throttling a stranger cannot turn into a lock-out", () => {
  let stack: Stack;
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 10, 0, 1));

  beforeAll(async () => {
    stack = await startTestStack({ clock, env: { LOCAL_WORKERS: "0" } });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** A sign-in from the loopback address `from` (the service's client IP is the socket's peer). */
  function loginFrom(from: string, password: string): Promise<{ status: number; body: any }> {
    const data = JSON.stringify({ email: "owner@example.test", password });
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${stack.url}/api/v2/auth/login`,
        { method: "POST", localAddress: from, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
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

  it("refuses the stranger's address after its ten wrong passwords, and lets the owner in from theirs", async () => {
    for (let i = 0; i < 10; i++) expect((await loginFrom("127.0.0.7", `wrong ${i}`)).status, `attempt ${i + 1}`).toBe(401);
    const owner = await loginFrom("127.0.0.8", "correct horse battery");
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body.token_type).toBe("bearer");
    const stranger = await loginFrom("127.0.0.7", "correct horse battery");
    expect(stranger.status).toBe(429);
    expect(stranger.body.message).toMatch(/this account from this address/);
  });
});
