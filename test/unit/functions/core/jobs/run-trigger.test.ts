import { describe, expect, it } from "vitest";
import { AppError } from "../../../../../functions/core/errors.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runTrigger, type TriggerRunJobPorts } from "../../../../../functions/core/jobs/run-trigger.js";
import { problemStats } from "../../../../../functions/core/problem/schema.js";
import type { RunOutcome } from "../../../../../functions/core/triggers/outcomes.js";
import { newRunRecord } from "../../../../../functions/core/triggers/records.js";
import type { RunRecord } from "../../../../../functions/core/triggers/store.js";
import {
  afterCreateRunning,
  fakeJobPorts,
  fakeTriggerRunStore,
  OPTIMUM,
  readPayload,
  renewalsOf,
  SMALL_LP,
  solverAnswer,
  untilAborted,
} from "../../../../support/job-fakes.js";
import { fakeRaceStore, putRace } from "../../../../support/race-fakes.js";
import { runExecution } from "../../../../../functions/core/jobs/run-execution.js";
import { raceRunCompleter } from "../../../../../functions/core/triggers/race-run.js";
import { RUN_LOST_MESSAGE } from "../../../../../functions/core/triggers/run-execution.js";
import type { SolveResponse } from "../../../../../functions/core/executions/schemas.js";
import type { ExecutionRecord } from "../../../../../functions/core/executions/store.js";
import type { AdmissionRequest, PlannedSolves } from "../../../../../functions/core/limits/solve-admission.js";
import type { JobMessage } from "../../../../../functions/core/queue/messages.js";
import { RaceLauncher } from "../../../../../functions/core/races/launch.js";
import { raceIdOfRun } from "../../../../../functions/core/races/rules.js";

/**
 * The trigger run job against in-memory ports: the run taken, its execution started (compiled and
 * admitted by core's startRunExecution, here over fake documents and admission), solved, and the run
 * ended with its outcome — which decides the webhook and the notification (announce) — only while this
 * worker still holds it.
 */

const queuedRun = (): RunRecord =>
  newRunRecord({
    id: "run_1",
    trigger: { id: "trg_1", org_id: "org_1", solver_name: "highs", document_id: "doc_1", version_id: "ver_1" },
    source: "fire",
    createdBy: "usr_1",
    rerunOf: null,
    overrideData: { capacity: 4 },
    settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
    nowMs: Date.parse("2026-11-01T00:00:00.000Z"),
  });

function world(solve: SolvePort["solve"], options: { refuse?: AppError; admitted?: unknown[]; onLaunch?: () => Promise<void> } = {}) {
  const opts = options;
  const launched: { input: unknown; options: unknown }[] = [];
  const w = fakeJobPorts(solve);
  const triggerStore = fakeTriggerRunStore();
  triggerStore.runs.put("run_1", queuedRun());
  const outcomes: RunOutcome[] = [];
  const announced: { run: RunRecord; result: unknown }[] = [];
  const ports: TriggerRunJobPorts = {
    ...w.ports,
    triggerStore,
    runOutcomes: {
      finalFields: async (_run, { outcome }) => {
        outcomes.push(outcome);
        return { error: outcome.error, webhook: null };
      },
      announce: async (run, _trigger, result) => void announced.push({ run, result }),
    },
    documents: {
      findVersion: async () => ({ id: "ver_1" }) as never,
      model: async () => ({}) as never,
      compile: () => ({ problem: SMALL_LP, names: null }),
    },
    documentStore: { get: async () => ({ name: "plan" }) as never },
    executions: {
      admit: async (_org: string, request: { settings: unknown }) => {
        options.admitted?.push(request.settings);
        if (options.refuse) throw options.refuse;
        return {
          id: "exe_run",
          stats: problemStats(SMALL_LP),
          settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
          plan: { solver: "highs", solves: 1 },
          creditsEach: 1,
          problem: { inline: JSON.stringify(SMALL_LP) },
        };
      },
      keepModelNames: async () => ({ inline: "{}" }),
      launch: async (_principal, input, options) => {
        launched.push({ input, options });
        putRace(w.executionStore.items, ["highs", "glpk"], { triggerRun: { triggerId: "trg_1", runId: "run_1" } });
        await opts.onLaunch?.();
        return w.executionStore.items.get("race_1")!;
      },
    },
  };
  const run = () => triggerStore.runs.get("run_1")!;
  return { ...w, ports, triggerStore, outcomes, announced, launched, run, job: { orgId: "org_1", triggerId: "trg_1", runId: "run_1" } };
}

describe("the trigger run job", () => {
  it("starts the run's execution, solves it, and ends the run completed with its execution, then announces it", async () => {
    const w = world(async () => OPTIMUM);
    await runTrigger(w.ports, w.job);
    expect(w.run()).toMatchObject({ status: "completed", execution_id: "exe_run", error: null, lease_owner: null });
    expect(w.executionStore.items.get("exe_run")).toMatchObject({ status: "completed", origin: { kind: "trigger_run", id: "run_1" }, notify: false });
    expect(w.outcomes).toHaveLength(1);
    expect(w.outcomes[0]).toMatchObject({ status: "completed", error: null, result: { status: "optimal", objective_value: 11 } });
    expect(w.announced.map((a) => a.run.status)).toEqual(["completed"]);
  });

  it("ends the run failed with the solver's words when the solver errors", async () => {
    const w = world(async () => solverAnswer("error", { error_message: "highs: out of memory" }));
    await runTrigger(w.ports, w.job);
    expect(w.run()).toMatchObject({ status: "failed", error: "highs: out of memory", execution_id: "exe_run" });
    expect(w.announced).toHaveLength(1);
  });

  it("creates the run's execution before the run names it", async () => {
    const w = world(async () => OPTIMUM);
    const seen: (string | null)[] = [];
    const setRunFields = w.triggerStore.setRunFields;
    w.triggerStore.setRunFields = async (trigger, args) => {
      if (args.fields.execution_id) seen.push(w.executionStore.items.get(args.fields.execution_id)?.status ?? null);
      return setRunFields(trigger, args);
    };
    await runTrigger(w.ports, w.job);
    expect(seen).toEqual(["running"]);
    expect(w.run()).toMatchObject({ status: "completed", execution_id: "exe_run" });
  });

  it("closes as cancelled, unsolved, the execution made for a run that was lost before it named it", async () => {
    const w = world(async () => OPTIMUM);
    afterCreateRunning(w.executionStore, () => w.triggerStore.runs.end("run_1", "failed", { error: "the worker stopped answering" }));
    await runTrigger(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.executionStore.items.get("exe_run")).toMatchObject({ status: "cancelled", lease_owner: null, error_message: RUN_LOST_MESSAGE, result: null });
    expect(w.run()).toMatchObject({ status: "failed", error: "the worker stopped answering", execution_id: null });
    expect(w.announced).toEqual([]);
  });

  it("ends the run failed with the refusal when its execution cannot be admitted, without solving", async () => {
    const w = world(async () => OPTIMUM, { refuse: new AppError("insufficient_credits", "needs 1 credit, 0 left") });
    await runTrigger(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.run()).toMatchObject({ status: "failed", error: "insufficient_credits: needs 1 credit, 0 left", execution_id: null });
  });

  it("records the verification gate's rejection as the run's failure", async () => {
    const w = world(async () => solverAnswer("optimal", { objective_value: 20, solution: { x: 4, y: 4 } }));
    await runTrigger(w.ports, w.job);
    expect(w.run().status).toBe("failed");
    expect(w.outcomes[0]?.result?.status).toBe("error");
    expect(w.outcomes[0]?.result?.verification?.claimed_status).toBe("optimal");
  });

  it("fails the run with the worker's error when a step throws, and throws it on", async () => {
    const w = world(async () => {
      throw new Error("the adapter broke");
    });
    await expect(runTrigger(w.ports, w.job)).rejects.toThrow("the adapter broke");
    expect(w.run().status).toBe("failed");
    expect(w.run().error).toBeTruthy();
  });

  it("does nothing for a run that is final already or held by another worker (a redelivered message)", async () => {
    const w = world(async () => OPTIMUM);
    w.triggerStore.runs.end("run_1", "failed", { error: "cancelled: the trigger was deleted" });
    await runTrigger(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.outcomes).toEqual([]);
    expect(w.run()).toMatchObject({ status: "failed", error: "cancelled: the trigger was deleted" });
  });

  it("stops the solve when the run's lease is lost mid-solve (swept), and neither ends nor announces the run", async () => {
    const w = world(async (_name, options) => {
      w.triggerStore.runs.end("run_1", "failed", { error: "the worker stopped answering" });
      await w.leases.tick();
      return untilAborted(options.signal);
    });
    await runTrigger(w.ports, w.job);
    expect(w.solves[0]?.signal?.aborted).toBe(true);
    expect(w.run()).toMatchObject({ status: "failed", error: "the worker stopped answering" });
    expect(w.announced).toEqual([]);
  });

  it("renews the execution's lease together with the run's while it solves", async () => {
    const w = world(async () => {
      await w.leases.tick();
      return OPTIMUM;
    });
    const renewed = renewalsOf(w.executionStore);
    await runTrigger(w.ports, w.job);
    expect(renewed).toEqual(["EXE#exe_run"]);
  });
});

describe("the trigger run job: warm_start previous_run", () => {
  const previous = (id: string, status: RunRecord["status"], createdAt: string, solution: Record<string, number> | null): RunRecord & { lease_owner: null } =>
    ({
      ...queuedRun(),
      id,
      status,
      created_at: createdAt,
      lease_owner: null,
      result: { inline: JSON.stringify({ status: "optimal", solution }) },
    }) as never;

  it("gives the previous successful run's solution, on the names the model still has, as the run's MIP start", async () => {
    const admitted: unknown[] = [];
    const w = world(async () => OPTIMUM, { admitted });
    Object.assign(w.triggerStore.runs.items.get("run_1")!, { warm_start: "previous_run", created_at: "2026-11-02T00:00:00.000Z" });
    w.triggerStore.runs.put("run_0", previous("run_0", "completed", "2026-11-01T00:00:00.000Z", { x: 3, y: 2, gone: 7 }));
    w.triggerStore.runs.put("run_f", previous("run_f", "failed", "2026-11-01T12:00:00.000Z", { x: 9, y: 9 }));
    await runTrigger(w.ports, w.job);
    expect(admitted).toEqual([{ time_limit_seconds: 60, gap_tolerance: 1e-4, initial_solution: { x: 3, y: 2 } }]);
    expect(w.run().status).toBe("completed");
  });

  it("starts cold without the setting, or without a previous successful run", async () => {
    const admitted: unknown[] = [];
    const w = world(async () => OPTIMUM, { admitted });
    w.triggerStore.runs.put("run_0", previous("run_0", "completed", "2026-10-31T00:00:00.000Z", { x: 3, y: 2 }));
    await runTrigger(w.ports, w.job);
    const cold = world(async () => OPTIMUM, { admitted });
    Object.assign(cold.triggerStore.runs.items.get("run_1")!, { warm_start: "previous_run" });
    await runTrigger(cold.ports, cold.job);
    expect(admitted).toEqual([
      { time_limit_seconds: 60, gap_tolerance: 1e-4 },
      { time_limit_seconds: 60, gap_tolerance: 1e-4 },
    ]);
  });
});

describe("the trigger run job: solver_name race", () => {
  /** A run whose solver is `race`; its entrants' jobs run on "other workers" (runExecution with the race store and the run's completer). */
  function raceWorld(options: { entrantsBeforeHandOff?: boolean } = {}) {
    const w = world(async () => OPTIMUM, {
      onLaunch: options.entrantsBeforeHandOff ? async () => runEntrants() : undefined,
    });
    Object.assign(w.triggerStore.runs.items.get("run_1")!, { solver_name: "race" });
    const races = fakeRaceStore(w.executionStore.items);
    w.ports.races = races;
    const raceEnded = raceRunCompleter({ triggerStore: w.triggerStore, runOutcomes: w.ports.runOutcomes, clock: w.ports.clock, logger: w.ports.logger });
    const entrantPorts = { ...w.ports, races, raceEnded };
    const entrant = (id: string) => runExecution(entrantPorts, { orgId: "org_1", id });
    async function runEntrants() {
      await entrant("exe_highs");
      await entrant("exe_glpk");
    }
    return { ...w, runEntrants, entrant };
  }

  it("launches the race and hands the run to it without solving or waiting; the race's end completes the run with its answer", async () => {
    const w = raceWorld();
    await runTrigger(w.ports, w.job);
    expect(w.solves).toEqual([]);
    expect(w.launched).toHaveLength(1);
    expect(w.launched[0]).toMatchObject({
      input: { solver_name: "race", settings: { time_limit_seconds: 60, gap_tolerance: 1e-4 } },
      options: { origin: { kind: "trigger_run", id: "run_1" }, notify: false, triggerRun: { triggerId: "trg_1", band: 0 } },
    });
    expect(w.run()).toMatchObject({ status: "running", execution_id: "race_1", lease_owner: null });
    expect(w.outcomes).toEqual([]);

    await w.runEntrants();
    expect(w.run()).toMatchObject({ status: "completed", execution_id: "race_1", error: null });
    expect(w.outcomes).toHaveLength(1);
    expect(w.outcomes[0]).toMatchObject({ status: "completed", result: { execution_id: "race_1", status: "optimal", race: { winner: "highs" } } });
    expect(w.outcomes[0]!.result!.race!.entrants.map((e) => e.state)).toEqual(["won", "cancelled"]);
    expect(w.announced.map((a) => a.run.status)).toEqual(["completed"]);
    // The race answered the run once, whoever saw it end.
    const answer = await readPayload<SolveResponse>(w.blobs, w.executionStore.items.get("race_1")!.result);
    expect(answer?.race?.winner).toBe("highs");
  });

  it("completes the run itself when the race ended before the hand-off was written, once", async () => {
    const w = raceWorld({ entrantsBeforeHandOff: true });
    await runTrigger(w.ports, w.job);
    expect(w.executionStore.items.get("race_1")!.status).toBe("completed");
    expect(w.run()).toMatchObject({ status: "completed", execution_id: "race_1" });
    expect(w.outcomes).toHaveLength(1);
    expect(w.announced).toHaveLength(1);
  });

  it("names the trigger's entrants, or a fire's race override's, and queues them on the band the run was queued on", async () => {
    const w = raceWorld();
    const compiledWith: Record<string, unknown>[] = [];
    w.ports.documents.compile = (_model, overrides) => {
      compiledWith.push(overrides);
      return { problem: SMALL_LP, names: null };
    };
    Object.assign(w.triggerStore.runs.items.get("run_1")!, { race: { solvers: ["highs", "glpk"] } });
    await runTrigger(w.ports, { ...w.job, priority: 40 });
    expect(w.launched[0]).toMatchObject({ input: { race: { solvers: ["highs", "glpk"] } }, options: { triggerRun: { band: 40 } } });

    const fired = raceWorld();
    fired.ports.documents.compile = w.ports.documents.compile;
    Object.assign(fired.triggerStore.runs.items.get("run_1")!, {
      race: { solvers: ["highs", "glpk"] },
      override_data: { capacity: 4, race: { solvers: ["glpk", "jaos"] } },
    });
    await runTrigger(fired.ports, fired.job);
    expect(fired.launched[0]).toMatchObject({ input: { race: { solvers: ["glpk", "jaos"] } }, options: { triggerRun: { band: 0 } } });
    // The race's entrants are not model data.
    expect(compiledWith).toEqual([{ capacity: 4 }, { capacity: 4 }]);
  });

  it("fails the run, launching nothing, when a fire's race override is not a race's entrants", async () => {
    const w = raceWorld();
    Object.assign(w.triggerStore.runs.items.get("run_1")!, { override_data: { race: { solvers: ["highs"] } } });
    await runTrigger(w.ports, w.job);
    expect(w.launched).toEqual([]);
    expect(w.run().status).toBe("failed");
    expect(w.run().error).toMatch(/^the race override is not \{solvers: \[\.\.\.\]\}: race\.solvers: /);
  });

  it("fails the run with the race's reason when every entrant failed", async () => {
    const w = raceWorld();
    w.ports.solver.solve = async () => {
      throw new Error("the adapter broke");
    };
    await runTrigger(w.ports, w.job);
    await expect(w.entrant("exe_highs")).rejects.toThrow("the adapter broke");
    expect(w.run().status).toBe("running");
    await expect(w.entrant("exe_glpk")).rejects.toThrow("the adapter broke");
    expect(w.run()).toMatchObject({ status: "failed" });
    expect(w.run().error).toMatch(/every solver in the race failed/);
    expect(w.announced).toHaveLength(1);
  });

  /**
   * The run's job delivered twice: the first worker launches the race and, stopping, hands the run back
   * before its hand-off is written; the next worker to take the run launches it again. The real launcher
   * (races/launch.ts) over fakes: the race is keyed by the run, so the second launch finds it.
   */
  it("a run handed back between its race's launch and the hand-off, taken again, hands off to the same race: one race, one charge", async () => {
    const w = raceWorld();
    const charged: number[] = [];
    const sent: string[] = [];
    let handBack: (() => Promise<unknown>) | null = null;
    const launcher = new RaceLauncher({
      config: { orgMaxRunningJobs: 0, workerHeartbeatSeconds: 10, inlinePayloadMaxBytes: 1 },
      clock: w.ports.clock,
      executionStore: { create: async (r: ExecutionRecord) => w.executionStore.items.put(r.id, r) },
      raceStore: w.ports.races,
      blobs: w.blobs,
      inventory: { available: async () => new Set(["highs", "glpk"]) },
      workerHeartbeats: { list: async () => [] },
      credits: { refund: async (_org: string, amount: number) => void charged.push(-amount) },
      fairShare: {
        dispatch: async (job: JobMessage) => {
          sent.push(job.id);
          // The first worker is stopped mid-launch: its stop hands the run back (solver-container/src/hand-back.ts).
          const stopping = handBack;
          handBack = null;
          await stopping?.();
          return "queued";
        },
      },
      admission: {
        admit: async <P>(request: AdmissionRequest<P>) => {
          const stats = problemStats(SMALL_LP);
          const plan = (await request.plan(stats)) as P & PlannedSolves;
          charged.push(plan.solves);
          return {
            id: request.id!,
            stats,
            settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
            plan,
            creditsEach: 1,
            problem: { inline: JSON.stringify(SMALL_LP) },
          };
        },
      },
    } as never);
    w.ports.executions.launch = (principal, input, options) =>
      launcher.launch(principal, input, { ...options, priority: { value: 0, role: principal.role } }) as never;
    Object.assign(w.triggerStore.runs.items.get("run_1")!, { race: { solvers: ["highs", "glpk"] } });
    handBack = () => w.triggerStore.handBackRun("trg_1", { runId: "run_1", worker: w.ports.workerId, seenExecutionId: null, creditsCharged: null });

    await runTrigger(w.ports, w.job);
    expect(w.run()).toMatchObject({ status: "queued", lease_owner: null, execution_id: null });
    await runTrigger({ ...w.ports, workerId: "worker-b" }, w.job);

    const raceId = raceIdOfRun("run_1");
    expect(w.run()).toMatchObject({ status: "running", execution_id: raceId, lease_owner: null });
    const races = [...w.executionStore.items.items.values()].filter((e) => e.solver_requested === "race" && e.origin.kind === "trigger_run");
    expect(races.map((r) => r.id)).toEqual([raceId]);
    expect(charged).toEqual([2]);
    const entrantIds = races[0]!.race!.entrants.map((e) => e.execution_id);
    expect(sent).toEqual(entrantIds);

    for (const id of entrantIds) await w.entrant(id);
    expect(w.run()).toMatchObject({ status: "completed", execution_id: raceId });
    expect(w.announced).toHaveLength(1);
  });
});
