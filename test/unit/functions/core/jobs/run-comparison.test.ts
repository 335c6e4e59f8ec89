import { describe, expect, it } from "vitest";
import type { ComparisonRecord } from "../../../../../functions/core/comparisons/store.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runComparison, UNSTARTED_ROW_MESSAGE } from "../../../../../functions/core/jobs/run-comparison.js";
import {
  afterCreateRunning,
  fakeJobPorts,
  OPTIMUM,
  pendingComparison,
  queuedExecution,
  renewalsOf,
  solverAnswer,
  untilAborted,
} from "../../../../support/job-fakes.js";

/**
 * The comparison job against in-memory ports: its rows in order, each as its own execution, written as
 * they finish with the agreement so far; a cancel honoured before the next row; nothing written once
 * the comparison is no longer this worker's.
 */

const pending = (solvers: string[]): ComparisonRecord => pendingComparison(solvers);

function world(solve: SolvePort["solve"], solvers = ["highs", "cbc"]) {
  const w = fakeJobPorts(solve);
  w.comparisonStore.items.put("cmp_1", pending(solvers));
  const stored = () => w.comparisonStore.items.get("cmp_1")!;
  const execution = (id: string | null) => w.executionStore.items.get(id!)!;
  return { ...w, stored, execution, job: { orgId: "org_1", id: "cmp_1" } };
}

describe("the comparison job", () => {
  it("runs each row as an execution of its own, writes the rows and their agreement, and completes the comparison", async () => {
    const w = world(async () => OPTIMUM);
    await runComparison(w.ports, w.job);

    const stored = w.stored();
    expect(stored).toMatchObject({ status: "completed", machine_note: "a test machine", lease_owner: null });
    expect(stored.results.map((r) => [r.solver_name, r.status, r.solver_status, r.objective_value])).toEqual([
      ["highs", "completed", "optimal", 11],
      ["cbc", "completed", "optimal", 11],
    ]);
    expect(stored.results.every((r) => r.verification?.status === "verified")).toBe(true);
    expect(stored.agreement).not.toBeNull();
    expect(w.solves.map((s) => s.solver)).toEqual(["highs", "cbc"]);
    for (const row of stored.results) expect(w.execution(row.execution_id)).toMatchObject({ status: "completed", origin: { kind: "comparison", id: "cmp_1" } });
    expect(w.notices).toEqual([]); // a row's execution notifies nobody
  });

  it("fails the row whose solver errors, and runs the next", async () => {
    const w = world(async (name) => (name === "highs" ? solverAnswer("error", { error_message: "highs: licence lost" }) : OPTIMUM));
    await runComparison(w.ports, w.job);
    const rows = w.stored().results;
    expect(rows.map((r) => [r.status, r.solver_status])).toEqual([
      ["failed", "error"],
      ["completed", "optimal"],
    ]);
    expect(w.execution(rows[0]!.execution_id)).toMatchObject({ status: "failed", error_message: "highs: licence lost" });
    expect(w.stored().status).toBe("completed");
  });

  it("records the verification gate's rejection in the row: a point that breaks a row is an error, never optimal", async () => {
    const w = world(async (name) => (name === "highs" ? solverAnswer("optimal", { objective_value: 20, solution: { x: 4, y: 4 } }) : OPTIMUM));
    await runComparison(w.ports, w.job);
    const [highs, cbc] = w.stored().results;
    expect(highs).toMatchObject({ status: "failed", solver_status: "error" });
    expect(highs!.verification?.status).not.toBe("verified");
    expect(highs!.verification?.claimed_status).toBe("optimal");
    expect(cbc).toMatchObject({ status: "completed", solver_status: "optimal" });
  });

  it("runs no row of a comparison cancelled before a worker took it", async () => {
    const w = world(async () => OPTIMUM);
    w.comparisonStore.cancel("cmp_1");
    w.comparisonStore.items.end("cmp_1", "cancelled");
    await runComparison(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.stored().results.map((r) => r.status)).toEqual(["cancelled", "cancelled"]);
  });

  it("finishes the row in flight when a cancel arrives during its solve, starts no other, and ends cancelled", async () => {
    const w = world(async () => {
      w.comparisonStore.cancel("cmp_1");
      return OPTIMUM;
    });
    await runComparison(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["highs"]);
    expect(w.stored()).toMatchObject({ status: "cancelled" });
    expect(w.stored().results.map((r) => r.status)).toEqual(["completed", "cancelled"]);
  });

  it("stops the solve and writes nothing more once its lease lapsed and the sweeper failed the comparison", async () => {
    const w = world(async (_name, options) => {
      w.comparisonStore.items.end("cmp_1", "failed", { error_message: "the worker stopped answering" });
      await w.leases.tick();
      return untilAborted(options.signal);
    });
    await runComparison(w.ports, w.job);
    expect(w.solves).toHaveLength(1);
    expect(w.solves[0]?.signal?.aborted).toBe(true);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "the worker stopped answering" });
    expect(w.stored().results.map((r) => r.status)).toEqual(["running", "pending"]); // as the sweeper's own write leaves them, in the store
  });

  it("renews the row's execution lease together with the comparison's while the row solves", async () => {
    const w = world(async () => {
      await w.leases.tick();
      return OPTIMUM;
    }, ["highs"]);
    const renewed = renewalsOf(w.executionStore);
    await runComparison(w.ports, w.job);
    expect(renewed).toEqual([`EXE#${w.stored().results[0]!.execution_id}`]);
  });

  it("takes over from a worker that died: the row it left running is solved again as the same execution, then the pending row runs", async () => {
    const w = world(async () => OPTIMUM);
    const dead = { status: "running", lease_owner: "dead-worker", lease_expires_at_ms: 0 } as const;
    const left = pending(["highs", "cbc"]);
    left.results[0] = { ...left.results[0]!, status: "running", execution_id: "exe_left" };
    w.comparisonStore.items.put("cmp_1", { ...left, ...dead });
    w.executionStore.items.put("exe_left", { ...queuedExecution("exe_left"), origin: { kind: "comparison", id: "cmp_1" }, notify: false, ...dead });
    await runComparison(w.ports, w.job);
    const rows = w.stored().results;
    expect(rows.map((r) => [r.status, r.solver_status])).toEqual([
      ["completed", "optimal"],
      ["completed", "optimal"],
    ]);
    expect(rows[0]!.execution_id).toBe("exe_left");
    expect(w.execution("exe_left")).toMatchObject({ status: "completed", lease_owner: null });
    expect(w.stored().status).toBe("completed");
  });
  it("creates each row's execution before the row names it, so a reader following the row's execution_id finds it", async () => {
    const w = world(async () => OPTIMUM);
    const seenAtStart: (string | null)[] = [];
    const startRow = w.comparisonStore.startRow;
    w.comparisonStore.startRow = async (org, args) => {
      seenAtStart.push(w.executionStore.items.get(args.executionId)?.status ?? null);
      return startRow(org, args);
    };
    await runComparison(w.ports, w.job);
    expect(seenAtStart).toEqual(["running", "running"]);
    expect(w.stored().status).toBe("completed");
  });

  it("closes as cancelled the execution made for a row whose comparison was cancelled before the row started, and solves nothing", async () => {
    const w = world(async () => OPTIMUM);
    afterCreateRunning(w.executionStore, () => w.comparisonStore.cancel("cmp_1"));
    await runComparison(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.stored()).toMatchObject({ status: "cancelled", lease_owner: null });
    expect(w.stored().results.map((r) => [r.status, r.execution_id])).toEqual([
      ["cancelled", null],
      ["cancelled", null],
    ]);
    const made = [...w.executionStore.items.items.values()];
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ status: "cancelled", lease_owner: null, error_message: UNSTARTED_ROW_MESSAGE.cancelled, result: null });
    expect(made[0]!.completed_at).not.toBeNull();
    expect(w.announced).toEqual([
      { id: made[0]!.id, outcome: { id: made[0]!.id, status: "cancelled", result: null, error_message: UNSTARTED_ROW_MESSAGE.cancelled } },
    ]);
  });

  it("closes as cancelled the execution made for a row whose comparison was lost before the row started, and writes nothing more", async () => {
    const w = world(async () => OPTIMUM);
    afterCreateRunning(w.executionStore, () => w.comparisonStore.items.end("cmp_1", "failed", { error_message: "the worker stopped answering" }));
    await runComparison(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "the worker stopped answering" });
    expect(w.stored().results.map((r) => r.status)).toEqual(["pending", "pending"]);
    const made = [...w.executionStore.items.items.values()];
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ status: "cancelled", lease_owner: null, error_message: UNSTARTED_ROW_MESSAGE.lost });
  });
});
