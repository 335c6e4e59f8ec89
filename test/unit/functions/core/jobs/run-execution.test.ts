import { describe, expect, it } from "vitest";
import type { SolveResponse } from "../../../../../functions/core/executions/schemas.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runExecution } from "../../../../../functions/core/jobs/run-execution.js";
import { fakeJobPorts, OPTIMUM, queuedExecution, readPayload, solverAnswer, untilAborted, WORKER } from "../../../../support/job-fakes.js";

/**
 * The execution job (plain and async solves, document runs) against in-memory ports: what it writes to
 * the execution, the blob store, metrics and notifications, and what it leaves alone once the
 * execution is no longer its own.
 */

function world(solve: SolvePort["solve"]) {
  const w = fakeJobPorts(solve);
  w.executionStore.items.put("exe_1", queuedExecution("exe_1"));
  const stored = () => w.executionStore.items.get("exe_1")!;
  const response = async () => (await readPayload<SolveResponse>(w.blobs, stored().result))!;
  return { ...w, stored, response, job: { orgId: "org_1", id: "exe_1" } };
}

describe("the execution job", () => {
  it("solves a queued execution through the gate, stores the result, completes it, counts the solve and notifies its user", async () => {
    const w = world(async (_name, options) => {
      options.progress?.line("Running the fake solver");
      options.progress?.point({ incumbent: 11, bound: 11, nodes: 0 });
      return OPTIMUM;
    });
    await runExecution(w.ports, w.job);

    const stored = w.stored();
    expect(stored).toMatchObject({ status: "completed", error_message: null, lease_owner: null });
    const response = await w.response();
    expect(response).toMatchObject({ execution_id: "exe_1", status: "optimal", objective_value: 11, solution: { x: 3, y: 1 } });
    expect(response.verification?.status).toBe("verified");
    expect(w.solves.map((s) => s.solver)).toEqual(["highs"]);
    expect(w.progressChunks.flatMap((c) => c.lines)).toContain("Running the fake solver");
    expect(w.totals).toHaveLength(1);
    expect(w.notices).toEqual([{ to: "usr_1", type: "execution_complete", message: "small with highs: optimal, objective 11." }]);
    expect(w.announced).toEqual([{ id: "exe_1", outcome: { id: "exe_1", status: "completed", result: stored.result, error_message: null } }]);
    expect(w.leases.kept[0]?.stopped).toBe(true);
  });

  it("fails the execution with the solver's own words when the solver errors", async () => {
    const w = world(async () => solverAnswer("error", { error_message: "highs: out of memory" }));
    await runExecution(w.ports, w.job);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "highs: out of memory" });
    expect((await w.response()).status).toBe("error");
    expect(w.notices.map((n) => n.type)).toEqual(["execution_failed"]);
  });

  it("fails the execution with the worker's error when a step throws, and throws it on for the container to report", async () => {
    const w = world(async () => {
      throw new Error("the adapter broke");
    });
    await expect(runExecution(w.ports, w.job)).rejects.toThrow("the adapter broke");
    expect(w.stored()).toMatchObject({ status: "failed", result: null });
    expect(w.stored().error_message).toBeTruthy();
    expect(w.announced).toEqual([{ id: "exe_1", outcome: undefined }]);
  });

  it("records the verification gate's rejection: a point that breaks a row is not reported optimal", async () => {
    const w = world(async () => solverAnswer("optimal", { objective_value: 20, solution: { x: 4, y: 4 } }));
    await runExecution(w.ports, w.job);
    const response = await w.response();
    expect(response.status).toBe("error");
    expect(response.verification?.status).not.toBe("verified");
    expect(response.verification?.message).toMatch(/capacity|x_cap/);
    expect(w.stored().status).toBe("failed");
  });

  it("does nothing for an execution cancelled before a worker took it: no solve, no write", async () => {
    const w = world(async () => OPTIMUM);
    w.executionStore.items.end("exe_1", "cancelled", { error_message: "cancelled by its user" });
    await runExecution(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.stored()).toMatchObject({ status: "cancelled", error_message: "cancelled by its user" });
    expect(w.leases.kept).toEqual([]);
  });

  it("stops the solver when the execution is cancelled mid-solve (handed back), and leaves the cancelled outcome as it stands", async () => {
    const w = world(async (_name, options) => {
      w.executionStore.items.end("exe_1", "cancelled", { error_message: "the worker was stopped mid-solve" });
      await w.leases.tick(); // the next renewal finds the lease gone: the solve is aborted
      return untilAborted(options.signal);
    });
    await runExecution(w.ports, w.job);
    expect(w.solves[0]?.signal?.aborted).toBe(true);
    expect(w.stored()).toMatchObject({ status: "cancelled", error_message: "the worker was stopped mid-solve", result: null });
    expect(w.blobMap.size).toBe(0); // this attempt's result blob was taken back
    expect(w.totals).toEqual([]);
    expect(w.notices).toEqual([]);
    expect(w.announced).toEqual([{ id: "exe_1", outcome: undefined }]);
  });

  it("writes nothing once its lease lapsed and the sweeper failed the execution mid-solve", async () => {
    const w = world(async (_name, options) => {
      w.executionStore.items.end("exe_1", "failed", { error_message: "the worker stopped answering" });
      await w.leases.tick();
      return untilAborted(options.signal);
    });
    await runExecution(w.ports, w.job);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "the worker stopped answering", result: null });
    expect(w.notices).toEqual([]);
  });

  it("does nothing when another worker holds the execution (a redelivered message)", async () => {
    const w = world(async () => OPTIMUM);
    w.executionStore.items.acquire("exe_1", { worker: "another-worker", leaseMs: 60_000, nowMs: w.ports.clock.now() });
    await runExecution(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.stored()).toMatchObject({ status: "running", lease_owner: "another-worker" });
    expect(w.ports.workerId).toBe(WORKER);
  });
});
