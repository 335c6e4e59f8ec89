import type { Principal } from "../auth/service.js";
import type { Role } from "../auth/roles.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import { AppError } from "../errors.js";
import { newExecutionRecord } from "../executions/records.js";
import type { ExecutionOrigin } from "../executions/schemas.js";
import type { ExecutionRecord } from "../executions/store.js";
import { freeWorkers } from "../health/worker-heartbeats.js";
import { newId } from "../ids.js";
import type { ModelNames } from "../jmodel/names.js";
import type { Problem, ProblemStats } from "../problem/schema.js";
import { isSerializedProblem, type SerializedProblem } from "../problem/serialized.js";
import { enqueueOrFail } from "../queue/enqueue-or-fail.js";
import type { Services } from "../services.js";
import type { SettingsRequest } from "../solvers/settings.js";
import { lineUp, type RaceLineup, raceIdOfRun, raceSolvers, startingView } from "./rules.js";
import type { RaceRequest } from "./schemas.js";
import { settleEntrant } from "./settle.js";

/** What a race is launched with: a solve request whose solver_name is `race`. */
export interface RaceInput {
  problem: Problem | SerializedProblem;
  settings?: SettingsRequest;
  race?: RaceRequest;
  priority?: number;
  /** A JModel model's generated names: kept once and shared by the race and every entrant, so each reports as a plain solve does. */
  names?: ModelNames | Uint8Array;
}

/**
 * A trigger run's race, launched by the worker that holds the run (triggers/run-execution.ts), which then
 * hands the run to the race and takes its next job.
 */
export interface TriggerRunRace {
  /** The run's trigger, kept on the race so that its end can complete the run (triggers/race-run.ts). */
  triggerId: string;
  /**
   * The band the run was queued on: the entrants queue there. It was allowed when the trigger was saved
   * and spent from the priority budget when the run was queued, so the admission checks neither again.
   */
  band: number;
}

type RaceDeps = Pick<
  Services,
  "config" | "clock" | "executionStore" | "raceStore" | "blobs" | "inventory" | "admission" | "fairShare" | "workerHeartbeats" | "credits"
>;

/**
 * Launching a race (issue 29): one admission for every entrant (credits: one solve's price per entrant,
 * summed; the daily quota counts one solve), the race's own record (running, never queued: its entrants
 * are the work) and one queued execution per entrant (origin `race`, written before the race that names
 * them), each sent as an ordinary `execution` job so that each runs on a worker of its own. Workers
 * settle the race (settle.ts).
 *
 * A trigger run's race is keyed by the run (rules.ts raceIdOfRun): a run handed back by a stopping worker
 * after its race was launched but before the hand-off is launched again by the next worker, which finds
 * the race and hands the run to it — no second race, no second charge (the entrants that launch wrote
 * end `cancelled`, unsent).
 */
export class RaceLauncher {
  constructor(private readonly deps: RaceDeps) {}

  async launch(
    principal: Principal,
    input: RaceInput,
    {
      origin,
      notify,
      priority,
      triggerRun,
    }: {
      origin: ExecutionOrigin;
      notify: boolean;
      priority: { value: number; role: Role };
      /** With origin `trigger_run`: the run's race, launched by the worker holding the run (triggers/run-execution.ts). */
      triggerRun?: TriggerRunRace;
    },
  ): Promise<ExecutionRecord> {
    const { admission, clock, raceStore } = this.deps;
    const keyedId = origin.kind === "trigger_run" && origin.id && triggerRun ? raceIdOfRun(origin.id) : null;
    if (keyedId) {
      const launched = await raceStore.get(principal.orgId, keyedId);
      if (launched) return launched;
    }
    const admitted = await admission.admit({
      orgId: principal.orgId,
      userId: principal.userId,
      problem: input.problem,
      settings: input.settings,
      ...(triggerRun ? {} : { priority }),
      ...(keyedId ? { id: keyedId } : {}),
      idPrefix: "exe",
      problemKey: (id) => blobKeys.executionProblem(principal.orgId, id),
      plan: async (stats) => {
        const lineup = await this.lineUp(input.race, stats, triggerRun ? 1 : 0);
        return { lineup, solves: lineup.entrants.length, quotaSolves: 1 };
      },
    });
    const { lineup } = admitted.plan;
    const nowMs = clock.now();
    const entrantIds = lineup.entrants.map(() => newId("exe", nowMs));
    const modelNames = input.names
      ? await storeModelNames(this.deps.blobs, blobKeys.executionModelNames(principal.orgId, admitted.id), {
          names: input.names,
          inlinePayloadMaxBytes: this.deps.config.inlinePayloadMaxBytes,
        })
      : undefined;
    const common = {
      orgId: principal.orgId,
      createdBy: principal.userId,
      problem: admitted.problem!,
      problemName: input.problem.name,
      stats: admitted.stats,
      settings: admitted.settings,
      nowMs,
      priority: triggerRun?.band ?? priority.value,
      modelNames,
    };
    const race: ExecutionRecord = {
      ...newExecutionRecord({
        ...common,
        id: admitted.id,
        origin,
        notify,
        solverRequested: "race",
        solverName: "race",
        creditsCharged: admitted.creditsEach * lineup.entrants.length,
        running: true,
      }),
      race: startingView(lineup, entrantIds),
      // A problem compiled elsewhere arrives as bytes: its entrants' workers read the sense from the problem itself.
      ...(isSerializedProblem(input.problem) ? {} : { race_sense: input.problem.sense }),
      ...(origin.kind === "trigger_run" && triggerRun ? { race_trigger_id: triggerRun.triggerId } : {}),
    };
    const entrants = lineup.entrants.map((solver, i) =>
      newExecutionRecord({
        ...common,
        id: entrantIds[i]!,
        origin: { kind: "race", id: race.id },
        notify: false,
        solverRequested: "race",
        solverName: solver,
        creditsCharged: admitted.creditsEach,
      }),
    );
    // The entrants exist (queued, not yet sent) before the race names them: a reader that follows an
    // entrant's execution_id from the race finds it.
    for (const entrant of entrants) await this.deps.executionStore.create(entrant);
    let created: boolean;
    try {
      created = await raceStore.create(race);
    } catch (error) {
      await this.withdraw(entrants);
      throw error;
    }
    if (!created) {
      await this.withdraw(entrants);
      return this.launchedMeanwhile(race);
    }
    await this.send(entrants);
    return race;
  }

  /** Ends `cancelled` entrants created for a race that was not written: never sent, and named by no race. */
  private async withdraw(entrants: ExecutionRecord[]): Promise<void> {
    for (const entrant of entrants) await this.deps.raceStore.stopEntrant(entrant.org_id, entrant.id, this.deps.clock.now());
  }

  /**
   * Another worker created this trigger run's race between our look and our write (the run was handed
   * back while the launch went on): its race stands and this launch's charge goes back. The daily quota's
   * solve stays counted, as after any refused admission (limits/solve-admission.ts).
   */
  private async launchedMeanwhile(ours: ExecutionRecord): Promise<ExecutionRecord> {
    await this.deps.credits.refund(ours.org_id, ours.credits_charged);
    const theirs = await this.deps.raceStore.get(ours.org_id, ours.id);
    if (!theirs) throw new Error(`race ${ours.id} exists and cannot be read`);
    return theirs;
  }

  /**
   * Who runs: the solvers asked for (each must be able to run the problem) or every available one that
   * can, cut to the free workers (rules.ts lineUp). Nothing has been charged when this throws.
   */
  private async lineUp(request: RaceRequest | undefined, stats: ProblemStats, handingOff: number): Promise<RaceLineup> {
    const cls = stats.problem_class;
    const available = await this.deps.inventory.available(this.deps.clock.now());
    const { solvers, refused } = raceSolvers(request?.solvers, cls, available);
    if (request?.solvers && Object.keys(refused).length > 0) {
      const named = Object.entries(refused).map(([s, r]) => `${s} (${r})`);
      throw new AppError("no_solver_can_run_this_model", `Cannot race on this ${cls} problem: ${named.join(", ")}.`, { reasons: refused });
    }
    if (solvers.length === 0) {
      throw new AppError("no_solver_can_run_this_model", `No available solver can run a ${cls} problem.`, { reasons: { race: "not_available" } });
    }
    return lineUp(solvers, cls, await this.freeWorkers(solvers.length, handingOff));
  }

  /**
   * How many entrants can run at once: the live workers without a job in hand (their heartbeats say
   * whether they are busy, health/worker-heartbeats.ts; one still warming up counts, it polls within
   * seconds), at most the organization's running slots (ORG_MAX_RUNNING_JOBS). With no live worker (a
   * fleet at zero tasks, which scales up for queued work) the slots alone. `handingOff`: workers that
   * read `busy` but are free as soon as this launch returns — a trigger run's worker hands its run to the
   * race and takes its next job (else a trigger's race on two workers would always run one solver).
   */
  private async freeWorkers(wanted: number, handingOff: number): Promise<number> {
    const { config, clock, workerHeartbeats } = this.deps;
    const cap = config.orgMaxRunningJobs > 0 ? config.orgMaxRunningJobs : wanted;
    const workers = await workerHeartbeats.list().catch(() => []);
    const { live, free } = freeWorkers(workers, clock.now(), config.workerHeartbeatSeconds);
    return Math.min(cap, live > 0 ? Math.min(live, free + handingOff) : cap);
  }

  /**
   * Sends each entrant's job. A refused send fails that entrant and those not sent yet (their rows
   * `failed`, so the race still ends: settle.ts), and the refusal is thrown on (503 enqueue_failed).
   */
  private async send(entrants: ExecutionRecord[]): Promise<void> {
    const { fairShare, executionStore, clock } = this.deps;
    for (const [i, entrant] of entrants.entries()) {
      await enqueueOrFail(fairShare, { type: "execution", id: entrant.id, org_id: entrant.org_id, priority: entrant.priority ?? 0 }, async (reason) => {
        for (const unsent of entrants.slice(i)) {
          await executionStore.failUnheld(unsent.org_id, { id: unsent.id, from: ["queued"], reason, nowMs: clock.now() });
          await settleEntrant(
            { races: this.deps.raceStore, blobs: this.deps.blobs, clock, config: this.deps.config },
            { entrant: unsent, final: "failed", response: null, timeSeconds: 0 },
          );
        }
      });
    }
  }
}
