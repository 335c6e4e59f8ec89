import { GetQueueAttributesCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LocalWorkerFleet } from "../../bin/local/worker-fleet.js";
import { ensureWorkerBuild } from "../../solver-container/build.js";
import { FakeEcsAgent } from "../support/fake-ecs-agent.js";
import { machineHas } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { startTestStack } from "../support/test-stack.js";
import { createTrigger, eventually } from "../support/triggers.js";

/**
 * The long-lived worker (solver-container/src/worker.ts) as the fleet runs it: workers started here
 * against a local stack that has none of its own. It protects its ECS task while it holds a job; on
 * SIGTERM it finishes a job that can end within its stop timeout and hands back one that cannot (the
 * next worker takes it at once); a job delivered twice runs once.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("glpsol") && machineHas("cbc");
let stack: Stack;
let build: string;
const fleets: LocalWorkerFleet[] = [];
const exitCodes = new Map<number, number | null>();

/** A glpsol solve that uses its whole time limit. */
const LONG = marketSplitProblem(4, 40, 3);

function startWorkers(count: number, env: Record<string, string> = {}): LocalWorkerFleet {
  const fleet = new LocalWorkerFleet({
    build,
    count,
    env: { ...stack.workerEnv, ...env },
    replace: false,
    stopTimeoutSeconds: Number(env.WORKER_STOP_TIMEOUT_SECONDS ?? stack.workerEnv.WORKER_STOP_TIMEOUT_SECONDS),
    onOutput: (line) => console.error(`[test worker] ${line}`),
    onExit: (pid, code) => exitCodes.set(pid, code),
  });
  fleet.start();
  fleets.push(fleet);
  return fleet;
}

/** SIGTERM to the fleet's one worker; resolves with its exit code and how long it took to exit. */
async function terminate(fleet: LocalWorkerFleet): Promise<{ code: number | null; ms: number }> {
  const [pid] = fleet.pids();
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => {
    const check = setInterval(() => {
      if (fleet.size === 0) {
        clearInterval(check);
        resolve(exitCodes.get(pid!) ?? null);
      }
    }, 20);
  });
  process.kill(pid!, "SIGTERM");
  const code = await exited;
  return { code, ms: Date.now() - started };
}

async function queueDepth(): Promise<number> {
  const out = await stack.services.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: stack.config.jobsQueueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

const execution = (id: string) => stack.services.executionStore.get(stack.bootstrap.organizationId, id);
const executionReaches = async (id: string, status: string, timeoutMs: number) =>
  (await eventually(
    () => execution(id),
    (e) => e?.status === status,
    { timeoutMs: timeoutMs, everyMs: 20 },
  ))!;
const leaseOwner = async (pk: string, sk: string) => (await stack.services.table.get<{ lease_owner?: string }>(pk, sk))?.lease_owner ?? null;

async function solveAsync(problem: unknown, solver: string, timeLimit: number): Promise<string> {
  const res = await stack.api.post("/api/v2/solve/async", { problem, solver_name: solver, settings: { time_limit_seconds: timeLimit } });
  expect(res.status, res.text).toBe(202);
  return res.body.execution_id;
}

beforeAll(async () => {
  if (!run) return;
  build = await ensureWorkerBuild();
  // Trigger runs solve with the default time limit.
  stack = await startTestStack({
    env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", SOLVE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "0", DEFAULT_TIME_LIMIT_SECONDS: "5" },
  });
}, 120_000);
afterEach(async () => {
  await Promise.all(fleets.splice(0).map((f) => f.stop()));
});
afterAll(() => stack?.stop());

describe.runIf(run)("long-lived solver workers", () => {
  it("protect their ECS task from scale-in while they hold a job, and lift the protection when idle again", async () => {
    const agent = new FakeEcsAgent();
    await agent.start();
    try {
      const fleet = startWorkers(1, { ECS_AGENT_URI: agent.url, TASK_PROTECTION_MINUTES: "15" });
      expect(await fleet.ready()).toBe(true);
      expect(agent.calls).toEqual([]); // an idle worker leaves its task unprotected

      const id = await solveAsync(LONG, "glpk", 2);
      await executionReaches(id, "running", 30_000);
      await eventually(async () => agent.protectedNow, Boolean, { timeoutMs: 5_000, everyMs: 20 });
      expect((await execution(id))!.status).toBe("running"); // protected while the job runs…
      expect(agent.calls[0]).toMatchObject({ enabled: true, expiresInMinutes: 15 });

      await executionReaches(id, "completed", 30_000);
      await eventually(
        async () => agent.protectedNow,
        (p) => !p,
        { timeoutMs: 5_000, everyMs: 20 },
      ); // …and not after
      expect(agent.calls.map((c) => c.enabled)).toEqual([true, false]);
      expect(agent.calls[1]!.at).toBeGreaterThanOrEqual(Date.parse((await execution(id))!.completed_at!));
    } finally {
      await agent.stop();
    }
  }, 60_000);

  it("on SIGTERM finish a job that ends within the stop timeout, then exit", async () => {
    const fleet = startWorkers(1, { WORKER_STOP_TIMEOUT_SECONDS: "15" });
    expect(await fleet.ready()).toBe(true);
    const id = await solveAsync(LONG, "glpk", 2);
    await executionReaches(id, "running", 30_000);
    const stopped = await terminate(fleet);
    expect(stopped.code).toBe(0);
    const done = (await execution(id))!;
    expect(done.status).toBe("completed");
    expect(await queueDepth()).toBe(0);
  }, 60_000);

  it("on SIGTERM hand back a job that cannot end within the stop timeout: queued again at once, and the next worker solves it", async () => {
    const first = startWorkers(1, { WORKER_STOP_TIMEOUT_SECONDS: "3" });
    expect(await first.ready()).toBe(true);
    const id = await solveAsync(LONG, "glpk", 5);
    await executionReaches(id, "running", 30_000);
    const stopped = await terminate(first);
    expect(stopped.code).toBe(0); // exited before its 5 s job could end: the job is handed back, below

    // Handed back: waiting without a lease, and its message visible again — no sweep involved.
    const back = (await execution(id))!;
    expect(back.status).toBe("queued");
    expect(await leaseOwner(`ORG#${stack.bootstrap.organizationId}`, `EXE#${id}`)).toBeNull();
    expect(await queueDepth()).toBe(1);

    startWorkers(1);
    const done = await executionReaches(id, "completed", 60_000);
    expect(done.error_message).toBeNull();
    const result = await stack.api.get(`/api/v2/models/executions/${id}`);
    expect(result.body.result).toMatchObject({ solver_status: "time_limit", objective_value: expect.any(Number) });
  }, 90_000);

  it("hand back a trigger run: it is charged once, its first execution ends cancelled, and the next worker completes it", async () => {
    const doc = await stack.api.post("/api/v2/documents", { name: "market split", model: { kind: "problem", problem: LONG }, solver_name: "glpk" });
    expect(doc.status, doc.text).toBe(201);
    const trigger = await createTrigger(stack.api, { document_id: doc.body.id, version_id: doc.body.version_id });
    const before = (await stack.api.get("/api/v2/credits/balance")).body.credits_remaining as number;

    const first = startWorkers(1, { WORKER_STOP_TIMEOUT_SECONDS: "3" });
    expect(await first.ready()).toBe(true);
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status, fired.text).toBe(202);
    const runPath = `/api/v2/triggers/${trigger.id}/runs/${fired.body.run_id}`;
    const running = await eventually(
      () => stack.services.triggerStore.getRun(trigger.id, fired.body.run_id),
      (r) => r?.status === "running" && r.execution_id !== null,
      { timeoutMs: 30_000, everyMs: 20 },
    );
    const charged = (await stack.api.get("/api/v2/credits/balance")).body.credits_remaining as number;
    expect(charged).toBeLessThan(before);
    expect((await terminate(first)).code).toBe(0);

    expect((await stack.api.get(runPath)).body.status).toBe("queued");
    const cancelled = (await execution(running!.execution_id!))!;
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.error_message).toMatch(/stopped mid-solve.*runs again/);

    startWorkers(1);
    const done = await eventually(
      () => stack.api.get(runPath),
      (r) => r.body.status === "completed",
      { timeoutMs: 60_000, everyMs: 100 },
    );
    expect(done.body.execution_id).not.toBe(running!.execution_id);
    expect((await stack.api.get("/api/v2/credits/balance")).body.credits_remaining).toBe(charged); // not charged again
  }, 90_000);

  it("hand back a comparison: the row under way is solved anew by the next worker, and the comparison completes", async () => {
    const first = startWorkers(1, { WORKER_STOP_TIMEOUT_SECONDS: "3" });
    expect(await first.ready()).toBe(true);
    const res = await stack.api.post("/api/v2/solvers/compare", { problem: LONG, solver_names: ["glpk", "cbc"], settings: { time_limit_seconds: 4 } });
    expect(res.status, res.text).toBe(202);
    const id = res.body.id as string;
    const started = await eventually(
      () => stack.services.comparisonStore.get(stack.bootstrap.organizationId, id),
      (c) => c?.results[0]?.status === "running",
      { timeoutMs: 30_000, everyMs: 20 },
    );
    expect((await terminate(first)).code).toBe(0);
    const back = (await stack.services.comparisonStore.get(stack.bootstrap.organizationId, id))!;
    expect(back.status).toBe("pending");
    expect(back.results.map((r) => r.status)).toEqual(["pending", "pending"]);
    expect((await execution(started!.results[0]!.execution_id!))!.status).toBe("cancelled");

    startWorkers(1);
    const done = await eventually(
      () => stack.api.get(`/api/v2/solvers/compare/${id}`),
      (r) => r.body.status === "completed",
      { timeoutMs: 60_000, everyMs: 100 },
    );
    expect(done.body.results.map((r: { status: string }) => r.status)).toEqual(["completed", "completed"]);
    expect(done.body.results[0].execution_id).not.toBe(started!.results[0]!.execution_id);
  }, 90_000);

  it("run a job delivered twice once, and a delivery after it finished not at all", async () => {
    const fleet = startWorkers(2);
    expect(await fleet.ready()).toBe(true);
    const solvedBefore = (await stack.services.metricsStore.totals()).total_solved;
    const id = await solveAsync(LONG, "glpk", 1);
    const job = JSON.stringify({ type: "execution", id, org_id: stack.bootstrap.organizationId });
    // Two more copies of the message: both workers receive one at about the same time.
    for (let i = 0; i < 2; i++) await stack.services.sqs.send(new SendMessageCommand({ QueueUrl: stack.config.jobsQueueUrl, MessageBody: job }));
    const done = await executionReaches(id, "completed", 30_000);
    await eventually(queueDepth, (n) => n === 0, { timeoutMs: 30_000, everyMs: 50 });
    expect((await stack.services.metricsStore.totals()).total_solved - solvedBefore).toBe(1);

    await stack.services.sqs.send(new SendMessageCommand({ QueueUrl: stack.config.jobsQueueUrl, MessageBody: job }));
    await eventually(queueDepth, (n) => n === 0, { timeoutMs: 30_000, everyMs: 50 });
    expect((await execution(id))!.completed_at).toBe(done.completed_at);
    expect((await stack.services.metricsStore.totals()).total_solved - solvedBefore).toBe(1);
  }, 60_000);
});
