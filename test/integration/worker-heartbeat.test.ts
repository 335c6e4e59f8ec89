import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/triggers.js";
import { startTestStack } from "../support/test-stack.js";

/**
 * The health check's solver component from the workers' own reports, on the local stack (the same
 * path as in AWS): each worker beats with its solvers while it runs and marks its item stopped on
 * SIGTERM; a stage that idles at zero (FLEET_MIN_WORKERS=0) then reads `idle` with the last inventory.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
let stack: Stack;

beforeAll(async () => {
  stack = await startTestStack({ env: { LOCAL_WORKERS: "1", FLEET_MIN_WORKERS: "0", WORKER_HEARTBEAT_SECONDS: "1" } });
}, 120_000);
afterAll(() => stack?.stop());

const solverComponent = async () => {
  const res = await stack.api.as(null).get("/api/v2/health/status");
  return res.body.components.find((c: { name: string }) => c.name === "solver") as { status: string; message: string };
};

describe("worker heartbeats behind /health/status", () => {
  it("a running worker beats with its probed solvers and versions, and the solver component names them", async () => {
    expect(await stack.workers.ready()).toBe(true);
    const [beat] = await stack.services.workerHeartbeats.list();
    expect(beat).toMatchObject({ stopped_at: null, worker_id: expect.stringContaining(":") });
    expect(beat!.solvers.find((s) => s.name === "jaos")).toMatchObject({ available: true, version: expect.any(String) });
    // Beats keep coming while it runs (every WORKER_HEARTBEAT_SECONDS).
    const first = Date.parse(beat!.heartbeat_at);
    await eventually(
      () => stack.services.workerHeartbeats.list(),
      (items) => Date.parse(items[0]!.heartbeat_at) > first,
      { timeoutMs: 10_000, everyMs: 200 },
    );
    const solver = await solverComponent();
    expect(solver.status).toBe("healthy");
    expect(solver.message).toMatch(/^1 live worker\(s\); solvers: .*jaos/);
  });

  it("a worker stopped by SIGTERM marks itself stopped; a fleet that may idle at zero then reads idle with the last inventory", async () => {
    await stack.workers.stop();
    const [beat] = await stack.services.workerHeartbeats.list();
    expect(beat!.stopped_at).toEqual(expect.any(String));
    const solver = await solverComponent();
    expect(solver.status).toBe("healthy");
    expect(solver.message).toMatch(/^idle: no worker running, the next job starts one \(last report .*jaos/);
  });
});
