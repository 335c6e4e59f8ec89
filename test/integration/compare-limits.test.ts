import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { KNAPSACK, knapsackData, knapsackOptimum, MARKET_SPLIT, marketSplitData } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { invite } from "../support/accounts.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const ready = machineHas("cbc", "glpsol", "python_solvers");
const today = () => Date.now();

describe.runIf(ready)("comparison cancel, quota and tool calling", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_MAX_DAILY_SOLVES: "5", LOCAL_WORKERS: "2" } });
  });
  afterAll(() => stack?.stop());

  const problem = (n: number) => ({
    name: `knapsack-${n}`,
    sense: "maximize",
    variables: Array.from({ length: n }, (_, i) => ({ name: `x${i}`, type: "binary" })),
    objective: { terms: Array.from({ length: n }, (_, i) => ({ var: `x${i}`, coef: 3 + (i % 5) })) },
    constraints: [{ name: "cap", terms: Array.from({ length: n }, (_, i) => ({ var: `x${i}`, coef: 2 + (i % 3) })), ub: n }],
  });

  it("with a daily limit of 5: a 3-solver comparison succeeds, a second gets 403 with 2 slots spent and nothing stored", async () => {
    const first = await stack.api.post("/api/v2/solvers/compare", { problem: problem(8), solver_names: ["cbc", "glpk", "scip"] });
    expect(first.status, first.text).toBe(202);
    const countBefore = (await stack.api.get("/api/v2/solvers/compare")).body.total;
    const second = await stack.api.post("/api/v2/solvers/compare", { problem: problem(8), solver_names: ["cbc", "glpk", "scip"] });
    expect(second.status).toBe(403);
    expect(second.body).toMatchObject({ error_code: "daily_solve_quota_exceeded", status_code: 403, needed: 3, spent: 2, limit: 5 });
    expect(await stack.services.quota.usedToday(stack.bootstrap.organizationId, today())).toBe(5);
    expect((await stack.api.get("/api/v2/solvers/compare")).body.total).toBe(countBefore);
    await pollUntil(stack.api, `/api/v2/solvers/compare/${first.body.id}`, isFinal);
  });
});

describe.runIf(ready)("cancel and the tool-calling interface", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "2" } });
  });
  afterAll(() => stack?.stop());

  it("cancel while the first of three solvers runs a 20 s MILP: the solve in flight finishes, the others end cancelled, no quota comes back", async () => {
    const p = await stack.api.post("/api/v2/projects", { name: "hard", jmodel_source: MARKET_SPLIT, default_data: marketSplitData(5, 50, 7) });
    const launched = await stack.api.post("/api/v2/solvers/compare", {
      project_id: p.body.id,
      solver_names: ["glpk", "cbc", "scip"],
      settings: { time_limit_seconds: 20 },
    });
    expect(launched.status, launched.text).toBe(202);
    expect(launched.body.source_kind).toBe("model_project");
    expect(launched.body.model_project_version_id).toBeNull();
    const used = await stack.services.quota.usedToday(stack.bootstrap.organizationId, today());
    await pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, (b) => b.results[0].status === "running", { timeoutMs: 60_000, everyMs: 50 });

    const cancelled = await stack.api.post(`/api/v2/solvers/compare/${launched.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.results.map((r: { status: string }) => r.status)).toEqual(["running", "cancelled", "cancelled"]);

    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, isFinal, { timeoutMs: 90_000 });
    expect(done.status).toBe("cancelled");
    expect(done.results[0]).toMatchObject({ status: "completed", solver_status: "time_limit" });
    expect(done.results[0].objective_value).toEqual(expect.any(Number));
    expect(done.results[1]).toMatchObject({ status: "cancelled", solver_status: null, execution_id: null });
    expect(done.results[2]).toMatchObject({ status: "cancelled", solver_status: null, execution_id: null });
    expect(await stack.services.quota.usedToday(stack.bootstrap.organizationId, today())).toBe(used);

    const again = await stack.api.post(`/api/v2/solvers/compare/${launched.body.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done);
  });

  it("exposes the four comparison tools over MCP to the SDK's own client", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/v2/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${stack.apiKey}` } },
    });
    const client = new Client({ name: "incumbent-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual([
        "compare_solvers",
        "compare_solvers_on_datasets",
        "get_solver_comparison",
        "get_solver_comparison_matrix",
      ]);
      const compareTool = tools.tools.find((t) => t.name === "compare_solvers")!;
      expect(Object.keys(compareTool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["solver_names", "problem", "project_id", "settings"]));

      const data = knapsackData(10, 4);
      const started = await client.callTool({
        name: "compare_solvers",
        arguments: {
          solver_names: ["cbc", "highs"],
          problem: {
            name: "mcp-knapsack",
            sense: "maximize",
            variables: data.ITEMS.map((i) => ({ name: i, type: "binary" })),
            objective: { terms: data.ITEMS.map((i) => ({ var: i, coef: data.value[i] })) },
            constraints: [{ name: "cap", terms: data.ITEMS.map((i) => ({ var: i, coef: data.weight[i] })), ub: data.capacity }],
          },
        },
      });
      expect(started.isError).toBeFalsy();
      const id = (started.structuredContent as { id: string }).id;
      let detail: { status: string; results: { objective_value: number }[] } | null = null;
      for (let i = 0; i < 600; i++) {
        const got = await client.callTool({ name: "get_solver_comparison", arguments: { comparison_id: id } });
        detail = got.structuredContent as typeof detail;
        if (isFinal(detail)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(detail!.status).toBe("completed");
      expect(detail!.results.map((r) => r.objective_value)).toEqual([knapsackOptimum(data), knapsackOptimum(data)]);

      const p = await stack.api.post("/api/v2/projects", { name: "mcp matrix", jmodel_source: KNAPSACK });
      const d = await stack.api.post(`/api/v2/projects/${p.body.id}/datasets`, { name: "d", data });
      const matrix = await client.callTool({
        name: "compare_solvers_on_datasets",
        arguments: { project_id: p.body.id, dataset_ids: [d.body.id], solver_names: ["cbc"] },
      });
      const batchId = (matrix.structuredContent as { batch_id: string }).batch_id;
      const read = await client.callTool({ name: "get_solver_comparison_matrix", arguments: { batch_id: batchId } });
      expect((read.structuredContent as { batch_id: string }).batch_id).toBe(batchId);

      const missing = await client.callTool({ name: "get_solver_comparison", arguments: { comparison_id: "cmp_nope" } });
      expect(missing.isError).toBe(true);
      expect(JSON.parse((missing.content as { text: string }[])[0]!.text).error_code).toBe("not_found");
    } finally {
      await client.close();
    }
  });

  it("refuses a viewer's tools/call compare_solvers as REST refuses it (403), and charges nothing: credits and quota unchanged", async () => {
    const viewer = await invite(stack.api, stack.mail, { email: "mcp-viewer@example.test", password: "viewer password", role: "viewer" });
    expect(viewer.status).toBe(201);
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email: "mcp-viewer@example.test", password: "viewer password" });
    const balance = async () => (await stack.api.get("/api/v2/credits/balance")).body.credits_remaining as number;
    const [creditsBefore, quotaBefore] = [await balance(), await stack.services.quota.usedToday(stack.bootstrap.organizationId, today())];
    const comparisonsBefore = (await stack.api.get("/api/v2/solvers/compare")).body.total as number;

    const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/v2/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${login.body.access_token}` } },
    });
    const client = new Client({ name: "incumbent-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const refused = await client.callTool({
        name: "compare_solvers",
        arguments: { solver_names: ["cbc"], problem: { name: "refused", variables: [{ name: "x", ub: 1 }] } },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({ error_code: "forbidden", status_code: 403 });
      // Reading stays open to a viewer, as over REST.
      const list = await client.callTool({ name: "get_solver_comparison", arguments: { comparison_id: "cmp_nope" } });
      expect(JSON.parse((list.content as { text: string }[])[0]!.text).error_code).toBe("not_found");
    } finally {
      await client.close();
    }
    expect(await balance()).toBe(creditsBefore);
    expect(await stack.services.quota.usedToday(stack.bootstrap.organizationId, today())).toBe(quotaBefore);
    expect((await stack.api.get("/api/v2/solvers/compare")).body.total).toBe(comparisonsBefore);
  });

  it("refuses the MCP endpoint without credentials", async () => {
    const res = await stack.api.as(null).post("/api/v2/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
  });
});
