import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AbuseStack, memoryMb, startAbuseStack, streamedPost, whileAttacking } from "./support.js";

/**
 * Issue 25, attacks that need no account: each answered with a clear 4xx, the work bounded before it
 * starts (evidence in counts, statuses, bytes and RSS), and /health answering meanwhile.
 */
let stack: AbuseStack;
beforeAll(async () => {
  // The client IP's anonymous window counted per day only, so no window boundary falls inside a test.
  stack = await startAbuseStack({ INSTANCE_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_RATE_LIMIT_PER_DAY: "60" });
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as any,
  }));

describe("no account needed", () => {
  it("the quadratic e-mail (a@ + 60,000 dots + @) on password reset, sign-in and sign-up: 422 on the length alone, the shape never checked", async () => {
    const email = `a@${".".repeat(60_000)}@`;
    for (const [path, body] of [
      ["/api/v2/auth/password-reset", { email }],
      ["/api/v2/auth/login", { email, password: "x" }],
      ["/api/v2/auth/signup", { organization_name: "o", email, password: "long enough password" }],
    ] as const) {
      const seen = await whileAttacking(stack.url, () => post(path, JSON.stringify(body)));
      expect(seen.result.status, path).toBe(422);
      const emailIssues = (seen.result.body.detail as { loc: string[]; type: string }[]).filter((i) => i.loc.includes("email"));
      expect(
        emailIssues.map((i) => i.type),
        path,
      ).toEqual(["too_big"]);
      expect(seen.probes.every((p) => p.status === 200)).toBe(true);
    }
  });

  it("a fire whose override_data nests 20,000 arrays, with a guessed secret: 422 too_deep before anything is looked up (was a 500)", async () => {
    const body = `{"override_data": {"x": ${"[".repeat(20_000)}1${"]".repeat(20_000)}}}`;
    const seen = await whileAttacking(stack.url, () => post("/api/v2/triggers/trg_x/fire", body, { authorization: "Bearer inc_trg_guess" }));
    expect(seen.result.status).toBe(422);
    expect(seen.result.body).toMatchObject({ detail: [{ loc: ["body"], type: "too_deep" }], status_code: 422 });
    expect(seen.probes.every((p) => p.status === 200)).toBe(true);
  });

  it("a 600 MB body: 413 once the ceiling is known to be passed, after a few MB at most, and the server's memory does not follow (was a 500 at 1.3 GB)", async () => {
    const ceiling = stack.config.maxRequestBodyMb * 1024 * 1024;
    for (const chunked of [false, true]) {
      const before = memoryMb();
      const seen = await whileAttacking(stack.url, () => streamedPost(stack.url, "/api/v2/auth/password-reset", 600 * 1024 * 1024, { chunked }));
      expect(seen.result.status, `chunked: ${chunked}`).toBe(413);
      expect(JSON.parse(seen.result.body)).toMatchObject({ error_code: "payload_too_large" });
      // Declared: refused on the header. Chunked: refused once it has read past the ceiling.
      expect(seen.result.sentBytes).toBeLessThan(ceiling + 64 * 1024 * 1024);
      // This process is the server (and the attacker, whose buffer is one reused MB): its peak grows by far less than the body.
      expect(memoryMb().peak - before.peak).toBeLessThan(150);
      expect(seen.probes.every((p) => p.status === 200)).toBe(true);
    }
  });

  it("the public recent-requests list names no resource id, and is limited per client IP", async () => {
    const api = stack.api;
    await api.get("/api/v2/models/executions/exe_someone_elses_0001");
    await api.get("/api/v2/triggers/trg_someone_elses_0002/runs");
    const recent = await api.as(null).get("/api/v2/health/metrics/recent?limit=100");
    expect(recent.status).toBe(200);
    const paths = (recent.body.items as { path: string }[]).map((i) => i.path);
    expect(paths).toContain("/api/v2/models/executions/:execution_id");
    expect(JSON.stringify(recent.body)).not.toMatch(/exe_someone|trg_someone/);
    // The anonymous window of this client IP: the list answers 429 once it is spent.
    const remaining = Number(recent.headers.get("x-ratelimit-remaining"));
    expect(remaining).toBeGreaterThanOrEqual(0);
    let status = 200;
    for (let i = 0; i <= remaining && status === 200; i++) status = (await api.as(null).get("/api/v2/health/metrics/recent?limit=1")).status;
    expect(status).toBe(429);
  });
});
