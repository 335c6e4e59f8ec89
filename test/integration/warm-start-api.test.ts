import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually, FINAL_RUN_STATUSES } from "../support/triggers.js";

/** MIP starts over HTTP on the local stack: settings.initial_solution on a solve, and a trigger's warm_start "previous_run". */
const run = machineHas("cbc", "glpsol", "python_solvers");

/** max 3x + 2y + 1, 2x + 3y ≤ 11, x ∈ {0..10}, y binary: optimum 16 at x = 5, y = 0. */
const SMALL_MILP = {
  name: "small milp",
  sense: "maximize",
  variables: [
    { name: "x", type: "integer", ub: 10 },
    { name: "y", type: "binary" },
  ],
  objective: {
    constant: 1,
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "cap",
      terms: [
        { var: "x", coef: 2 },
        { var: "y", coef: 3 },
      ],
      ub: 11,
    },
  ],
};

describe.runIf(run)("MIP starts through the API", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: "1000" } });
  }, 120_000);
  afterAll(() => stack?.stop());

  const solve = (solver: string, start: Record<string, number>) =>
    stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: solver, settings: { time_limit_seconds: 20, initial_solution: start } });

  it.each(["highs", "scip", "cbc"])("%s: the optimum as the start is accepted, with its objective, and the same optimum comes back", async (solver) => {
    const res = await solve(solver, { x: 5, y: 0 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", objective_value: 16, warm_start: { accepted: true, objective_of_start: 16 } });
  });

  it("glpk ignores the start and says so; a solve without a start has no warm_start", async () => {
    const res = await solve("glpk", { x: 5, y: 0 });
    expect(res.body).toMatchObject({ status: "optimal", warm_start: { accepted: false, objective_of_start: 16, note: "ignored: glpk takes no MIP start" } });
    const plain = await stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: "highs" });
    expect(plain.body.warm_start).toBeUndefined();
  });

  it("an infeasible start is still given to SCIP; the result says it was infeasible and gives no objective", async () => {
    const res = await solve("scip", { x: 6, y: 1 });
    expect(res.body.status).toBe("optimal");
    expect(res.body.warm_start).toMatchObject({ objective_of_start: null, note: expect.stringMatching(/infeasible: constraint "cap"/) });
  });

  it("refuses a start naming variables the problem has not, naming them, and charges nothing", async () => {
    const res = await solve("highs", { x: 5, nope: 1 });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('\\"nope\\"');
  });

  it("an LP's basis from one HiGHS result starts the next solve: accepted, the same optimum", async () => {
    const lp = { ...SMALL_MILP, variables: SMALL_MILP.variables.map((v) => ({ ...v, type: "continuous" })) };
    const first = await stack.api.post("/api/v2/solve", { problem: lp, solver_name: "highs" });
    expect(first.body.basis).toEqual({ columns: { x: expect.any(String), y: expect.any(String) }, rows: { cap: expect.any(String) } });
    const second = await stack.api.post("/api/v2/solve", { problem: lp, solver_name: "highs", settings: { initial_basis: first.body.basis } });
    expect(second.body).toMatchObject({
      status: "optimal",
      objective_value: first.body.objective_value,
      warm_start: { accepted: true, objective_of_start: null },
    });
    const unknown = await stack.api.post("/api/v2/solve", {
      problem: lp,
      solver_name: "highs",
      settings: { initial_basis: { columns: { q: "basic" }, rows: {} } },
    });
    expect(unknown.status).toBe(422);
  });

  it('a trigger with warm_start "previous_run": the second run starts from the first run\'s solution, and takes it', async () => {
    const doc = await createKnapsackDocument(stack.api, "highs");
    const t = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [{ name: "capacity", type: "number", required: false, default: 5 }],
      warm_start: "previous_run",
    });
    expect(t.body.warm_start).toBe("previous_run");
    const fireAndWait = async (capacity: number) => {
      const fired = await stack.api.as(null).post(`/api/v2/triggers/${t.id}/fire`, { override_data: { capacity } }, { authorization: `Bearer ${t.secret}` });
      expect(fired.status, fired.text).toBe(202);
      const runId = fired.body.run_id as string;
      return eventually(
        async () => (await stack.api.get(`/api/v2/triggers/${t.id}/runs/${runId}`)).body,
        (r) => FINAL_RUN_STATUSES.includes(r.status),
        { timeoutMs: 60_000 },
      );
    };
    const first = await fireAndWait(5);
    expect(first.status).toBe("completed");
    expect(first.result_data.warm_start).toBeUndefined();
    // The same capacity: the previous optimum is a feasible start worth the optimum.
    const second = await fireAndWait(5);
    expect(second.status).toBe("completed");
    expect(second.result_data).toMatchObject({ objective_value: 7, warm_start: { accepted: true, objective_of_start: 7 } });
    // Turned off: cold again.
    const off = await stack.api.patch(`/api/v2/triggers/${t.id}`, { warm_start: null });
    expect(off.body.warm_start).toBeNull();
    expect((await fireAndWait(7)).result_data.warm_start).toBeUndefined();
  });
});
