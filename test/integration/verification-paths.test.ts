import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explaining } from "../../solver-container/src/adapters/explain.js";
import { everythingTaken, LIAR_VERSION, lyingSolver } from "../fixtures/engines/lying-solver.js";
import { startInProcessWorker, toolkitOf } from "../support/in-process-worker.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually, FINAL_RUN_STATUSES, KNAPSACK_DATA, KNAPSACK_SOURCE } from "../support/triggers.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** The knapsack of test/support/triggers.ts, flat: taking everything (weight 14) breaks `fits` (capacity 5). */
const KNAPSACK_PROBLEM = ProblemSchema.parse({
  name: "knapsack",
  sense: "maximize",
  variables: ["a", "b", "c", "d"].map((i) => ({ name: `take[${i}]`, type: "binary" })),
  objective: { terms: ["a", "b", "c", "d"].map((i, k) => ({ var: `take[${i}]`, coef: [3, 4, 5, 6][k]! })) },
  constraints: [{ name: "fits", terms: ["a", "b", "c", "d"].map((i, k) => ({ var: `take[${i}]`, coef: [2, 3, 4, 5][k]! })), ub: 5 }],
});

/** Feasible (y = 1, x = 3), and so not infeasible whatever a solver says; its re-solves get the liar's trickle point. */
const BIG_M = ProblemSchema.parse({
  name: "big_m",
  variables: [
    { name: "x", lb: 0 },
    { name: "y", type: "binary" },
  ],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 10 },
    ],
  },
  constraints: [
    {
      name: "link",
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: -1e7 },
      ],
      ub: 0,
    },
    { name: "need", terms: [{ var: "x", coef: 1 }], lb: 3 },
  ],
});

const brokenFits = { kind: "constraint", name: "fits" };

/**
 * A wrong point injected into every path a result takes (a lying solver behind an in-process worker
 * that runs the production jobs), and caught each time by the verification gate: the plain and the
 * async solve, a comparison row, a matrix row, a trigger run, a stored model's execution, a pool member
 * and an explanation's re-solves. Before the gate, every one of these but the pool reported the wrong
 * answer as it came (the pool's members were already checked; its test keeps them so).
 */
describe("the verification gate on every path", () => {
  let stack: Stack;
  let worker: { stop(): Promise<void> };
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "0" } });
    // Every solver name reaches the liar (with the explanation wrapper every adapter has); only "jaos" is listed, so nothing cross-checks.
    const liar = explaining(lyingSolver, { nativeHighs: async () => null });
    const toolkit = toolkitOf(
      (_name, { problem, settings, ...opts }) =>
        liar.solve(problem, settings, { workDir: "/tmp", killGraceSeconds: opts.killGraceSeconds, signal: opts.signal }),
      [{ name: "jaos", available: true, version: LIAR_VERSION, detail: null }],
    );
    worker = startInProcessWorker(stack, toolkit);
  });
  afterAll(async () => {
    await worker?.stop();
    await stack?.stop();
  });

  /** A result the gate caught: verdict error naming the broken row, the liar's word and raw point kept. */
  const expectCaught = (result: Record<string, any>, where: Record<string, unknown> = brokenFits) => {
    expect(result.status, JSON.stringify(result.verification)).toBe("error");
    expect(result.solver_status).toBe("optimal");
    expect(result.verification).toMatchObject({ status: "violated", claimed_status: "optimal", where });
    expect(result.error_message).toContain('row "fits"');
    expect(result.solution).toEqual(everythingTaken(KNAPSACK_PROBLEM));
  };

  it("plain solve: 200 with status error, solver_status optimal, the point readable", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: KNAPSACK_PROBLEM, solver_name: "jaos" });
    expect(res.status, res.text).toBe(200);
    expectCaught(res.body);
    expect(res.body.objective_value).toBe(18);
  });

  it("async solve: the execution fails with the broken row, its result readable", async () => {
    const res = await stack.api.post("/api/v2/solve/async", { problem: KNAPSACK_PROBLEM, solver_name: "jaos" });
    expect(res.status, res.text).toBe(202);
    const exe = await pollUntil(stack.api, `/api/v2/models/executions/${res.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(exe.status).toBe("failed");
    expect(exe.error_message).toContain('row "fits"');
    expectCaught(exe.result);
  });

  it("comparison row: the row's verdict (solver_status) is error, what the solver claimed is in verification", async () => {
    const res = await stack.api.post("/api/v2/solvers/compare", { problem: KNAPSACK_PROBLEM, solver_names: ["jaos"] });
    expect(res.status, res.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${res.body.id}`, isFinal, { timeoutMs: 60_000 });
    const row = done.results[0];
    expect(row).toMatchObject({ status: "failed", solver_status: "error", verification: { status: "violated", claimed_status: "optimal", where: brokenFits } });
    expect(row.error_message).toContain('row "fits"');
    expect(done.agreement).toBeNull();
  });

  it("matrix row: the dataset's row fails the same way, the broken row named by family and index", async () => {
    const project = await stack.api.post("/api/v2/projects", { name: "knapsack", jmodel_source: KNAPSACK_SOURCE });
    expect(project.status, project.text).toBe(201);
    const dataset = await stack.api.post(`/api/v2/projects/${project.body.id}/datasets`, { name: "d", data: KNAPSACK_DATA });
    expect(dataset.status, dataset.text).toBe(201);
    const launched = await stack.api.post("/api/v2/solvers/compare/batches", {
      project_id: project.body.id,
      dataset_ids: [dataset.body.id],
      solver_names: ["jaos"],
    });
    expect(launched.status, launched.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/batches/${launched.body.batch_id}`, isFinal, { timeoutMs: 60_000 });
    const row = done.rows[0].results[0];
    expect(row).toMatchObject({ solver_status: "error", verification: { status: "violated", where: { ...brokenFits, family: "fits", index: [] } } });
    expect(done.rows[0].numerics).toMatchObject({ matrix_range: { min: 2, max: 5 } });
  });

  it("trigger run: the run fails, its execution's result names the broken row", async () => {
    const doc = await createKnapsackDocument(stack.api, "jaos");
    const trigger = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    const queued = await stack.api.post(`/api/v2/triggers/${trigger.id}/run`);
    expect(queued.status, queued.text).toBe(202);
    const run = await eventually(
      async () => (await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${queued.body.run_id}`)).body,
      (r) => FINAL_RUN_STATUSES.includes(r.status),
    );
    expect(run.status, JSON.stringify(run)).toBe("failed");
    const exe = await stack.api.get(`/api/v2/models/executions/${run.execution_id}`);
    expectCaught(exe.body.result, { ...brokenFits, family: "fits", index: [] });
  });

  it("stored model's execution (POST /models/{document}/execute): failed, the broken row named", async () => {
    const doc = await createKnapsackDocument(stack.api, "jaos");
    const run = await stack.api.post(`/api/v2/models/${doc.documentId}/execute`, {});
    expect(run.status, run.text).toBe(202);
    const exe = await pollUntil(stack.api, `/api/v2/models/executions/${run.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(exe.status).toBe("failed");
    expectCaught(exe.result, { ...brokenFits, family: "fits", index: [] });
  });

  it("pool member: the member that breaks the model is left out of `solutions`", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: KNAPSACK_PROBLEM, solver_name: "jaos", settings: { solution_pool_size: 5 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.verification.status).toBe("verified");
    expect(res.body.solutions).toEqual([{ objective_value: 0, solution: { "take[a]": 0, "take[b]": 0, "take[c]": 0, "take[d]": 0 } }]);
  });

  it("explanation re-solves: a trickle point does not count as feasible, so nothing is called irreducible on its word", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: BIG_M, solver_name: "jaos", settings: { explain_infeasibility: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.solver_status).toBe("infeasible");
    expect(res.body.verification).toMatchObject({ status: "not_checked", claimed_status: "infeasible" });
    // Before the gate the re-solves' point passed the checker: every member "needed", irreducible: true, verified: false.
    expect(res.body.infeasibility).toMatchObject({ method: "deletion_filter", irreducible: false, verified: null });
  });
});
