import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Priority bands on the local stack: one worker, so it is busy while the queue fills. Each job is a
 * market-split MILP cbc cannot finish within its 1 s time limit, so every job holds the worker ~1 s.
 */
describe.runIf(machineHas("cbc"))("priority bands", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const solve = (priority: number, seed: number, api = stack.api) =>
    api.post("/api/v2/solve/async", {
      problem: marketSplitProblem(4, 30, seed),
      solver_name: "cbc",
      settings: { time_limit_seconds: 1 },
      priority,
    });

  it("with the worker busy, a priority-50 job queued after ten priority-0 jobs starts before all of them", async () => {
    expect(await stack.workers.ready()).toBe(true);
    const normal: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await solve(0, i + 1);
      expect(res.status, res.text).toBe(202);
      normal.push(res.body.execution_id);
      // The worker holds the first job before the rest are queued: the workers are busy.
      if (i === 0)
        await pollUntil(stack.api, `/api/v2/models/executions/${res.body.execution_id}`, (b) => b.status !== "queued", { timeoutMs: 60_000, everyMs: 100 });
    }
    const high = await solve(50, 99);
    expect(high.status, high.text).toBe(202);

    // One at a time, in queue order: the reads stay under the per-endpoint rate limit.
    const views: any[] = [];
    for (const id of [...normal, high.body.execution_id])
      views.push(await pollUntil(stack.api, `/api/v2/models/executions/${id}`, isFinal, { timeoutMs: 120_000, everyMs: 1000 }));
    const highView = views.pop()!;
    expect(highView.priority).toBe(50);
    expect(views.every((v) => v.priority === 0)).toBe(true);
    const highStarted = Date.parse(highView.started_at);
    const startedBefore = views.filter((v) => Date.parse(v.started_at) < highStarted).length;
    const startedBeforeQueued = views.filter((v) => Date.parse(v.started_at) < Date.parse(highView.created_at)).length;
    expect(startedBeforeQueued).toBeGreaterThanOrEqual(1); // the worker was busy
    // Once queued, the high job is the next one taken; at most two normal jobs may slip in between: the
    // one a receive under way at that instant takes, and one anti-starvation turn (ANTI_STARVATION_EVERY).
    expect(startedBefore - startedBeforeQueued).toBeLessThanOrEqual(2);
    expect(views.filter((v) => Date.parse(v.started_at) > highStarted).length).toBeGreaterThanOrEqual(1);
    console.info(
      `priority: ${startedBeforeQueued} priority-0 jobs had started when the priority-50 job was queued; it started after ${startedBefore} of the ten`,
    );
  }, 150_000);

  it("priority above 0 is refused 403 for the solver role; 0 and below are accepted", async () => {
    const { services, bootstrap } = stack;
    const user = await services.auth.createUser(bootstrap.organizationId, { email: "solver@example.test", password: "password solver", role: "solver" });
    const key = await services.auth.createApiKey(
      { kind: "session", userId: user.id, orgId: bootstrap.organizationId, role: "solver", keyId: null },
      { name: "solver key" },
    );
    const asSolver = stack.api.as(key.key);
    const refused = await solve(1, 5, asSolver);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: "forbidden", status_code: 403 });
    expect(refused.body.detail).toMatch(/admin/);
    expect((await solve(-20, 6, asSolver)).status).toBe(202);
    const outOfRange = await solve(101, 7);
    expect(outOfRange.status).toBe(422);
  });
});
