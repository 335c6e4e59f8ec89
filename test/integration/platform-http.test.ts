import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
let stack: Stack;

beforeAll(async () => {
  // The local scheduler's tick queries the table on its own; this file counts a request's DynamoDB calls.
  stack = await startTestStack({ env: { MAX_REQUEST_BODY_MB: "1", LOCAL_SCHEDULER_TICK_MS: "3600000" } });
});
afterAll(() => stack?.stop());

const general = (status: number, code: string) => ({ detail: expect.any(String), error_code: code, error: code, status_code: status });

describe("bad input gets the right status and the spec's body shape", () => {
  const cases: { name: string; send: () => Promise<{ status: number; body: any }>; status: number; body: unknown }[] = [
    {
      name: "an oversize body → 413",
      send: () => stack.api.post("/api/v2/keys", JSON.stringify({ name: "x".repeat(1_600_000) })),
      status: 413,
      body: general(413, "payload_too_large"),
    },
    {
      name: "broken JSON → 400",
      send: () => stack.api.post("/api/v2/keys", '{"name": "oops",'),
      status: 400,
      body: general(400, "malformed_json"),
    },
    {
      name: "wrong types → 422 with loc, msg, type",
      send: () => stack.api.post("/api/v2/keys", { name: 42, expires_in_days: "soon" }),
      status: 422,
      body: {
        detail: [
          { loc: ["body", "name"], msg: expect.any(String), type: "invalid_type" },
          { loc: ["body", "expires_in_days"], msg: expect.any(String), type: "invalid_type" },
        ],
        status_code: 422,
      },
    },
    {
      name: "an unknown route → 404",
      send: () => stack.api.get("/api/v2/no-such-thing"),
      status: 404,
      body: general(404, "not_found"),
    },
    {
      name: "missing credentials → 401 unauthorized",
      send: () => stack.api.as(null).get("/api/v2/keys"),
      status: 401,
      body: general(401, "unauthorized"),
    },
    {
      name: "an unknown API key → 401 unauthorized",
      send: () => stack.api.as("inc_key_not_a_real_key").get("/api/v2/keys"),
      status: 401,
      body: general(401, "unauthorized"),
    },
    {
      name: "a forged session token → 401 unauthorized",
      send: () => stack.api.as("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4In0.c2ln").get("/api/v2/keys"),
      status: 401,
      body: general(401, "unauthorized"),
    },
    {
      name: "a rule checked outside the schema (a key expiring in the past) → 422 with the same shape",
      send: () => stack.api.post("/api/v2/keys", { name: "past", expires_at: "2001-01-01T00:00:00Z" }),
      status: 422,
      body: { detail: [{ loc: ["body", "expires_at"], msg: expect.any(String), type: "value_error" }], status_code: 422 },
    },
    {
      name: "a query parameter out of range → 422",
      send: () => stack.api.get("/api/v2/health/metrics/recent?limit=101"),
      status: 422,
      body: { detail: [{ loc: ["query", "limit"], msg: expect.any(String), type: "too_big" }], status_code: 422 },
    },
  ];

  it.each(cases)("$name", async ({ send, status, body }) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
  });
});

describe("cost of an authenticated read", () => {
  it("is at most 2 DynamoDB calls: the key lookup is cached, the rate-limit update is one call", async () => {
    let calls = 0;
    const names: string[] = [];
    stack.services.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        calls++;
        names.push(String(context.commandName));
        return next(args);
      },
      { step: "initialize", name: "countCalls" },
    );
    try {
      await stack.api.get("/api/v2/credits/balance"); // warms the key cache
      calls = 0;
      names.length = 0;
      for (let i = 0; i < 10; i++) {
        const before = calls;
        expect((await stack.api.get("/api/v2/credits/balance")).status).toBe(200);
        expect(calls - before, names.slice(before).join(", ")).toBeLessThanOrEqual(2);
      }
      expect(names.filter((n) => n === "UpdateItemCommand")).toHaveLength(10);
    } finally {
      stack.services.dynamo.middlewareStack.remove("countCalls");
    }
  });
});

describe("health and documentation", () => {
  it("serves /health with the spec's fields and no credentials", async () => {
    const res = await stack.api.as(null).get("/api/v2/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", version: expect.any(String), solver: expect.any(String), python_version: process.version });
    for (const k of ["cpu_percent", "memory_percent", "memory_available_mb", "disk_usage_percent"]) expect(typeof res.body.system[k]).toBe("number");
    expect(res.body.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it("checks database, solver (the workers' heartbeats), memory and disk in /health/status", async () => {
    // The solver component reads the workers' reports: it is up once a worker has warmed up and beaten.
    expect(await stack.workers.ready()).toBe(true);
    const res = await stack.api.as(null).get("/api/v2/health/status");
    expect(res.status).toBe(200);
    expect(res.body.components.map((c: { name: string }) => c.name)).toEqual(["database", "solver", "memory", "disk"]);
    const byName = Object.fromEntries(res.body.components.map((c: { name: string; status: string }) => [c.name, c.status]));
    expect(byName.database).toBe("healthy");
    expect(byName.solver).toBe("healthy");
    expect(res.body.components[1].message).toMatch(/^\d+ live worker\(s\); solvers: .*highs/);
    expect(res.body.checks_total).toBe(4);
    expect(["healthy", "degraded"]).toContain(res.body.status);
  });

  it("counts requests service-wide and lists recent ones newest first", async () => {
    await stack.api.as(null).get("/api/v2/health");
    await stack.api.as(null).get("/api/v2/no-such-page");
    const metrics = await stack.api.as(null).get("/api/v2/health/metrics");
    expect(metrics.body.total_requests).toBeGreaterThan(2);
    expect(metrics.body.total_failed).toBeGreaterThan(0);
    expect(metrics.body.problem_stats).toEqual({ total_solved: expect.any(Number), avg_solve_time_ms: expect.any(Number) });
    const recent = await stack.api.as(null).get("/api/v2/health/metrics/recent?limit=2");
    expect(recent.body.items).toHaveLength(2);
    expect(recent.body.items[0]).toEqual({
      method: "GET",
      path: "/api/v2/health/metrics",
      status: 200,
      duration_ms: expect.any(Number),
      timestamp: expect.any(String),
    });
    // Route templates, never a request's own path: no resource id shows in the public list.
    expect(recent.body.items[1].path).toBe("(no route)");
  });

  it("generates the OpenAPI document from the route schemas and renders a reference page", async () => {
    const doc = await stack.api.as(null).get("/api/v2/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    const create = doc.body.paths["/api/v2/keys"].post;
    expect(create.requestBody.content["application/json"].schema.properties.name.type).toBe("string");
    expect(doc.body.paths["/api/v2/keys/{key_id}"].delete.parameters[0]).toMatchObject({ name: "key_id", in: "path", required: true });
    const page = await stack.api.as(null).get("/api/v2/docs");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.text).toContain("/api/v2/credits/calculator");
    expect(page.text).not.toMatch(/<script|https?:\/\/cdn/i);
  });
});
