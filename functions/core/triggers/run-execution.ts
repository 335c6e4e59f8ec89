import type { ModelNames } from "../jmodel/index.js";
import type { Problem } from "../problem/schema.js";
import { isAppError } from "../errors.js";
import { admittedExecutionRecord } from "../executions/records.js";
import { closeCancelled } from "../executions/close-cancelled.js";
import type { ExecutionRecord } from "../executions/store.js";
import type { Clock } from "../clock.js";
import type { DocumentService } from "../documents/service.js";
import type { DocumentStore } from "../documents/store.js";
import type { ExecutionService } from "../executions/service.js";
import type { ExecutionStore } from "../executions/store.js";
import type { SolverChoice } from "../solvers/types.js";
import type { RaceRequest } from "../races/schemas.js";
import { modelOverridesOf, runRaceRequest } from "./overrides.js";
import type { RunRecord, TriggerStore } from "./store.js";
import type { BlobStore } from "../blob/blob-store.js";
import { type PreviousRunStart, previousRunStart } from "./warm-start.js";

/** What starting a run's execution reads and writes (the services, or a test's fakes). */
export interface RunExecutionDeps {
  documents: Pick<DocumentService, "findVersion" | "model" | "compile">;
  documentStore: Pick<DocumentStore, "get">;
  executions: Pick<ExecutionService, "admit" | "keepModelNames" | "launch">;
  executionStore: Pick<ExecutionStore, "createRunning" | "finalizeHeld">;
  triggerStore: Pick<TriggerStore, "setRunFields" | "recentRuns">;
  blobs: BlobStore;
  clock: Clock;
}

/** Why a run's execution ended without solving when the run was lost before it named it. */
export const RUN_LOST_MESSAGE = "the trigger run was no longer this worker's when its execution started";

/** The run's execution to solve, its race (launched; the race's end completes the run: race-run.ts), or why neither. */
export type RunExecution = { execution: ExecutionRecord; problem: Problem } | { race: ExecutionRecord } | { refused: string };

/**
 * The execution a held trigger run solves: the pinned version compiled with the run's overrides, then
 * admitted like every solve (the variable cap, the solver, credits, the daily quota; the run's user is
 * charged, unless the run was handed back after its charge), recorded `running` under the worker's lease, and named on the run. A refusal the fire
 * could not foresee (the model does not compile with these values, no solver can run its class, the
 * organization is out of credits or quota) is the run's failure, with the reason.
 */
export async function startRunExecution(
  services: RunExecutionDeps,
  {
    run,
    worker,
    leaseMs,
    band = 0,
  }: {
    run: RunRecord;
    worker: string;
    leaseMs: number;
    /** The band the run's job was queued on (its message's priority): a race's entrants queue there too. */
    band?: number;
  },
): Promise<RunExecution> {
  const { documents } = services;
  const version = await documents.findVersion(run.org_id, run.document_id, run.version_id);
  if (!version) return { refused: "the trigger's pinned version no longer exists" };
  const document = await services.documentStore.get(run.org_id, run.document_id);
  const modelOverrides = modelOverridesOf(run.override_data);
  let problem: Problem;
  let names: ModelNames | null;
  let execution: ExecutionRecord;
  try {
    ({ problem, names } = documents.compile(await documents.model(version), modelOverrides, document?.name ?? run.document_id));
    // A run a stopping worker handed back after its charge has paid already (credits_charged).
    const prepaid = run.credits_charged != null;
    // warm_start "previous_run": the previous successful run's solution (and an LP's basis), on the names this model still has.
    const start = run.warm_start === "previous_run" ? await previousRunStart(services, run, problem) : {};
    if (run.solver_name === "race") {
      let race: RaceRequest | null;
      try {
        race = runRaceRequest(run.override_data, run.race);
      } catch (error) {
        return { refused: (error as Error).message };
      }
      return { race: await launchRunRace(services, { run, problem, names, settings: start, race, band }) };
    }
    const admitted = await services.executions.admit(run.org_id, {
      userId: run.created_by,
      problem,
      choice: run.solver_name as SolverChoice,
      settings: {
        time_limit_seconds: run.settings.time_limit_seconds,
        gap_tolerance: run.settings.gap_tolerance,
        ...start,
      },
      prepaid,
    });
    execution = admittedExecutionRecord(admitted, {
      orgId: run.org_id,
      createdBy: run.created_by,
      origin: { kind: "trigger_run", id: run.id },
      notify: false, // the run's own notification names the trigger and the run
      solverRequested: run.solver_name,
      problemName: problem.name,
      nowMs: services.clock.now(),
      running: true,
    });
  } catch (error) {
    if (isAppError(error)) return { refused: `${error.code}: ${error.detail}` };
    throw error;
  }
  if (names) execution.model_names = await services.executions.keepModelNames(run.org_id, execution.id, names);
  // The execution exists before the run names it: a reader following the run's execution_id finds it.
  await services.executionStore.createRunning(execution, { worker, leaseMs, nowMs: services.clock.now() });
  const named = await services.triggerStore.setRunFields(run.trigger_id, {
    runId: run.id,
    worker,
    fields: { execution_id: execution.id, solver_name: execution.solver_name },
  });
  if (!named) {
    // The run was no longer this worker's (swept, handed back): nothing names this execution, so it is
    // closed rather than solved, or left `running` for the sweeper. The run's own end is another's now.
    // Nobody can be waiting on it yet, so the close announces nothing.
    const { executionStore, clock } = services;
    await closeCancelled({ executionStore, clock, workerId: worker }, { record: execution, result: null, errorMessage: RUN_LOST_MESSAGE });
    return { refused: RUN_LOST_MESSAGE };
  }
  return { execution, problem };
}

/**
 * A run whose solver is `race`: the race is launched as a solve's is (races/launch.ts: the entrants the
 * fire's `race` override or the trigger names, else every available solver that can run the class, cut
 * to the free workers; credits the entrants' sum; one solve of the daily quota), with origin
 * `trigger_run` and the run's trigger kept on it, so that its end completes the run (race-run.ts). Its
 * entrants queue on the band the run was queued on, as the run's own solve would have run there: that
 * band was allowed when the trigger was saved and taken from the priority budget when the run was
 * queued (runs.ts queuedPriority), so the entrants spend neither again.
 */
async function launchRunRace(
  services: RunExecutionDeps,
  {
    run,
    problem,
    names,
    settings,
    race,
    band,
  }: { run: RunRecord; problem: Problem; names: ModelNames | null; settings: PreviousRunStart; race: RaceRequest | null; band: number },
): Promise<ExecutionRecord> {
  const principal = { kind: "api_key" as const, userId: run.created_by, orgId: run.org_id, role: "solver" as const, keyId: null };
  return services.executions.launch(
    principal,
    {
      problem,
      solver_name: "race",
      settings: { time_limit_seconds: run.settings.time_limit_seconds, gap_tolerance: run.settings.gap_tolerance, ...settings },
      ...(names ? { names } : {}),
      ...(race ? { race } : {}),
    },
    { origin: { kind: "trigger_run", id: run.id }, notify: false, triggerRun: { triggerId: run.trigger_id, band } },
  );
}
