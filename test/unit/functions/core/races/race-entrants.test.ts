import { describe, expect, it } from "vitest";
import type { SolveResponse } from "../../../../../functions/core/executions/schemas.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runExecution } from "../../../../../functions/core/jobs/run-execution.js";
import type { SolverName } from "../../../../../functions/core/solvers/types.js";
import { fakeJobPorts, OPTIMUM, readPayload, solverAnswer, untilAborted } from "../../../../support/job-fakes.js";
import { fakeRaceStore, putRace } from "../../../../support/race-fakes.js";
import { settleSweptEntrant } from "../../../../../functions/core/races/settle.js";

/**
 * A race's entrants as their workers run them (jobs/run-execution.ts → races/entrant.ts → settle.ts),
 * against in-memory ports: the first proven verdict wins and stops the others, a stopped entrant ends
 * `cancelled` with what it had reached, nobody proving one ends with the best, every write once.
 */

function world(solve: SolvePort["solve"], solvers: SolverName[], options?: { freeWorkers?: number; notify?: boolean }) {
  const w = fakeJobPorts(solve);
  const races = fakeRaceStore(w.executionStore.items);
  const { raceId, entrantIds } = putRace(w.executionStore.items, solvers, options);
  const ports = { ...w.ports, races };
  const race = () => w.executionStore.items.get(raceId)!;
  const answer = async () => (await readPayload<SolveResponse>(w.blobs, race().result))!;
  const job = (id: string) => runExecution(ports, { orgId: "org_1", id });
  return { ...w, ports, races, raceId, entrantIds, race, answer, job };
}

describe("a race's entrants", () => {
  it("the first proven verdict wins; a queued entrant is cancelled before it starts, and its job then does nothing", async () => {
    const w = world(async () => OPTIMUM, ["highs", "glpk"]);
    await w.job("exe_highs");

    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race).toMatchObject({ winner: "highs", decided_by: "proven_verdict", degraded: false });
    expect(w.race().race!.entrants.map((e) => [e.solver, e.state])).toEqual([
      ["highs", "won"],
      ["glpk", "cancelled"],
    ]);
    const answer = await w.answer();
    expect(answer).toMatchObject({ execution_id: w.raceId, status: "optimal", objective_value: 11, solver_name: "highs" });
    expect(answer.race?.winner).toBe("highs");
    expect(w.executionStore.items.get("exe_glpk")!.status).toBe("cancelled");
    expect(w.announced.map((a) => a.id)).toContain(w.raceId);

    await w.job("exe_glpk");
    expect(w.solves.map((s) => s.solver)).toEqual(["highs"]);
  });

  it("stops a running loser through its solve's signal; it ends cancelled with its last incumbent and bound, and the race then completes", async () => {
    let glpkStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      glpkStarted = resolve;
    });
    const w = world(
      async (name, options) => {
        if (name === "highs") return OPTIMUM;
        options.progress?.point({ incumbent: 9, bound: 12, nodes: 5 });
        glpkStarted();
        return untilAborted(options.signal);
      },
      ["highs", "glpk"],
    );
    const loser = w.job("exe_glpk");
    await started;
    await w.job("exe_highs");
    // The winner has claimed, but the race waits for its loser's row.
    expect(w.race().status).toBe("running");
    expect(w.race().race!.decided_by).toBe("proven_verdict");
    await loser;

    const glpk = w.executionStore.items.get("exe_glpk")!;
    expect(glpk).toMatchObject({ status: "cancelled", error_message: "cancelled: another solver won the race", lease_owner: null });
    expect(await readPayload<SolveResponse>(w.blobs, glpk.result)).toMatchObject({ objective_value: 9, dual_bound: 12 });
    expect(w.race().status).toBe("completed");
    const rows = (await w.answer()).race!.entrants;
    expect(rows[1]).toMatchObject({ solver: "glpk", state: "cancelled", status: "feasible", objective_value: 9, best_bound: 12 });
    expect(rows[0]).toMatchObject({ solver: "highs", state: "won", status: "optimal", objective_value: 11 });
    expect(w.leases.kept.every((l) => l.stopped)).toBe(true);
  });

  it("with no proven verdict, the last to end returns the best verified answer of those that ended", async () => {
    const w = world(
      async (name) =>
        name === "highs"
          ? solverAnswer("time_limit", { objective_value: 10, dual_bound: 12, solution: { x: 2, y: 2 } })
          : solverAnswer("time_limit", { objective_value: 9, dual_bound: 12, solution: { x: 1, y: 3 } }),
      ["highs", "glpk"],
    );
    await w.job("exe_glpk");
    expect(w.race().status).toBe("running");
    await w.job("exe_highs");
    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race).toMatchObject({ winner: "highs", decided_by: "best_when_all_ended" });
    expect((await w.answer()).objective_value).toBe(10);
  });

  it("a degraded race runs its one solver and says so", async () => {
    const w = world(async () => OPTIMUM, ["glpk", "highs"], { freeWorkers: 1 });
    expect(w.entrantIds).toEqual(["exe_highs"]);
    await w.job("exe_highs");
    expect(w.race().race).toMatchObject({ winner: "highs", degraded: true, decided_by: "proven_verdict" });
    expect(w.race().race!.note).toContain("only one worker was free");
  });

  it("a redelivered job writes nothing again: the race is decided and completed once", async () => {
    const w = world(async () => OPTIMUM, ["highs", "glpk"]);
    await w.job("exe_highs");
    const first = w.race();
    await w.job("exe_highs");
    await w.job("exe_glpk");
    expect(w.race()).toEqual(first);
    expect(w.races.completions).toBe(1);
  });

  it("a race whose every entrant failed fails, with no winner", async () => {
    const w = world(async () => solverAnswer("error", { error_message: "broken" }), ["highs", "glpk"]);
    await w.job("exe_highs");
    await w.job("exe_glpk");
    expect(w.race()).toMatchObject({ status: "failed", error_message: "every solver in the race failed (highs: broken)" });
    expect(w.race().race!.winner).toBeNull();
  });

  it("an entrant the sweeper failed (its worker died) is settled too: the race ends with the answer of the other", async () => {
    const w = world(async () => solverAnswer("time_limit", { objective_value: 10, dual_bound: 12, solution: { x: 2, y: 2 } }), ["highs", "glpk"]);
    await w.job("exe_highs");
    w.executionStore.items.end("exe_glpk", "failed", { error_message: "the worker stopped responding" });
    await settleSweptEntrant({ ...w.ports, raceStore: w.races }, w.executionStore.items.get("exe_glpk")!);
    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race).toMatchObject({ winner: "highs", decided_by: "best_when_all_ended" });
    expect(w.race().race!.entrants[1]).toMatchObject({ state: "failed", status: "error" });
  });

  it("an async race tells its user once who won; its entrants tell nobody", async () => {
    const w = world(async () => OPTIMUM, ["highs", "glpk"], { notify: true });
    await w.job("exe_highs");
    await w.job("exe_glpk");
    expect(w.notices).toEqual([{ to: "usr_1", type: "execution_complete", message: "small: highs won (proven verdict), optimal, objective 11." }]);
  });
});
