import { describe, expect, it, vi } from "vitest";
import type { ApiDeps } from "../../../../../functions/api/http/context.js";
import { as, fakeApp } from "../../../../support/fake-api.js";

/** Issue 25: a JSON-RPC batch of tool calls counted once against the rate limits. */
const PROBLEM = { name: "p", variables: [{ name: "x", ub: 1 }], objective: { terms: [{ var: "x", coef: 1 }] }, constraints: [] };
const call = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "compare_solvers", arguments: { solver_names: ["highs"], problem: PROBLEM } },
});
const post = (body: unknown): RequestInit =>
  as("solver", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });

function comparisons() {
  const launch = vi.fn(async () => ({ id: "cmp_1" }));
  return { launch, service: { launch, get: vi.fn(), launchMatrix: vi.fn(), getMatrix: vi.fn() } as unknown as ApiDeps["comparisons"] };
}

const orgCount = (counts: Map<string, number>) => Math.max(0, ...[...counts].filter(([k]) => k.startsWith("ORG#org_test|all-minute|")).map(([, v]) => v));

describe("MCP tool calls each count against the rate limits", () => {
  it("counts a batch of 3 tools/call as 3 requests", async () => {
    const c = comparisons();
    const { app, counters } = fakeApp({ comparisons: c.service });
    const res = await app.request("/api/v2/mcp", post([call(1), call(2), call(3)]));
    expect(res.status).toBe(200);
    expect(c.launch).toHaveBeenCalledTimes(3);
    expect(orgCount(counters.counts)).toBe(3);
  });

  it("refuses a batch of 10 compare_solvers whole (429) when the window has room for fewer, before any runs", async () => {
    const c = comparisons();
    const { app, counters } = fakeApp({ comparisons: c.service }, { INSTANCE_RATE_LIMIT_PER_MINUTE: "5" });
    const res = await app.request("/api/v2/mcp", post(Array.from({ length: 10 }, (_, i) => call(i + 1))));
    expect(res.status).toBe(429);
    // The window had 4 left after admission counted the request: the 9 others did not fit, and nothing was taken.
    expect(await res.json()).toMatchObject({ error: "rate_limit_exceeded", limit: 5, remaining: 4 });
    expect(c.launch).not.toHaveBeenCalled();
    // The request itself was counted by admission; the refused nine were not.
    expect(orgCount(counters.counts)).toBe(1);
  });

  it("counts a single call once, and leaves malformed JSON to the transport's JSON-RPC parse error", async () => {
    const c = comparisons();
    const { app, counters } = fakeApp({ comparisons: c.service });
    expect((await app.request("/api/v2/mcp", post(call(1)))).status).toBe(200);
    expect(orgCount(counters.counts)).toBe(1);
    const bad = await app.request("/api/v2/mcp", { ...post(null), body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
  });

  it("measures the body before parsing it, as every JSON route does (422 past 32 levels)", async () => {
    const c = comparisons();
    const { app } = fakeApp({ comparisons: c.service });
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compare_solvers","arguments":${"[".repeat(40)}${"]".repeat(40)}}}`;
    const res = await app.request("/api/v2/mcp", { ...post(null), body: deep });
    expect(res.status).toBe(422);
    expect(c.launch).not.toHaveBeenCalled();
  });
});
