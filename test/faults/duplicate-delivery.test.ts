import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { jobDone, runWorkerForJob } from "../support/worker-process.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * The same job message delivered twice (SQS delivers at least once), to the worker program run for
 * exactly one job (`node --import tsx solver-container/src/worker.ts --job …`): two workers given it at
 * once never both solve it (a conditional lease), the organization is charged once, and a delivery after
 * the job finished does nothing. (Long-lived workers and duplicate deliveries on the queue:
 * test/integration/worker-fleet.test.ts.)
 */
describe.runIf(machineHas("cbc"))("faults: a job message delivered twice", () => {
  let stack: Stack;
  beforeAll(async () => {
    // No local workers: this test starts the worker processes itself.
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "0" } });
  });
  afterAll(() => stack?.stop());

  const worker = (job: object) => runWorkerForJob(stack, job);

  it("runs a job once when two workers get it, charges it once, and does not run it again when it is redelivered after finishing", async () => {
    const problem = {
      name: "once",
      sense: "maximize",
      variables: Array.from({ length: 30 }, (_, i) => ({ name: `x${i}`, type: "binary" })),
      objective: { terms: Array.from({ length: 30 }, (_, i) => ({ var: `x${i}`, coef: 1 + (i % 7) })) },
      constraints: [{ name: "cap", terms: Array.from({ length: 30 }, (_, i) => ({ var: `x${i}`, coef: 1 + (i % 5) })), ub: 40 }],
    };
    const balance = async () => (await stack.api.get("/api/v2/credits/balance")).body.credits_remaining as number;
    const creditsBefore = await balance();
    const launched = await stack.api.post("/api/v2/solve/async", { problem, solver_name: "cbc" });
    expect(launched.status).toBe(202);
    const job = { type: "execution", id: launched.body.execution_id, org_id: stack.bootstrap.organizationId };
    const solvedBefore = (await stack.services.metricsStore.totals()).total_solved;

    const [a, b] = await Promise.all([worker(job), worker(job)]);
    expect(jobDone(a) && jobDone(b)).toBe(true); // both exit cleanly…
    expect((await stack.services.metricsStore.totals()).total_solved - solvedBefore).toBe(1); // …one solved
    const exe = await stack.api.get(`/api/v2/models/executions/${job.id}`);
    expect(exe.body).toMatchObject({ status: "completed", result: { solver_status: "optimal" } });

    await worker(job); // a redelivery of a finished job
    expect((await stack.services.metricsStore.totals()).total_solved - solvedBefore).toBe(1);
    expect((await stack.api.get(`/api/v2/models/executions/${job.id}`)).body.completed_at).toBe(exe.body.completed_at);
    expect(exe.body.credits_charged).toBeGreaterThan(0);
    expect(await balance()).toBe(creditsBefore - exe.body.credits_charged); // one charge, for the one run
  });

  it("answers 422 for an unknown solver name in a plain solve", async () => {
    const res = await stack.api.post("/api/v2/solve", { problem: { variables: [{ name: "x", ub: 1 }] }, solver_name: "gurobi" });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "solver_name"]);
  });
});
