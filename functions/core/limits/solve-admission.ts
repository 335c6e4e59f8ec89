import { type BlobStore, type PayloadRef, storePayload, storePayloadBytes } from "../blob/blob-store.js";
import type { Clock } from "../clock.js";
import type { Role } from "../auth/roles.js";
import type { Config } from "../config.js";
import type { Credits } from "../credits/credits.js";
import { type IdPrefix, newId } from "../ids.js";
import { assertPriorityAllowed } from "../queue/priority.js";
import { type Problem, type ProblemStats, problemStats } from "../problem/schema.js";
import { isSerializedProblem, type SerializedProblem } from "../problem/serialized.js";
import { resolveSettings, type Settings, type SettingsRequest } from "../solvers/settings.js";
import { assertBasisNamesKnown, assertStartNamesKnown } from "../solvers/warm-start.js";
import { invalid } from "../errors.js";
import { assertWithinCaps, modelCaps } from "./model-caps.js";
import type { PriorityBudget } from "./priority-budget.js";
import type { DailyQuota } from "./quota.js";

export interface AdmissionRequest<P> {
  orgId: string;
  /** Who is charged (and told when credits run low). */
  userId: string;
  /** The problem, or the bytes and stats of one compiled off the event loop (problem/serialized.ts). */
  problem: Problem | SerializedProblem;
  settings: SettingsRequest | undefined;
  /**
   * What will run, decided from the problem's stats (the solver `auto` picks, a comparison's rows), and
   * how many solves that is. Throws the 422 when nothing can run; nothing has been charged by then.
   */
  plan: (stats: ProblemStats) => Promise<P & PlannedSolves> | (P & PlannedSolves);
  /** Prefix of the new id: exe, cmp, cmb. */
  idPrefix: IdPrefix;
  /** The id, when the work is keyed by something else (a trigger run's race: one per run, races/rules.ts raceIdOfRun); absent: a new one. */
  id?: string;
  /** Where the problem is kept for this id; omitted when the caller stores problems itself. */
  problemKey?: (id: string) => string;
  /** The priority asked for and the asker's role (above 0 needs admin); absent for work that is not queued by a caller. */
  priority?: { value: number; role: Role };
  /** Paid for already (a trigger run a stopping worker handed back after its charge): no charge again. */
  prepaid?: boolean;
}

/**
 * How many solves a plan runs (each charged the formula's credits) and, when it differs, how many the
 * daily quota counts: a race runs several solvers and counts one solve (races/launch.ts).
 */
export interface PlannedSolves {
  solves: number;
  quotaSolves?: number;
}

export interface Admitted<P> {
  id: string;
  stats: ProblemStats;
  settings: Settings;
  plan: P & PlannedSolves;
  creditsEach: number;
  problem: PayloadRef | null;
}

/**
 * Admitting solves, the same way for every kind of work (plain and async solves, comparisons,
 * matrices, trigger runs, document runs), in this order: the priority's role rule → the problem's stats → the size caps →
 * the plan (which solvers run, how many solves) → the settings (the instance ceiling clamps the time
 * limit) → credits (the formula per solve) → the priority budget (solves above priority 0 per day) →
 * the charge → the daily quota → the id → the problem kept.
 *
 * Credits are taken before the quota; if the quota then refuses, the credits go back (the quota's
 * slots counted before the refusal stay spent, as the spec says, but nobody pays credits for solves
 * that will not run), and so does the priority budget. The low-credit notice goes out once both passed.
 */
export class SolveAdmission {
  constructor(
    private readonly deps: {
      config: Pick<
        Config,
        | "instanceMaxVariables"
        | "instanceMaxConstraints"
        | "instanceMaxNonzeros"
        | "instanceMaxSolveTimeSeconds"
        | "defaultTimeLimitSeconds"
        | "defaultGapTolerance"
        | "solverThreads"
        | "inlinePayloadMaxBytes"
      >;
      clock: Clock;
      credits: Pick<Credits, "perSolve" | "charge" | "refund" | "noticeLowBalance">;
      quota: Pick<DailyQuota, "charge">;
      /** Absent: no budget on priority (tests of other rules). */
      priorityBudget?: Pick<PriorityBudget, "spend" | "giveBack">;
      blobs: BlobStore;
    },
  ) {}

  async admit<P>(request: AdmissionRequest<P>): Promise<Admitted<P>> {
    const { config, clock, credits, quota } = this.deps;
    if (request.priority) assertPriorityAllowed(request.priority.value, request.priority.role);
    const serialized = isSerializedProblem(request.problem) ? request.problem : null;
    const stats = serialized ? serialized.stats : problemStats(request.problem as Problem);
    assertWithinCaps(modelCaps(config), stats);
    this.checkStart(request);
    this.checkBasis(request);
    const plan = await request.plan(stats);
    const settings = resolveSettings(config, request.settings);
    const creditsEach = credits.perSolve(stats, settings.time_limit_seconds);
    const total = creditsEach * plan.solves;
    if (plan.solves > 0 && !request.prepaid) {
      const budget = this.deps.priorityBudget;
      const prioritySpent =
        budget && request.priority ? await budget.spend(request.orgId, { priority: request.priority.value, solves: plan.solves, nowMs: clock.now() }) : 0;
      let balance: number;
      try {
        balance = await credits.charge(request.orgId, total);
      } catch (error) {
        await budget?.giveBack(request.orgId, prioritySpent, clock.now());
        throw error;
      }
      try {
        await quota.charge(request.orgId, plan.quotaSolves ?? plan.solves, clock.now());
      } catch (error) {
        await credits.refund(request.orgId, total);
        await budget?.giveBack(request.orgId, prioritySpent, clock.now());
        throw error;
      }
      await credits.noticeLowBalance(request.userId, balance, total);
    }
    const id = request.id ?? newId(request.idPrefix, clock.now());
    const key = request.problemKey?.(id);
    const problem =
      key === undefined
        ? null
        : serialized
          ? await storePayloadBytes(this.deps.blobs, key, { json: serialized.json, inlineMaxBytes: config.inlinePayloadMaxBytes })
          : await storePayload(this.deps.blobs, key, { value: request.problem, inlineMaxBytes: config.inlinePayloadMaxBytes });
    return { id, stats, settings, plan, creditsEach, problem };
  }

  /**
   * A MIP start is bounded like the model (the instance's variable cap) and, on a problem in hand, names
   * only its variables (warm-start.ts). A problem built elsewhere arrives as bytes nothing here parses:
   * its start's unknown names are dropped by the worker, with a note in the result.
   */
  private checkStart<P>(request: AdmissionRequest<P>): void {
    const start = request.settings?.initial_solution;
    if (!start) return;
    const cap = this.deps.config.instanceMaxVariables;
    const entries = Object.keys(start).length;
    if (cap > 0 && entries > cap) throw invalid(["body", "settings", "initial_solution"], `${entries} values; at most ${cap} (the instance's variable cap)`);
    if (!isSerializedProblem(request.problem)) assertStartNamesKnown(request.problem, start);
  }

  /** A starting basis: bounded by the instance's variable and constraint caps, and naming only the problem's columns and rows. */
  private checkBasis<P>(request: AdmissionRequest<P>): void {
    const basis = request.settings?.initial_basis;
    if (!basis) return;
    const { instanceMaxVariables: vars, instanceMaxConstraints: rows } = this.deps.config;
    const columns = Object.keys(basis.columns).length;
    const statuses = Object.keys(basis.rows).length;
    if ((vars > 0 && columns > vars) || (rows > 0 && statuses > rows))
      throw invalid(["body", "settings", "initial_basis"], `${columns} column and ${statuses} row statuses; at most ${vars} and ${rows} (the instance's caps)`);
    if (!isSerializedProblem(request.problem)) assertBasisNamesKnown(request.problem, basis);
  }
}
