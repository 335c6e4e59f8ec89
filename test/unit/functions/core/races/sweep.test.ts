import { describe, expect, it } from "vitest";
import type { SolveResponse } from "../../../../../functions/core/executions/schemas.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runExecution } from "../../../../../functions/core/jobs/run-execution.js";
import { raceDeadlineMs } from "../../../../../functions/core/races/rules.js";
import type { RacePorts } from "../../../../../functions/core/races/settle.js";
import { sweepRace } from "../../../../../functions/core/races/sweep.js";
import { fakeJobPorts, OPTIMUM, readPayload, solverAnswer, untilAborted } from "../../../../support/job-fakes.js";
import { fakeRaceStore, putRace } from "../../../../support/race-fakes.js";

/**
 * The sweeper's pass over a race still running (races/sweep.ts), against in-memory ports: a race whose
 * settle step was lost is answered; a race with an entrant still running is left alone until its
 * deadline, then ended with what the others reached; every write is the settle step's own, once.
 */

function world(solve: SolvePort["solve"]) {
  const w = fakeJobPorts(solve);
  const races = fakeRaceStore(w.executionStore.items);
  putRace(w.executionStore.items, ["highs", "glpk"]);
  const ports = { ...w.ports, races };
  const racePorts: RacePorts = ports;
  const race = () => w.executionStore.items.get("race_1")!;
  const sweep = () => sweepRace(racePorts, { orgId: "org_1", raceId: "race_1", waits: w.ports.config });
  /** An entrant's job whose settle step is lost: its execution ends, but the race is never written (the worker died before). */
  const jobLosingItsSettle = (id: string) =>
    runExecution({ ...ports, races: { ...races, get: async (org, raceId) => (raceId === "race_1" ? null : races.get(org, raceId)) } }, { orgId: "org_1", id });
  const job = (id: string) => runExecution(ports, { orgId: "org_1", id });
  return { ...w, races, race, sweep, job, jobLosingItsSettle };
}

describe("the sweeper and a race", () => {
  it("settles a race whose last entrant ended but whose settle step was lost: the proven verdict wins, the queued loser is stopped", async () => {
    const w = world(async () => OPTIMUM);
    await w.jobLosingItsSettle("exe_highs");
    expect(w.executionStore.items.get("exe_highs")!.status).toBe("completed");
    expect(w.race().status).toBe("running");
    expect(w.race().race!.entrants.map((e) => e.state)).toEqual(["queued", "queued"]);

    expect(await w.sweep()).toBe("settled");
    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race!.entrants.map((e) => [e.solver, e.state])).toEqual([
      ["highs", "won"],
      ["glpk", "cancelled"],
    ]);
    expect(w.executionStore.items.get("exe_glpk")!.status).toBe("cancelled");
    const answer = await readPayload<SolveResponse>(w.blobs, w.race().result);
    expect(answer).toMatchObject({ execution_id: "race_1", status: "optimal", objective_value: 11, race: { winner: "highs", decided_by: "proven_verdict" } });
    // Once: a second sweep, or the loser's redelivered job, writes nothing.
    const settled = w.race();
    expect(await w.sweep()).toBe("ended");
    await w.job("exe_glpk");
    expect(w.race()).toEqual(settled);
    expect(w.races.completions).toBe(1);
  });

  it("writes the answer of a race whose rows were all written but whose answer was lost", async () => {
    const w = world(async () => solverAnswer("time_limit", { objective_value: 10, dual_bound: 12, solution: { x: 2, y: 2 } }));
    const complete = w.races.complete;
    w.races.complete = async () => {
      throw new Error("the worker died before the answer");
    };
    await w.job("exe_highs");
    await expect(w.job("exe_glpk")).rejects.toThrow("the worker died before the answer");
    expect(w.race().race!.entrants.map((e) => e.state)).toEqual(["finished", "finished"]);
    expect(w.race().status).toBe("running");

    w.races.complete = complete;
    expect(await w.sweep()).toBe("settled");
    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race).toMatchObject({ winner: "highs", decided_by: "best_when_all_ended" });
  });

  it("leaves a race with an entrant still running alone before its deadline, and ends it after: the open entrant stopped, the race answered by the other", async () => {
    let glpkStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      glpkStarted = resolve;
    });
    const w = world(async (name, options) => {
      if (name === "highs") return solverAnswer("time_limit", { objective_value: 10, dual_bound: 12, solution: { x: 2, y: 2 } });
      glpkStarted();
      return untilAborted(options.signal);
    });
    const glpk = w.job("exe_glpk");
    await started;
    await w.job("exe_highs");
    const before = structuredClone(w.race());
    expect(before.race!.entrants.map((e) => e.state)).toEqual(["finished", "running"]);

    expect(await w.sweep()).toBe("running");
    expect(w.race()).toEqual(before);
    expect(w.executionStore.items.get("exe_glpk")!.status).toBe("running");

    w.ports.clock.set(raceDeadlineMs(before, w.ports.config) + 1);
    expect(await w.sweep()).toBe("ended_past_deadline");
    expect(w.race()).toMatchObject({ status: "completed", solver_name: "highs" });
    expect(w.race().race!.entrants.map((e) => [e.solver, e.state])).toEqual([
      ["highs", "won"],
      ["glpk", "failed"],
    ]);
    // Its worker was asked to stop; its own row write then finds the row written.
    await glpk;
    expect(w.executionStore.items.get("exe_glpk")!.status).toBe("cancelled");
    expect(w.race().race!.entrants[1]!.state).toBe("failed");
    expect(w.races.completions).toBe(1);
  });

  it("fails a race past its deadline whose entrants never started, saying why", async () => {
    const w = world(async () => OPTIMUM);
    w.ports.clock.set(raceDeadlineMs(w.race(), w.ports.config) + 1);
    expect(await w.sweep()).toBe("ended_past_deadline");
    expect(w.race()).toMatchObject({ status: "failed" });
    expect(w.race().error_message).toMatch(/^the race was still open at its deadline \(.+\): no entrant answered$/);
    expect(["exe_highs", "exe_glpk"].map((id) => w.executionStore.items.get(id)!.status)).toEqual(["cancelled", "cancelled"]);
  });
});
