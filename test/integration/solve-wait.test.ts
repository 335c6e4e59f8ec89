import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { contractOf } from "../support/contract.js";
import { marketSplitProblem } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

/**
 * The plain solve waits a bounded time (SOLVE_WAIT_SECONDS) for its answer; past it, 503 with the
 * advice to use the async endpoint, and the solve goes on under the execution it names.
 */
describe.runIf(machineHas("glpsol"))("plain solve's bounded wait", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", SOLVE_WAIT_SECONDS: "1", LOCAL_WORKERS: "1" } });
    // The test client reads and compiles the OpenAPI contract on its first request (seconds on a loaded
    // machine): that is the harness's time, not the wait's, so it is paid here.
    await contractOf(stack.url);
    await stack.api.post("/api/v2/solve", { problem: marketSplitProblem(4, 40, 3), solver_name: "no-such-solver" });
  });
  afterAll(() => stack?.stop());

  it("answers 503 solver_busy with the execution to poll when the answer takes longer than the bound", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: marketSplitProblem(4, 40, 3), solver_name: "glpk", settings: { time_limit_seconds: 10 } });
    expect(res.status, res.text).toBe(503);
    expect(res.body).toMatchObject({ error_code: "solver_busy", status_code: 503, execution_id: expect.stringMatching(/^exe_/) });
    expect(res.body.detail).toMatch(/\/api\/v2\/solve\/async/);
    // A 503 before the solve's end: the answer came from the 1 s bound, not from the solve (its 10 s
    // limit, which the execution below ends at).
    const later = await pollUntil(stack.api, `/api/v2/models/executions/${res.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(later).toMatchObject({ status: "completed", result: { solver_status: "time_limit", objective_value: expect.any(Number) } });
  });
});
