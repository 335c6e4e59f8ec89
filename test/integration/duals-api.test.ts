import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { DUALS_MAX_LP } from "../support/models.js";

const LP = DUALS_MAX_LP;
const EXPECTED = { duals: { cover: -1.5, balance: 0.5, cap: 0 }, reduced_costs: { x: 0, y: 0, z: -1.5 } };
const close = (actual: Record<string, number>, expected: Record<string, number>) =>
  Object.entries(expected).every(([k, v]) => Math.abs((actual[k] ?? Number.NaN) - v) <= 1e-9);

describe.runIf(machineHas("cbc", "glpsol", "python_solvers"))("LP duals through the API", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } });
  });
  afterAll(() => stack?.stop());

  it("a plain solve of an LP answers with checked duals and reduced costs; a MILP's answer has none", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: LP, solver_name: "highs" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ solver_status: "optimal", duals_verified: true });
    expect(close(res.body.duals, EXPECTED.duals) && close(res.body.reduced_costs, EXPECTED.reduced_costs)).toBe(true);

    const milp = { ...LP, variables: LP.variables.map((v) => ({ ...v, type: "integer", ub: 10 })) };
    const integer = await stack.api.post("/api/v2/solve", { problem: milp, solver_name: "highs" });
    expect(integer.status, integer.text).toBe(200);
    expect(integer.body.solver_status).toBe("optimal");
    expect(integer.body.duals ?? null).toBeNull();
    expect(integer.body.duals_verified ?? null).toBeNull();
  }, 120_000);

  it("every row of a comparison carries the same duals, each verified", async () => {
    const solvers = ["scip", "highs", "cbc", "glpk", "jaos"];
    const res = await stack.api.post("/api/v2/solvers/compare", { problem: LP, solver_names: solvers });
    expect(res.status, res.text).toBeLessThan(300);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${res.body.id}`, isFinal, { timeoutMs: 120_000 });
    expect(done.results.map((r: { solver_name: string }) => r.solver_name).sort()).toEqual([...solvers].sort());
    for (const row of done.results) {
      expect(row, row.solver_name).toMatchObject({ solver_status: "optimal", duals_verified: true });
      expect(close(row.duals, EXPECTED.duals) && close(row.reduced_costs, EXPECTED.reduced_costs), row.solver_name).toBe(true);
    }
  }, 180_000);

  it("ranging on request: HiGHS gives each cost's and each active side's range of the optimal basis; other solvers say unsupported", async () => {
    // min x + 2y s.t. pair: x + y ≥ 2: x basic (its cost may go from 0 to 2), y at 0 (from 1 up); pair's side from 0 up.
    const problem = {
      variables: [{ name: "x" }, { name: "y" }],
      objective: {
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 2 },
        ],
      },
      constraints: [
        {
          name: "pair",
          lb: 2,
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 1 },
          ],
        },
      ],
    };
    const highs = await stack.api.post("/api/v2/solve", { problem, solver_name: "highs", settings: { ranging: true } });
    expect(highs.status, highs.text).toBe(200);
    expect(highs.body.ranging).toEqual({
      costs: { x: { down: 0, up: 2 }, y: { down: 1, up: null } },
      rhs: { pair: { down: 0, up: null } },
    });
    const glpk = await stack.api.post("/api/v2/solve", { problem, solver_name: "glpk", settings: { ranging: true } });
    expect(glpk.body).toMatchObject({ solver_status: "optimal", ranging: "unsupported" });
    const unasked = await stack.api.post("/api/v2/solve", { problem, solver_name: "highs" });
    expect(unasked.body.ranging ?? null).toBeNull();
  }, 120_000);
});
