import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { KNAPSACK, knapsackData, knapsackOptimum, MARKET_SPLIT, marketSplitData } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const ready = machineHas("cbc", "glpsol", "python_solvers");

describe.runIf(ready)("comparison matrix: datasets × solvers", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "2" } });
  });
  afterAll(() => stack?.stop());

  async function project(source: string, datasets: Record<string, unknown>[]) {
    const p = await stack.api.post("/api/v2/projects", { name: "matrix project", jmodel_source: source });
    expect(p.status, p.text).toBe(201);
    const ids: string[] = [];
    for (const [i, data] of datasets.entries()) {
      const d = await stack.api.post(`/api/v2/projects/${p.body.id}/datasets`, { name: `dataset ${i + 1}`, data });
      expect(d.status, d.text).toBe(201);
      ids.push(d.body.id);
    }
    return { projectId: p.body.id as string, datasetIds: ids };
  }

  it("costs datasets × solvers that can run, fills every cell, and fails only the row whose dataset misses a parameter", async () => {
    const data = [knapsackData(12, 1), knapsackData(14, 2), knapsackData(16, 3)];
    const { capacity: _dropped, ...missingCapacity } = data[1]!;
    const { projectId, datasetIds } = await project(KNAPSACK, [data[0]!, missingCapacity, data[2]!]);
    const solvers = ["scip", "highs", "cbc", "glpk", "jaos"];
    const launched = await stack.api.post("/api/v2/solvers/compare/batches", { project_id: projectId, dataset_ids: datasetIds, solver_names: solvers });
    expect(launched.status, launched.text).toBe(202);
    const available = new Set(stack.solvers.filter((s) => s.available).map((s) => s.name));
    const runnable = solvers.filter((s) => available.has(s)).length;
    expect(launched.body.quota_cost).toBe(3 * runnable);
    if (runnable === 5) expect(launched.body.quota_cost).toBe(15);
    expect(launched.body.status).toBe("pending");
    expect(launched.body.rows).toHaveLength(3);
    expect(launched.body.rows[0].problem_class).toBe("MILP");
    expect(launched.body.rows[1].problem_class).toBeNull(); // compiled by its own worker
    expect(launched.body.rows[0].results.map((r: { solver_name: string }) => r.solver_name)).toEqual(solvers);

    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/batches/${launched.body.batch_id}`, isFinal, { timeoutMs: 240_000 });
    expect(done.status).toBe("completed");
    const [first, bad, third] = done.rows;
    expect(bad.status).toBe("failed");
    expect(bad.error_message).toMatch(/capacity/);
    for (const [row, d] of [
      [first, data[0]!],
      [third, data[2]!],
    ] as const) {
      expect(row.status).toBe("completed");
      expect(row.problem_class).toBe("MILP");
      for (const cell of row.results.filter((r: { solver_status: string }) => r.solver_status !== "unsupported")) {
        expect(cell.solver_status, cell.solver_name).toBe("optimal");
        expect(cell.objective_value).toBeCloseTo(knapsackOptimum(d), 6);
      }
      // Each row is a comparison with its own agreement block.
      const cmp = await stack.api.get(`/api/v2/solvers/compare/${row.comparison_id}`);
      expect(cmp.body.batch_id).toBe(launched.body.batch_id);
      expect(cmp.body.agreement.objectives_agree).toBe(true);
    }

    const list = await stack.api.get(`/api/v2/solvers/compare/batches?project_id=${projectId}`);
    expect(list.body.total).toBe(1);
    expect(list.body.batches[0]).toMatchObject({ batch_id: launched.body.batch_id, status: "completed", dataset_count: 3, solver_names: solvers });
  });

  it("answers 422 dataset_did_not_compile with the line and column when the first dataset does not fit the model", async () => {
    const bad = { ...knapsackData(5, 9), weight: "heavy" };
    const { projectId, datasetIds } = await project(KNAPSACK, [bad, knapsackData(5, 10)]);
    const before = await stack.services.quota.usedToday(stack.bootstrap.organizationId, Date.now());
    const res = await stack.api.post("/api/v2/solvers/compare/batches", { project_id: projectId, dataset_ids: datasetIds, solver_names: ["cbc"] });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe("dataset_did_not_compile");
    expect(res.body.position).toEqual({ line: expect.any(Number), column: expect.any(Number) });
    expect(res.body.position.line).toBe(KNAPSACK.split("\n").findIndex((l) => l.startsWith("param weight")) + 1);
    expect(await stack.services.quota.usedToday(stack.bootstrap.organizationId, Date.now())).toBe(before);
  });

  it("answers 422 project_has_no_jmodel_source for a project holding a flat problem", async () => {
    const p = await stack.api.post("/api/v2/projects", { name: "flat", problem: { variables: [{ name: "x", ub: 1 }] } });
    const d = await stack.api.post(`/api/v2/projects/${p.body.id}/datasets`, { name: "d", data: {} });
    const res = await stack.api.post("/api/v2/solvers/compare/batches", { project_id: p.body.id, dataset_ids: [d.body.id], solver_names: ["cbc"] });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe("project_has_no_jmodel_source");
  });

  it("runs rows in parallel on two workers: rows of a 4-row matrix run at the same time", async () => {
    // Market split rows that no solver finishes within the 2 s limit: each row takes about 2 s.
    const datasets = [1, 2, 3, 4].map((seed) => marketSplitData(4, 40, seed));
    const { projectId, datasetIds } = await project(MARKET_SPLIT, datasets);
    const launched = await stack.api.post("/api/v2/solvers/compare/batches", {
      project_id: projectId,
      dataset_ids: datasetIds,
      solver_names: ["glpk"],
      settings: { time_limit_seconds: 2 },
    });
    expect(launched.status, launched.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/batches/${launched.body.batch_id}`, isFinal, { timeoutMs: 240_000, everyMs: 50 });
    const spans: [number, number][] = await Promise.all(
      done.rows.map(async (r: { comparison_id: string }) => {
        const c = (await stack.api.get(`/api/v2/solvers/compare/${r.comparison_id}`)).body;
        return [Date.parse(c.started_at), Date.parse(c.completed_at)];
      }),
    );
    for (const r of done.rows) expect(r.results[0].solver_status).toBe("time_limit");
    // Parallel, told by order rather than speed: some row started before another had ended. (One
    // worker would run them one after another, each starting after the one before it ended.)
    const overlapping = spans.flatMap(([s1, e1], i) => spans.filter(([s2], j) => j !== i && s2 >= s1 && s2 < e1)).length;
    expect(overlapping, `rows ${JSON.stringify(spans)}`).toBeGreaterThan(0);
  }, 300_000);
});
