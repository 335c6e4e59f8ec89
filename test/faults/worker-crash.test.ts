import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionKey } from "../../functions/core/executions/store.js";
import { machineHas } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { eventually } from "../support/triggers.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const LEASE_SECONDS = 2;
const SWEEP_SECONDS = 1;

/**
 * A worker SIGKILLed mid-solve: nobody renews its lease, and the sweeper (on its schedule) fails the
 * execution within one interval after the lease lapsed; the fleet replaces the worker, which takes the
 * next job. (A trigger run's worker killed: test/integration/triggers-sweeper.test.ts.)
 */
describe.runIf(machineHas("cbc", "glpsol"))("faults: a worker killed mid-solve", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
        LOCAL_WORKERS: "1",
        JOB_LEASE_SECONDS: String(LEASE_SECONDS),
        SWEEP_INTERVAL_SECONDS: String(SWEEP_SECONDS),
      },
    });
  });
  afterAll(() => stack?.stop());

  it("the sweeper fails the execution after its lease lapsed, and the replacement worker solves the next job", async () => {
    const launched = await stack.api.post("/api/v2/solve/async", {
      problem: marketSplitProblem(4, 40, 3),
      solver_name: "cbc",
      settings: { time_limit_seconds: 30 },
    });
    expect(launched.status, launched.text).toBe(202);
    const id = launched.body.execution_id as string;
    const key = executionKey(stack.bootstrap.organizationId, id);
    const held = await eventually(
      () => stack.services.table.get<{ status: string; lease_owner?: string }>(key.pk, key.sk),
      (r) => r?.status === "running" && r.lease_owner !== undefined,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    await new Promise((r) => setTimeout(r, 500)); // well into the solve
    process.kill(Number(held!.lease_owner!.split(":")[1]), "SIGKILL");
    const lease = (await stack.services.executionStore.leases.leaseOf(key))!;

    // A generous wait (the lease lapses within LEASE_SECONDS, the sweep comes within SWEEP_SECONDS on a
    // quiet machine; how soon on this one: npm run bench -- latency).
    const failed = await pollUntil(stack.api, `/api/v2/models/executions/${id}`, isFinal, { timeoutMs: 90_000 });
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toContain("lease expired");
    // Swept only after the lease lapsed: the sweeper never fails a job whose worker still holds it.
    expect(Date.parse(failed.completed_at)).toBeGreaterThanOrEqual(lease.lease_expires_at_ms!);
    expect(await stack.services.executionStore.leases.active()).toEqual([]);

    const next = await stack.api.post("/api/v2/solve/async", { problem: marketSplitProblem(2, 8, 1), solver_name: "glpk" });
    expect(next.status).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/models/executions/${next.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: "completed", result: { solver_status: "optimal" } });
  }, 240_000);
});
