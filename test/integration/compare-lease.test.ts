import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComparisonRecord } from "../../functions/core/comparisons/store.js";
import { newExecutionRecord } from "../../functions/core/executions/records.js";
import { executionKey } from "../../functions/core/executions/store.js";
import type { ProblemClass } from "../../functions/core/problem/schema.js";
import { machineHas } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { startTestStack } from "../support/test-stack.js";
import { jobDone, runWorkerForJob } from "../support/worker-process.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const LEASE_SECONDS = 3;

/**
 * A comparison's lifecycle under a short lease, with sweeps run by the test (every 250 ms while a job
 * runs, or not at all while a dead worker's state is arranged): a row's solve that
 * runs far past the lease keeps both leases (the comparison's and the row execution's) alive, and a
 * worker that takes over a comparison whose worker died resolves the row that worker left running.
 * The worker is the real worker program, run for one job.
 */
describe.runIf(machineHas("cbc", "glpsol"))("comparison leases", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({
      env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "0", JOB_LEASE_SECONDS: String(LEASE_SECONDS), SWEEP_INTERVAL_SECONDS: "3600" },
    });
  });
  afterAll(() => stack?.stop());

  const worker = (job: object) => runWorkerForJob(stack, job, { JOB_LEASE_SECONDS: String(LEASE_SECONDS) });
  const orgId = () => stack.bootstrap.organizationId;

  async function expectRowConsistent(row: Record<string, unknown>, comparisonId: string) {
    const exe = await stack.api.get(`/api/v2/models/executions/${row.execution_id}`);
    expect(exe.body).toMatchObject({ status: "completed", origin: { kind: "comparison", id: comparisonId } });
    expect(exe.body.result.solver_status).toBe(row.solver_status);
    expect(exe.body.result.objective_value).toBe(row.objective_value);
    return exe.body;
  }

  it("a row solving for 9 s under a 3 s lease: the execution and the row both completed and consistent, nothing swept", async () => {
    const launched = await stack.api.post("/api/v2/solvers/compare", {
      problem: marketSplitProblem(4, 40, 3),
      solver_names: ["cbc"],
      settings: { time_limit_seconds: 9 },
    });
    expect(launched.status, launched.text).toBe(202);
    const id = launched.body.id as string;

    let sweeping = true;
    const swept: string[] = [];
    const sweeps = (async () => {
      while (sweeping) {
        swept.push(...(await stack.sweepNow()).failed.map((f) => f.id));
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const out = await worker({ type: "comparison", id, org_id: orgId() }).finally(() => (sweeping = false));
    await sweeps;
    expect(jobDone(out)).toBe(true);
    expect(swept).toEqual([]);

    const done = await stack.api.get(`/api/v2/solvers/compare/${id}`);
    expect(done.body.status).toBe("completed");
    const [row] = done.body.results;
    expect(row.status).toBe("completed");
    expect(row.wall_time_ms).toBeGreaterThanOrEqual(8000); // the solve outlived the lease more than twice over
    const exe = await expectRowConsistent(row, id);
    expect(exe.error_message).toBeNull();
    expect(await stack.services.executionStore.leases.active()).toEqual([]);
  }, 60_000);

  it("a comparison taken over from a dead worker: the row it left running is solved again as the same execution, and the pending row runs", async () => {
    const launched = await stack.api.post("/api/v2/solvers/compare", {
      problem: marketSplitProblem(2, 10, 5),
      solver_names: ["cbc", "glpk"],
      settings: { time_limit_seconds: 20 },
    });
    expect(launched.status, launched.text).toBe(202);
    const id = launched.body.id as string;
    const { comparisonStore, executionStore, clock } = stack.services;

    // The dead worker: it took the comparison, started row 0 as an execution, and stopped renewing at once.
    const dead = "dead-host:1:worker";
    const record = (await comparisonStore.acquire(orgId(), { id, worker: dead, leaseMs: 1, nowMs: clock.now() })) as ComparisonRecord;
    const executionId = "exe_0000000000deadworkerrow0";
    expect(await comparisonStore.startRow(orgId(), { id, index: 0, worker: dead, executionId })).toBe("started");
    await executionStore.createRunning(rowExecution(record, executionId), { worker: dead, leaseMs: 1, nowMs: clock.now() });
    await new Promise((r) => setTimeout(r, 20));

    const out = await worker({ type: "comparison", id, org_id: orgId() });
    expect(jobDone(out)).toBe(true);

    const done = await stack.api.get(`/api/v2/solvers/compare/${id}`);
    expect(done.body.status).toBe("completed");
    expect(done.body.results.map((r: { status: string }) => r.status)).toEqual(["completed", "completed"]);
    expect(done.body.results[0].execution_id).toBe(executionId);
    for (const row of done.body.results) await expectRowConsistent(row, id);
    expect(done.body.agreement).toMatchObject({ objectives_agree: true });
    const key = executionKey(orgId(), executionId);
    expect(await stack.services.table.get<{ lease_owner?: string }>(key.pk, key.sk)).not.toHaveProperty("lease_owner");
  }, 60_000);

  function rowExecution(c: ComparisonRecord, id: string) {
    return newExecutionRecord({
      id,
      orgId: c.org_id,
      createdBy: c.created_by,
      origin: { kind: "comparison", id: c.id },
      notify: false,
      solverRequested: "cbc",
      solverName: "cbc",
      problem: c.problem!,
      problemName: c.problem_name,
      stats: { problem_class: (c.problem_class ?? "MILP") as ProblemClass, variable_count: c.variable_count ?? 0, constraint_count: c.constraint_count ?? 0 },
      settings: c.settings,
      creditsCharged: c.credits_each,
      nowMs: Date.now(),
      running: true,
    });
  }
});
