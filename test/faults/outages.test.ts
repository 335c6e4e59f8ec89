import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type Emulators, startEmulators } from "../../bin/local/emulators.js";
import { FaultProxy } from "../support/fault-proxy.js";
import { machineHas } from "../support/machine.js";
import { BOX_LP } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * The broker or the table goes away and comes back. The stack talks to its emulators through proxies
 * the test cuts (connections refused and reset, as with a stopped emulator) and restores; the emulators
 * keep their state, so recovery is seen on the same records.
 */
describe.runIf(machineHas("cbc"))("faults: the queue or the table is unreachable", () => {
  let emulators: Emulators;
  let table: FaultProxy;
  let queue: FaultProxy;
  let stack: Stack;

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID ??= "local";
    process.env.AWS_SECRET_ACCESS_KEY ??= "local";
    emulators = await startEmulators();
    table = await FaultProxy.forEndpoint(emulators.dynamoEndpoint).start();
    queue = await FaultProxy.forEndpoint(emulators.sqsEndpoint).start();
    stack = await startTestStack({
      env: { AWS_ENDPOINT_URL: table.endpoint, AWS_ENDPOINT_URL_SQS: queue.endpoint, INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" },
    });
  });
  afterAll(async () => {
    await table?.restore();
    await queue?.restore();
    await stack?.stop();
    await table?.stop();
    await queue?.stop();
    await emulators?.stop();
  });

  it("queue stopped: an async solve and a comparison answer 503 enqueue_failed and their records say so; once it is back, launches run", async () => {
    await queue.cut();
    onTestFinished(() => queue.restore());
    const solve = await stack.api.post("/api/v2/solve/async", { problem: BOX_LP, solver_name: "cbc" });
    expect(solve.status, solve.text).toBe(503);
    expect(solve.body.error_code).toBe("enqueue_failed");
    const compare = await stack.api.post("/api/v2/solvers/compare", { problem: BOX_LP, solver_names: ["cbc"] });
    expect(compare.status, compare.text).toBe(503);
    expect(compare.body.error_code).toBe("enqueue_failed");

    // The records exist and say why they never ran.
    const [newest] = await stack.services.table.queryPrefix<{ status: string; error_message: string }>(`ORG#${stack.bootstrap.organizationId}`, "EXE#", {
      newestFirst: true,
      limit: 1,
    });
    expect(newest).toMatchObject({ status: "failed", error_message: expect.stringMatching(/^enqueue_failed/) });
    const comparisons = await stack.api.get("/api/v2/solvers/compare?limit=5");
    const failedCompare = await stack.api.get(`/api/v2/solvers/compare/${comparisons.body.comparisons[0].id}`);
    expect(failedCompare.body).toMatchObject({ status: "failed", error_message: expect.stringMatching(/^enqueue_failed/) });
    expect(failedCompare.body.results[0]).toMatchObject({ status: "failed" });

    await queue.restore();
    const again = await stack.api.post("/api/v2/solve/async", { problem: BOX_LP, solver_name: "cbc" });
    expect(again.status, again.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/models/executions/${again.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: "completed", result: { solver_status: "optimal", objective_value: 10 } });
  }, 120_000);

  it("table stopped: requests answer 503 service_unavailable and /health/status reports the database down; once it is back, both recover", async () => {
    await table.cut();
    onTestFinished(() => table.restore());
    const balance = await stack.api.get("/api/v2/credits/balance");
    expect(balance.status, balance.text).toBe(503);
    expect(balance.body.error_code).toBe("service_unavailable");
    const health = await stack.api.as(null).get("/api/v2/health/status");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("down");
    expect(health.body.components.find((c: { name: string }) => c.name === "database")).toMatchObject({ status: "down" });

    await table.restore();
    expect((await stack.api.get("/api/v2/credits/balance")).status).toBe(200);
    const back = await stack.api.as(null).get("/api/v2/health/status");
    expect(back.body.components.find((c: { name: string }) => c.name === "database")).toMatchObject({ status: "healthy" });
    const solved = await stack.api.post("/api/v2/solve", { problem: BOX_LP, solver_name: "cbc" });
    expect(solved.status, solved.text).toBe(200);
    expect(solved.body.objective_value).toBe(10);
  }, 120_000);
});
