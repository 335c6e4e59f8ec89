import { describe, expect, it } from "vitest";
import type { Principal } from "../../../../../functions/core/auth/service.js";
import type { ExecutionRecord } from "../../../../../functions/core/executions/store.js";
import type { AdmissionRequest, PlannedSolves } from "../../../../../functions/core/limits/solve-admission.js";
import { problemStats } from "../../../../../functions/core/problem/schema.js";
import type { JobMessage } from "../../../../../functions/core/queue/messages.js";
import { RaceLauncher } from "../../../../../functions/core/races/launch.js";
import { raceIdOfRun } from "../../../../../functions/core/races/rules.js";
import { SMALL_LP } from "../../../../support/job-fakes.js";

/**
 * Launching a race against fakes of its deps: who enters and on which band its entrants' jobs queue. A
 * trigger run's race queues them on the run's band, which its trigger was allowed and its run budgeted
 * (the admission is then asked for no priority); a solve's race on the band it asked for.
 */

const principal: Principal = { kind: "api_key", userId: "usr_1", orgId: "org_1", role: "solver", keyId: null };

const NOW = Date.parse("2026-11-28T00:00:00.000Z");
const beat = (worker_id: string, state: "idle" | "busy") => ({
  worker_id,
  solvers: [],
  started_at: "2026-11-27T23:00:00.000Z",
  heartbeat_at: new Date(NOW).toISOString(),
  stopped_at: null,
  state,
});

function launcher(workers: ReturnType<typeof beat>[] = [], { whileAdmitting }: { whileAdmitting?: () => Promise<unknown> } = {}) {
  const admissions: AdmissionRequest<unknown>[] = [];
  const sent: JobMessage[] = [];
  const entrants: ExecutionRecord[] = [];
  const races: ExecutionRecord[] = [];
  const refunds: number[] = [];
  const stopped: string[] = [];
  /** Per race written, whether every entrant it names existed already. */
  const namedExisting: boolean[] = [];
  let hook = whileAdmitting;
  const deps = {
    config: { orgMaxRunningJobs: 0, workerHeartbeatSeconds: 10, inlinePayloadMaxBytes: 100_000 },
    clock: { now: () => NOW },
    executionStore: { create: async (r: ExecutionRecord) => void entrants.push(r) },
    raceStore: {
      // races/store.ts: a new race only.
      create: async (r: ExecutionRecord) => {
        namedExisting.push(r.race!.entrants.every((e) => entrants.some((x) => x.id === e.execution_id)));
        return !races.some((x) => x.id === r.id) && races.push(r) > 0;
      },
      get: async (_org: string, id: string) => races.find((r) => r.id === id) ?? null,
      // races/store.ts: a queued entrant ends cancelled.
      stopEntrant: async (_org: string, id: string) => {
        stopped.push(id);
        return "cancelled_queued" as const;
      },
    },
    credits: { refund: async (_org: string, amount: number) => void refunds.push(amount) },
    blobs: {},
    inventory: { available: async () => new Set(["highs", "glpk", "jaos"]) },
    workerHeartbeats: { list: async () => workers },
    fairShare: { dispatch: async (job: JobMessage) => void sent.push(job) },
    admission: {
      admit: async <P>(request: AdmissionRequest<P>) => {
        const n = admissions.push(request as AdmissionRequest<unknown>);
        const stats = problemStats(SMALL_LP);
        const plan = (await request.plan(stats)) as P & PlannedSolves;
        // Another worker's launch, run to its end while this one is admitted (the test's interleaving).
        const meanwhile = hook;
        hook = undefined;
        await meanwhile?.();
        return {
          id: request.id ?? `exe_race_${n}`,
          stats,
          settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
          plan,
          creditsEach: 1,
          problem: { inline: "{}" },
        };
      },
    },
  };
  return { launcher: new RaceLauncher(deps as never), deps, admissions, sent, entrants, races, refunds, stopped, namedExisting };
}

describe("launching a race", () => {
  it("queues a trigger run's entrants on the run's band, asking the admission for no priority again", async () => {
    const w = launcher();
    await w.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["glpk", "highs"] } },
      { origin: { kind: "trigger_run", id: "run_1" }, notify: false, priority: { value: 0, role: "solver" }, triggerRun: { triggerId: "trg_1", band: 40 } },
    );
    expect(w.admissions[0]!.priority).toBeUndefined();
    expect(w.entrants.map((e) => [e.solver_name, e.priority])).toEqual([
      ["highs", 40],
      ["glpk", 40],
    ]);
    expect(w.sent.map((j) => j.priority)).toEqual([40, 40]);
    expect(w.races[0]).toMatchObject({ race_trigger_id: "trg_1", priority: 40 });
  });

  it("queues a solve's entrants on the band it asked for, checked by the admission", async () => {
    const w = launcher();
    await w.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["highs", "jaos"] } },
      {
        origin: { kind: "solve_async", id: null },
        notify: true,
        priority: { value: -10, role: "solver" },
      },
    );
    expect(w.admissions[0]!.priority).toEqual({ value: -10, role: "solver" });
    expect(w.sent.map((j) => [j.type, j.priority])).toEqual([
      ["execution", -10],
      ["execution", -10],
    ]);
  });

  it("counts the trigger run's own worker as free: it hands its run to the race and takes its next job", async () => {
    const workers = [beat("w-run", "busy"), beat("w-idle", "idle")];
    const fromRun = launcher(workers);
    await fromRun.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["highs", "jaos"] } },
      { origin: { kind: "trigger_run", id: "run_1" }, notify: false, priority: { value: 0, role: "solver" }, triggerRun: { triggerId: "trg_1", band: 0 } },
    );
    expect(fromRun.races[0]!.race).toMatchObject({ degraded: false, entrants: [{ solver: "highs" }, { solver: "jaos" }] });

    // A solve's race on the same fleet: one worker is busy with someone else's job.
    const fromApi = launcher(workers);
    await fromApi.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["highs", "jaos"] } },
      { origin: { kind: "solve", id: null }, notify: false, priority: { value: 0, role: "solver" } },
    );
    expect(fromApi.races[0]!.race).toMatchObject({ degraded: true, entrants: [{ solver: "highs" }] });
  });

  it("writes every entrant before the race that names them, and sends them after", async () => {
    const w = launcher();
    const race = await w.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["glpk", "highs"] } },
      { origin: { kind: "solve", id: null }, notify: false, priority: { value: 0, role: "solver" } },
    );
    expect(w.namedExisting).toEqual([true]);
    expect(w.sent.map((j) => j.id)).toEqual(race.race!.entrants.map((e) => e.execution_id));
    expect(w.stopped).toEqual([]);
  });

  it("cancels its unsent entrants when the race's write fails, and fails the launch", async () => {
    const w = launcher();
    const create = w.deps.raceStore.create;
    w.deps.raceStore.create = async (r: ExecutionRecord) => {
      await create(r);
      throw new Error("the table is unavailable");
    };
    const launch = w.launcher.launch(
      principal,
      { problem: SMALL_LP, race: { solvers: ["glpk", "highs"] } },
      { origin: { kind: "solve", id: null }, notify: false, priority: { value: 0, role: "solver" } },
    );
    await expect(launch).rejects.toThrow("the table is unavailable");
    expect(w.stopped).toEqual(w.entrants.map((e) => e.id));
    expect(w.sent).toEqual([]);
  });

  describe("a trigger run's race is keyed by the run", () => {
    const fromRun = { origin: { kind: "trigger_run" as const, id: "run_1" }, notify: false, priority: { value: 0, role: "solver" as const } };
    const runRace = { ...fromRun, triggerRun: { triggerId: "trg_1", band: 0 } };
    const input = { problem: SMALL_LP, race: { solvers: ["highs" as const, "glpk" as const] } };

    it("a second launch for the same run (the run handed back before its hand-off) finds the race: no second charge, no second entrant", async () => {
      const w = launcher();
      const first = await w.launcher.launch(principal, input, runRace);
      const again = await w.launcher.launch(principal, input, runRace);
      expect(first.id).toBe(raceIdOfRun("run_1"));
      expect(again.id).toBe(first.id);
      expect(w.admissions).toHaveLength(1);
      expect(w.admissions[0]!.id).toBe(first.id);
      expect(w.races).toHaveLength(1);
      expect(w.entrants).toHaveLength(2);
      expect(w.sent).toHaveLength(2);
      expect(w.refunds).toEqual([]);
    });

    it("a launch that loses the race's write to another for the same run gives its charge back and returns the other's race", async () => {
      let theirs: ExecutionRecord | undefined;
      const w = launcher([], { whileAdmitting: async () => (theirs = await w.launcher.launch(principal, input, runRace)) });
      const ours = await w.launcher.launch(principal, input, runRace);
      expect(ours.id).toBe(theirs!.id);
      expect(ours.race!.entrants.map((e) => e.execution_id)).toEqual(theirs!.race!.entrants.map((e) => e.execution_id));
      expect(w.admissions).toHaveLength(2);
      expect(w.refunds).toEqual([ours.credits_charged]);
      expect(w.races).toHaveLength(1);
      expect(w.sent.map((j) => j.id)).toEqual(theirs!.race!.entrants.map((e) => e.execution_id));
      // the losing launch's own entrants, written before its race's write failed, end cancelled and unsent
      const theirIds = theirs!.race!.entrants.map((e) => e.execution_id);
      const lost = w.entrants.map((e) => e.id).filter((id) => !theirIds.includes(id));
      expect(lost).toHaveLength(2);
      expect(w.stopped).toEqual(lost);
    });

    it("keys nothing else: two solves' races are two races", async () => {
      const w = launcher();
      const solve = { origin: { kind: "solve" as const, id: null }, notify: false, priority: { value: 0, role: "solver" as const } };
      const a = await w.launcher.launch(principal, input, solve);
      const b = await w.launcher.launch(principal, input, solve);
      expect(a.id).not.toBe(b.id);
      expect(w.admissions.map((r) => r.id)).toEqual([undefined, undefined]);
      expect(w.races).toHaveLength(2);
    });
  });
});
