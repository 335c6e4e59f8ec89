import { describe, expect, it, vi } from "vitest";
import type { ApiDeps } from "../../../../../functions/api/http/context.js";
import { Credits } from "../../../../../functions/core/credits/credits.js";
import { notFound, unauthorized } from "../../../../../functions/core/errors.js";
import { as, fakeApp } from "../../../../support/fake-api.js";

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

const PROBLEM = { name: "p", variables: [{ name: "x", ub: 1 }], objective: { terms: [{ var: "x", coef: 1 }] }, constraints: [] };

/** A comparisons service that records what reached it. */
function comparisons() {
  const launch = vi.fn(async () => ({ id: "cmp_1" }));
  return { launch, service: { launch, get: vi.fn(), launchMatrix: vi.fn(), getMatrix: vi.fn() } as unknown as ApiDeps["comparisons"] };
}

const mcpCall = (name: string, args: unknown) =>
  json({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, { accept: "application/json, text/event-stream" });

describe("the MCP tools go through their REST twins' policy", () => {
  it("refuses a viewer's tools/call compare_solvers with the REST 403 body, and nothing reaches the launch (nothing is charged)", async () => {
    const c = comparisons();
    const { app } = fakeApp({ comparisons: c.service });
    const res = await app.request("/api/v2/mcp", as("viewer", mcpCall("compare_solvers", { solver_names: ["highs"], problem: PROBLEM })));
    expect(res.status).toBe(200);
    const rpc = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(rpc.result.isError).toBe(true);
    expect(JSON.parse(rpc.result.content[0]!.text)).toMatchObject({ error_code: "forbidden", status_code: 403 });
    expect(c.launch).not.toHaveBeenCalled();

    const rest = await app.request("/api/v2/solvers/compare", as("viewer", json({ solver_names: ["highs"], problem: PROBLEM })));
    expect(rest.status).toBe(403);
    expect(c.launch).not.toHaveBeenCalled();
  });

  it("lets a solver's tools/call compare_solvers through to the same launch", async () => {
    const c = comparisons();
    const { app } = fakeApp({ comparisons: c.service });
    const res = await app.request("/api/v2/mcp", as("solver", mcpCall("compare_solvers", { solver_names: ["highs"], problem: PROBLEM })));
    const rpc = (await res.json()) as { result: { isError?: boolean; structuredContent: unknown } };
    expect(rpc.result.isError).toBeFalsy();
    expect(rpc.result.structuredContent).toEqual({ id: "cmp_1" });
    expect(c.launch).toHaveBeenCalledTimes(1);
  });
});

describe("rate-limit headers on every response but health's", () => {
  const headersOf = (res: Response) =>
    ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit", "ratelimit-policy"].map((h) => res.headers.get(h));

  it.each([
    ["a missing credential (401)", "/api/v2/keys", {}, 401],
    ["a bad credential (401)", "/api/v2/keys", { headers: { authorization: "Bearer nope" } }, 401],
    ["an unknown route (404)", "/api/v2/no-such-thing", {}, 404],
    ["a known path with the wrong method (405)", "/api/v2/keys", { method: "PUT" }, 405],
    ["password-reset/confirm", "/api/v2/auth/password-reset/confirm", json({ token: "", new_password: "x" }), 422],
    ["fire without a secret (401)", "/api/v2/triggers/trg_1/fire", json({}), 401],
  ] as const)("%s", async (_name, path, init, status) => {
    const triggerRuns = {
      fire: async (_id: string, { presentedSecret: secret }: { presentedSecret: string | null }) => {
        throw secret ? notFound("Trigger") : unauthorized("Missing trigger secret.");
      },
    } as unknown as ApiDeps["triggerRuns"];
    const { app } = fakeApp({ triggerRuns });
    const res = await app.request(path, init as RequestInit);
    expect(res.status).toBe(status);
    for (const value of headersOf(res)) expect(value).toEqual(expect.any(String));
  });

  it("on a 413, counted against the caller's organization", async () => {
    const { app } = fakeApp({}, { MAX_REQUEST_BODY_MB: "1" });
    const res = await app.request("/api/v2/keys", as("viewer", json({ name: "x".repeat(1_200_000) })));
    expect(res.status).toBe(413);
    expect(res.headers.get("ratelimit")).toMatch(/^"all-minute";r=119;/);
    expect(res.headers.get("connection")).toBe("close");
  });

  it("counts an authenticated request once, against its organization, also when its windows are unlimited", async () => {
    const envs: Record<string, string>[] = [{}, { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_RATE_LIMIT_PER_DAY: "0" }];
    for (const env of envs) {
      const { app, counters } = fakeApp({ credits: { balance: async () => ({}) } as never }, env);
      expect((await app.request("/api/v2/credits/balance", as("viewer"))).status).toBe(200);
      expect([...counters.counts.keys()].map((k) => k.split("|")[0])).toEqual(["ORG#org_test", "ORG#org_test"]);
    }
  });

  it("never on health, which is never counted", async () => {
    const { app, counters } = fakeApp();
    const res = await app.request("/api/v2/health");
    expect(res.status).toBe(200);
    expect(headersOf(res)).toEqual([null, null, null, null, null]);
    expect(counters.counts.size).toBe(0);
  });

  it("answers 429 once a client IP's anonymous window is spent, on unauthenticated requests too", async () => {
    const { app } = fakeApp({}, { INSTANCE_RATE_LIMIT_PER_MINUTE: "2" });
    expect((await app.request("/api/v2/keys")).status).toBe(401);
    expect((await app.request("/api/v2/keys")).status).toBe(401);
    const refused = await app.request("/api/v2/keys");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: "rate_limit_exceeded", limit: 2, remaining: 0 });
    expect(refused.headers.get("retry-after")).toEqual(expect.any(String));
  });
});

describe("methods and media types", () => {
  it("answers 405 with Allow for a known path and a method it does not take", async () => {
    const { app } = fakeApp();
    const res = await app.request("/api/v2/solvers/compare", as("viewer", { method: "DELETE" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(await res.json()).toMatchObject({ error_code: "method_not_allowed", status_code: 405 });
    const param = await app.request("/api/v2/keys/key_123", { method: "GET" });
    expect(param.status).toBe(405);
    expect(param.headers.get("allow")).toBe("DELETE");
  });

  it("answers 415 when a JSON route is sent another content type", async () => {
    const { app, deps } = fakeApp();
    Object.assign(deps, {
      credits: new Credits({ config: deps.config, identity: {} as never, notifications: {} as never, ledger: {} as never, clock: deps.clock }),
    });
    const res = await app.request("/api/v2/credits/calculator", { method: "POST", headers: { "content-type": "text/plain" }, body: "num_variables=3" });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error_code: "unsupported_media_type", status_code: 415 });
    const ok = await app.request("/api/v2/credits/calculator", {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ num_variables: 3, num_constraints: 1 }),
    });
    expect(ok.status).toBe(200);
  });
});

describe("request ids", () => {
  it("keeps a client's X-Request-Id when it is plain and short, else makes a fresh one", async () => {
    const { app } = fakeApp();
    const kept = await app.request("/api/v2/health", { headers: { "x-request-id": "client-id_42=" } });
    expect(kept.headers.get("x-request-id")).toBe("client-id_42=");
    for (const bad of ["has space", "new\\nline", "ünïcode", "x".repeat(256), "<script>"]) {
      const res = await app.request("/api/v2/health", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    }
  });
});

describe("roles come from the declaration", () => {
  it("refuses a viewer's solve and a solver's credit grant with 403 before the service is reached", async () => {
    const { app } = fakeApp();
    expect((await app.request("/api/v2/solve/async", as("viewer", json({ problem: PROBLEM })))).status).toBe(403);
    expect((await app.request("/api/v2/credits/grant", as("solver", json({ organization_id: "org_test", credits: 5 })))).status).toBe(403);
    expect((await app.request("/api/v2/workspaces", as("session-solver", json({ name: "w" })))).status).toBe(403);
  });
});

describe("credit grants are the instance operator's act", () => {
  it("refuses every organization role, owner included (403), and anything but the operator's token (401); the operator's grant reaches the service", async () => {
    const granted: unknown[] = [];
    const { app } = fakeApp({
      credits: {
        operatorGrant: async (orgId: string, credits: number, note?: string) => {
          granted.push({ orgId, credits, note });
          return { organization_id: orgId, credits_granted: credits, credits_remaining: credits };
        },
      } as unknown as ApiDeps["credits"],
    });
    const body = json({ organization_id: "org_test", credits: 100_000_000 });
    for (const role of ["viewer", "solver", "admin", "owner", "session-owner"]) {
      const res = await app.request("/api/v2/credits/grant", as(role, body));
      expect(res.status, role).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/operator/);
    }
    for (const token of ["not-a-token", "operator-token-", ""]) expect((await app.request("/api/v2/credits/grant", as(token, body))).status, token).toBe(401);
    expect((await app.request("/api/v2/credits/grant", { ...body })).status).toBe(401);
    expect(granted).toEqual([]);
    const ok = await app.request("/api/v2/credits/grant", as("operator-token", json({ organization_id: "org_test", credits: 5, note: "invoice 9" })));
    expect(ok.status).toBe(200);
    expect(granted).toEqual([{ orgId: "org_test", credits: 5, note: "invoice 9" }]);
  });
});
