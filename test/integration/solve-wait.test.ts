import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { marketSplitData } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/stack.js";

/** A market-split instance as a canonical problem (hard enough that glpsol uses its whole time limit). */
function marketSplit(rows: number, items: number, seed: number) {
  const data = marketSplitData(rows, items, seed) as { ROWS: string[]; ITEMS: string[]; a: Record<string, Record<string, number>>; d: Record<string, number> };
  return {
    name: "market-split",
    variables: [...data.ITEMS.map((j) => ({ name: `x_${j}`, type: "binary" })), ...data.ROWS.flatMap((r) => [{ name: `over_${r}` }, { name: `under_${r}` }])],
    objective: {
      terms: data.ROWS.flatMap((r) => [
        { var: `over_${r}`, coef: 1 },
        { var: `under_${r}`, coef: 1 },
      ]),
    },
    constraints: data.ROWS.map((r) => ({
      name: `split_${r}`,
      terms: [...data.ITEMS.map((j) => ({ var: `x_${j}`, coef: data.a[r]![j]! })), { var: `over_${r}`, coef: -1 }, { var: `under_${r}`, coef: 1 }],
      lb: data.d[r]!,
      ub: data.d[r]!,
    })),
  };
}

/**
 * The plain solve waits a bounded time (SOLVE_WAIT_SECONDS) for its answer; past it, 503 with the
 * advice to use the async endpoint, and the solve goes on under the execution it names.
 */
describe.runIf(machineHas("glpsol"))("plain solve's bounded wait", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", SOLVE_WAIT_SECONDS: "1", LOCAL_MAX_WORKERS: "1" } });
  });
  afterAll(() => stack?.stop());

  it("answers 503 solver_busy with the execution to poll when the answer takes longer than the bound", async () => {
    const started = Date.now();
    const res = await stack.api.post("/api/v2/solve", { problem: marketSplit(4, 40, 3), solver_name: "glpk", settings: { time_limit_seconds: 4 } });
    expect(res.status, res.text).toBe(503);
    expect(res.body).toMatchObject({ error_code: "solver_busy", status_code: 503, execution_id: expect.stringMatching(/^exe_/) });
    expect(res.body.detail).toMatch(/\/api\/v2\/solve\/async/);
    expect(Date.now() - started).toBeLessThan(3500);
    const later = await pollUntil(stack.api, `/api/v2/models/executions/${res.body.execution_id}`, isFinal, 60_000);
    expect(later).toMatchObject({ status: "completed", result: { solver_status: "time_limit", objective_value: expect.any(Number) } });
  });
});
