import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiSolver } from "../../functions/core/executions/api-solve.js";
import { NO_METRICS } from "../../functions/core/observability/metrics.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { emptyResult } from "../../functions/core/solvers/types.js";
import { SMALL_MILP } from "../support/models.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Answers from zero: with no solver worker live (a stage idling at zero tasks: no worker processes
 * here), a small plain solve is answered by the API itself with jaos, at once, recorded like any
 * execution (`solved_by: "api"`) and queued nowhere (no task is woken for it); a large one, or one
 * for a solver the API does not carry, goes to the fleet as before.
 */
describe("answers from zero: small plain solves answered by the API", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({
      // No fair-share cap (ORG_MAX_RUNNING_JOBS=0): the solves this file leaves to the fleet would otherwise
      // hold the organization's slots, and the next job would be parked in the table, not sent to the queue
      // whose messages the takeover test counts.
      env: {
        LOCAL_WORKERS: "0",
        API_SOLVE_MAX_NONZEROS: "50",
        SOLVE_WAIT_SECONDS: "10",
        API_SOLVE_TAKEOVER_SECONDS: "1",
        INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
        ORG_MAX_RUNNING_JOBS: "0",
      },
    });
  }, 120_000);
  afterAll(() => stack?.stop());

  const queued = async () => {
    let total = 0;
    for (const url of [stack.config.jobsQueueUrl, stack.config.jobsHighQueueUrl, stack.config.jobsLowQueueUrl].filter(Boolean)) {
      const { GetQueueAttributesCommand } = await import("@aws-sdk/client-sqs");
      const a = await stack.services.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] }));
      total += Number(a.Attributes?.ApproximateNumberOfMessages ?? 0);
    }
    return total;
  };

  it("answers a small MILP optimal from the API with no worker live, records who solved it, and queues no job", async () => {
    const before = await queued();
    const res = await stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: "auto" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", objective_value: 10.5, solution: { x: 0.5, y: 5 }, solver_name: "jaos" });
    // `auto` chose another solver (no comparisons: the default rule); no warm worker, so jaos answered, and says so.
    expect(res.body.auto_choice).toMatchObject({ solver: "jaos" });
    expect(res.body.auto_choice.reason).toMatch(/^No solver worker was warm/);
    const view = (await stack.api.get(`/api/v2/models/executions/${res.body.execution_id}`)).body;
    expect(view).toMatchObject({ status: "completed", solved_by: "api", solver_name: "jaos", solver_requested: "auto" });
    expect(view.auto_choice).toEqual(res.body.auto_choice);
    expect(await queued()).toBe(before);
  });

  it("leaves to the fleet what the API does not take: a solver it does not carry, or more nonzeros than the stage allows", async () => {
    const busy = await stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: "cbc" });
    expect(busy.status).toBe(503);
    expect(busy.body.error_code).toBe("solver_busy");
    const big: Problem = {
      name: "big",
      sense: "minimize",
      variables: Array.from({ length: 10 }, (_, i) => ({ name: `x${i}`, type: "continuous", lb: 0, ub: 1 })),
      objective: { constant: 0, terms: Array.from({ length: 10 }, (_, i) => ({ var: `x${i}`, coef: 1 })) },
      constraints: Array.from({ length: 6 }, (_, r) => ({ name: `c${r}`, terms: Array.from({ length: 10 }, (_, i) => ({ var: `x${i}`, coef: 1 })), lb: 1 })),
    } as Problem;
    const large = await stack.api.post("/api/v2/solve", { problem: big, solver_name: "auto" });
    expect(large.status).toBe(503); // 60 nonzeros > 50: queued for a worker, none came within the wait
    const view = (await stack.api.get(`/api/v2/models/executions/${large.body.execution_id}`)).body;
    expect(view).toMatchObject({ status: "queued", solved_by: null });
  });

  it("takes over a small solve a live fleet left waiting (every worker busy), and gives the fleet back one its budget cannot finish", async () => {
    // A worker that is live (a fresh heartbeat) but takes nothing: the solve is queued, then taken over.
    const now = Date.now();
    await stack.services.workerHeartbeats.beat("busy-worker", { solvers: [], startedAtMs: now, nowMs: now });
    const before = await queued();
    const res = await stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: "jaos" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", objective_value: 10.5, solver_name: "jaos" });
    expect((await stack.api.get(`/api/v2/models/executions/${res.body.execution_id}`)).body.solved_by).toBe("api");
    expect(await queued()).toBe(before + 1); // its message waits for a worker, which will find it done
    // `auto` choosing another solver (HiGHS, by the default rule here) waits for the live fleet: not taken over.
    const left = await stack.api.post("/api/v2/solve", { problem: SMALL_MILP, solver_name: "auto" });
    expect(left.status).toBe(503);
    expect((await stack.api.get(`/api/v2/models/executions/${left.body.execution_id}`)).body).toMatchObject({ status: "queued", solved_by: null });
    await stack.services.workerHeartbeats.stopped("busy-worker", { solvers: [], startedAtMs: now, nowMs: Date.now() });

    // An engine stopped by the API's budget (not the user's limit): the execution is queued again, no lease.
    const outOfTime = new ApiSolver({
      ...stack.services,
      metrics: NO_METRICS,
      engine: async () => ({ version: "test", solve: () => ({ ...emptyResult("time_limit"), solver_time_seconds: 1 }) }),
    });
    const launched = await stack.api.post("/api/v2/solve/async", { problem: SMALL_MILP, solver_name: "jaos" });
    const record = (await stack.services.executionStore.get(stack.bootstrap.organizationId, launched.body.execution_id))!;
    expect(await outOfTime.takeOver(record, "api:test", Date.now() + 10_000)).toBe("released");
    expect(await stack.services.executionStore.get(record.org_id, record.id)).toMatchObject({ status: "queued" });
  });

  it("an API-side answer passes the verification gate: a point that breaks the model is reported error with the broken row, never optimal", async () => {
    // SMALL_MILP's cap: x + y <= 5.5 with y integer; the lying engine claims optimal at x = 3, y = 5.
    const lying = new ApiSolver({
      ...stack.services,
      metrics: NO_METRICS,
      engine: async () => ({
        version: "test",
        solve: () => ({ ...emptyResult("optimal"), objective_value: 13, dual_bound: 13, gap: 0, solution: { x: 3, y: 5 } }),
      }),
    });
    const launched = await stack.api.post("/api/v2/solve/async", { problem: SMALL_MILP, solver_name: "jaos" });
    const record = (await stack.services.executionStore.get(stack.bootstrap.organizationId, launched.body.execution_id))!;
    const outcome = await lying.takeOver(record, "api:test", Date.now() + 20_000);
    expect(outcome).toMatchObject({ status: "failed" });
    const view = await stack.api.get(`/api/v2/models/executions/${record.id}`);
    expect(view.status, view.text).toBe(200);
    expect(view.body.result).toMatchObject({ status: "error", solver_status: "optimal", verification: { status: "violated", where: { kind: "constraint" } } });
    expect(view.body.result.error_message).toMatch(/breaks the model/);
  });
});
