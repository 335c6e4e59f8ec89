import type { Services } from "../services.js";
import type { Role } from "../auth/roles.js";
import type { Principal } from "../auth/service.js";
import { loadPayload, type PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { AppError, notFound } from "../errors.js";
import type { ModelNames } from "../jmodel/names.js";
import type { Admitted } from "../limits/solve-admission.js";
import type { Problem, ProblemStats } from "../problem/schema.js";
import type { SerializedProblem } from "../problem/serialized.js";
import { pickAuto, unsupportedReason } from "../solvers/registry.js";
import { traceAttach, traceMark } from "../trace/solve-trace.js";
import type { SettingsRequest } from "../solvers/settings.js";
import type { SolverChoice, SolverName, UnsupportedReason } from "../solvers/types.js";
import type { ExecutionOrigin, ExecutionView, SolveResponse } from "./schemas.js";
import { executionView, type ExecutionOutcome, type ExecutionRecord } from "./store.js";
import { admittedExecutionRecord } from "./records.js";
import { enqueueOrFail } from "../queue/enqueue-or-fail.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import type { AutoChoice } from "../solvers/recommendation/schemas.js";
import { sizesOfStats } from "../solvers/recommendation/features.js";
import { describeProblem } from "../solvers/recommendation/live.js";
import { solverShortName } from "../solvers/recommendation/recommender.js";
import type { RaceLauncher, TriggerRunRace } from "../races/launch.js";
import type { RaceRequest } from "../races/schemas.js";

/** What admitting one solve decided: the solver, and with `auto` how it was chosen. */
export interface ExecutionPlan {
  solver: SolverName;
  auto_choice?: AutoChoice;
}

/**
 * Plain and async solves and builder-document runs: one execution, one solver. Launch admits the solve
 * (limits/solve-admission.ts), records it and enqueues it; the solver container does the rest.
 */
export class ExecutionService {
  constructor(
    private readonly deps: Pick<Services, "config" | "clock" | "executionStore" | "blobs" | "inventory" | "admission" | "fairShare" | "finalSignals"> &
      Partial<Pick<Services, "recommendations">> & {
        /** Launches `solver_name: "race"` (races/launch.ts); absent: a race is refused. */
        races?: Pick<RaceLauncher, "launch">;
      },
  ) {}

  /**
   * Which solver runs: `auto` asks the recommender (solvers/recommendation/: the organization's
   * comparisons, else the public benchmark table, else today's rule) and says why; a named one must be
   * able to run the problem. `problem`: the problem itself, so that `auto` judges it by the same features
   * the comparisons and the bench are judged by (live.ts); without it, by its stats alone.
   */
  async chooseSolver(choice: SolverChoice, stats: ProblemStats, orgId: string, problem?: Problem | SerializedProblem): Promise<ExecutionPlan> {
    const cls = stats.problem_class;
    const available = await this.deps.inventory.available(this.deps.clock.now());
    if (choice === "auto") {
      const picked = await this.chooseAuto(orgId, stats, available, problem);
      if (!picked) {
        throw new AppError("no_solver_can_run_this_model", `No available solver can run a ${cls} problem.`, { reasons: { auto: "not_available" } });
      }
      return picked;
    }
    if (choice === "race") {
      // A race is launched whole by races/launch.ts (launch below); work that admits one solver cannot race.
      throw new AppError("no_solver_can_run_this_model", "A race runs only as a plain or async solve.", { reasons: { race: "not_available" } });
    }
    const reason: UnsupportedReason | null = unsupportedReason(choice, cls, available);
    if (reason) {
      throw new AppError("no_solver_can_run_this_model", `Solver ${choice} cannot run this ${cls} problem: ${reason}.`, { reasons: { [choice]: reason } });
    }
    return { solver: choice };
  }

  /** `auto`: the recommendation, or today's rule when there is no recommender or the history cannot be read. */
  private async chooseAuto(
    orgId: string,
    stats: ProblemStats,
    available: ReadonlySet<string>,
    problem: Problem | SerializedProblem | undefined,
  ): Promise<ExecutionPlan | null> {
    const { recommendations } = this.deps;
    if (recommendations) {
      const { sizes, numerics } = problem ? describeProblem(problem, stats) : { sizes: sizesOfStats(stats), numerics: null };
      try {
        const r = await recommendations.recommend(orgId, sizes, { numerics, available });
        if (!r) return null;
        return { solver: r.solver, auto_choice: { solver: r.solver, reason: r.reason, basis: r.basis, evidence: r.evidence } };
      } catch {
        // The history could not be read: the solve goes on by today's rule, and says so.
        const rule = pickAuto(stats.problem_class, available);
        if (!rule) return null;
        const reason = `Your comparisons could not be read just now: ${solverShortName(rule)} by the default rule for ${stats.problem_class}.`;
        return { solver: rule, auto_choice: { solver: rule, reason, basis: "default_rule", evidence: { comparisons: 0, similar_problems: [] } } };
      }
    }
    const rule = pickAuto(stats.problem_class, available);
    return rule ? { solver: rule } : null;
  }

  /**
   * Admits one solve of `problem` with `choice`: the solver it runs and everything the admission decided
   * (`prepaid`: charged already, see AdmissionRequest).
   */
  admit(
    orgId: string,
    {
      userId,
      problem,
      choice,
      settings,
      prepaid = false,
      priority,
    }: {
      userId: string;
      problem: Problem | SerializedProblem;
      choice: SolverChoice;
      settings: SettingsRequest | undefined;
      prepaid?: boolean;
      priority?: { value: number; role: Role };
    },
  ): Promise<Admitted<ExecutionPlan>> {
    return this.deps.admission.admit({
      orgId,
      userId,
      problem,
      settings,
      prepaid,
      priority,
      idPrefix: "exe",
      problemKey: (id) => blobKeys.executionProblem(orgId, id),
      plan: async (stats) => ({ ...(await this.chooseSolver(choice, stats, orgId, problem)), solves: 1 }),
    });
  }

  /**
   * Admits, records and enqueues one solve. `names`: the generated names of a JModel model, kept with the
   * execution so that its result can name an infeasible subset by family and index.
   */
  async launch(
    principal: Principal,
    input: {
      problem: Problem | SerializedProblem;
      solver_name: SolverChoice;
      settings?: SettingsRequest;
      priority?: number;
      names?: ModelNames | Uint8Array;
      race?: RaceRequest;
    },
    {
      origin,
      notify,
      holdFor,
      triggerRun,
    }: {
      origin: ExecutionOrigin;
      notify: boolean;
      /** A trigger run's race: its trigger and the run's band (races/launch.ts). */
      triggerRun?: TriggerRunRace;
      /** Created running under this lease and not queued: the caller solves it (api-solve.ts). */
      holdFor?: { worker: string; leaseMs: number };
    },
  ): Promise<ExecutionRecord> {
    const { clock } = this.deps;
    const priority = input.priority ?? 0;
    if (input.solver_name === "race" && this.deps.races) {
      // Its entrants are the work; the caller waits on the race's record (waitForFinal) like any solve's.
      return this.deps.races.launch(principal, input, { origin, notify, priority: { value: priority, role: principal.role }, triggerRun });
    }
    const admitted = await this.admit(principal.orgId, {
      userId: principal.userId,
      problem: input.problem,
      choice: input.solver_name,
      settings: input.settings,
      priority: { value: priority, role: principal.role },
    });
    traceAttach(admitted.id);
    traceMark("admitted", admitted.id);
    const record = admittedExecutionRecord(admitted, {
      orgId: principal.orgId,
      createdBy: principal.userId,
      origin,
      notify,
      solverRequested: input.solver_name,
      problemName: input.problem.name,
      nowMs: clock.now(),
      priority,
    });
    if (input.names) record.model_names = await this.keepModelNames(principal.orgId, record.id, input.names);
    if (holdFor) {
      await this.deps.executionStore.createRunning(record, { worker: holdFor.worker, leaseMs: holdFor.leaseMs, nowMs: clock.now() });
      return { ...record, status: "running", started_at: isoTime(clock.now()) };
    }
    await this.deps.executionStore.create(record);
    traceMark("recorded", record.id);
    await this.enqueue(record);
    return record;
  }

  /**
   * Explains an infeasible execution after the fact: a new execution of the same stored problem with
   * the solver that proved it infeasible, its time limit and gap, and `explain_infeasibility`, admitted
   * and charged as a solve (queued at priority 0: an explanation is not urgent, and needs no admin).
   * The two are linked both ways; asking again makes another explanation, which the original then names.
   */
  async explain(principal: Principal, id: string): Promise<ExecutionRecord> {
    const { clock, blobs, executionStore } = this.deps;
    const original = await executionStore.get(principal.orgId, id);
    if (!original) throw notFound("Execution");
    const verdict = original.status === "completed" ? ((await this.result(original))?.status ?? null) : null;
    if (verdict !== "infeasible") {
      const what = original.status === "completed" ? `ended ${verdict ?? "without a result"}` : `is ${original.status}`;
      throw new AppError("execution_not_infeasible", `Execution ${id} ${what}; only an execution that ended infeasible can be explained.`, {
        status: original.status,
        solver_status: verdict,
      });
    }
    const problem = await loadPayload<Problem>(blobs, original.problem);
    const settings: SettingsRequest = {
      time_limit_seconds: original.settings.time_limit_seconds,
      gap_tolerance: original.settings.gap_tolerance,
      explain_infeasibility: true,
    };
    const admitted = await this.admit(principal.orgId, { userId: principal.userId, problem, choice: original.solver_name as SolverName, settings });
    traceAttach(admitted.id);
    const record = admittedExecutionRecord(admitted, {
      orgId: principal.orgId,
      createdBy: principal.userId,
      origin: { kind: "explanation", id: original.id },
      notify: true,
      solverRequested: original.solver_name,
      problemName: original.problem_name,
      nowMs: clock.now(),
      priority: 0,
    });
    record.explains_execution_id = original.id;
    // The same problem, so the same names: the stored map is shared, not copied.
    if (original.model_names) record.model_names = original.model_names;
    await executionStore.create(record);
    await executionStore.linkExplanation(principal.orgId, original.id, record.id);
    await this.enqueue(record);
    return record;
  }

  /** Keeps a JModel model's generated names for execution `id`. */
  keepModelNames(orgId: string, id: string, names: ModelNames | Uint8Array): Promise<PayloadRef> {
    return storeModelNames(this.deps.blobs, blobKeys.executionModelNames(orgId, id), { names, inlinePayloadMaxBytes: this.deps.config.inlinePayloadMaxBytes });
  }

  /** Queues the job of an execution created held (the API gave it back to the fleet, api-solve.ts). */
  queue(record: ExecutionRecord): Promise<void> {
    return this.enqueue(record);
  }

  /**
   * Sends a recorded execution's job, or parks it while its organization has its share of the fleet
   * (queue/fair-share.ts); a refused send fails the execution (it will never run) and throws.
   */
  private async enqueue(record: ExecutionRecord): Promise<void> {
    const { fairShare, executionStore, clock } = this.deps;
    await enqueueOrFail(fairShare, { type: "execution", id: record.id, org_id: record.org_id, priority: record.priority ?? 0 }, (reason) =>
      executionStore.failUnheld(record.org_id, { id: record.id, from: ["queued"], reason, nowMs: clock.now() }),
    );
    traceMark("enqueued", record.id);
  }

  async view(principal: Principal, id: string): Promise<ExecutionView> {
    const record = await this.deps.executionStore.get(principal.orgId, id);
    if (!record) throw notFound("Execution");
    return executionView(record, await this.result(record));
  }

  async result(record: Pick<ExecutionRecord, "result">): Promise<SolveResponse | null> {
    return record.result ? loadPayload<SolveResponse>(this.deps.blobs, record.result) : null;
  }

  /**
   * Reads the execution until it is final or `timeoutMs` passes (the plain solve's bounded wait),
   * reading what the answer needs (status, result reference, reason) and not the problem.
   *
   * Where this process hears final writes (the local stack hears its workers, see final-signals.ts) it
   * takes the outcome a signal carries (else reads again at the signal), and otherwise reads only as a
   * safety net, ever less often: the answer leaves at the worker's announcement, and the table is left
   * to the worker meanwhile. Elsewhere (AWS)
   * it polls: most plain solves end within a second, so the first seconds are polled every few
   * milliseconds once a worker has the job, then ever less often, up to every 50 ms.
   */
  async waitForFinal(orgId: string, id: string, timeoutMs: number): Promise<ExecutionOutcome | null> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const signals = this.deps.finalSignals.heard ? this.deps.finalSignals.subscribe(id) : null;
    let delay = signals ? SIGNALLED_SAFETY_POLL_FIRST_MS : WAIT_POLL_FIRST_MS;
    let announced: ExecutionOutcome | null = null;
    // Signalled, the first read waits for the worker's word (or the first safety delay): just after the
    // enqueue it could only find the job queued, while the worker is taking it from the same table.
    let wakes = signals ? 0 : 1;
    try {
      for (; ; wakes++) {
        const outcome = wakes === 0 ? null : (announced ?? (await this.deps.executionStore.outcome(orgId, id)));
        if (outcome && isFinal(outcome.status)) {
          traceMark("api_seen", id);
          return outcome;
        }
        if (wakes > 0 && Date.now() >= deadline) return null;
        const remaining = Math.max(1, deadline - Date.now());
        if (signals) {
          const signal = await signals.next(Math.min(delay, remaining));
          announced = signal?.outcome ?? null;
          delay = Math.min(SIGNALLED_SAFETY_POLL_MAX_MS, delay * 2);
          continue;
        }
        // Until a worker has taken it the job cannot be done: poll less, leaving the table to the worker.
        const wait = outcome?.status === "queued" ? Math.max(delay, WAIT_POLL_QUEUED_MS) : delay;
        await new Promise((r) => setTimeout(r, Math.min(wait, remaining)));
        if (Date.now() - started > WAIT_TIGHT_MS) delay = Math.min(50, delay * 1.3);
      }
    } finally {
      signals?.close();
    }
  }
}

const isFinal = (status: ExecutionOutcome["status"]) => status === "completed" || status === "failed" || status === "cancelled";

/** The polled wait: every WAIT_POLL_FIRST_MS (WAIT_POLL_QUEUED_MS while queued) for WAIT_TIGHT_MS, then backing off. */
const WAIT_POLL_FIRST_MS = 4;
const WAIT_POLL_QUEUED_MS = 10;
const WAIT_TIGHT_MS = 2000;
/** The signalled wait's reads without a signal: doubling from the first to the most (ms). */
const SIGNALLED_SAFETY_POLL_FIRST_MS = 25;
const SIGNALLED_SAFETY_POLL_MAX_MS = 400;
