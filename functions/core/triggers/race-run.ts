import { type BlobStore, loadPayload } from "../blob/blob-store.js";
import type { Clock } from "../clock.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { ExecutionRecord } from "../executions/store.js";
import type { Logger } from "../logger.js";
import type { RaceStorePort } from "../races/store.js";
import type { RunOutcome, RunOutcomes } from "./outcomes.js";
import type { TriggerStore } from "./store.js";

/**
 * A trigger run whose solver is `race` (issue 29). The run's worker compiles the model and launches the
 * race (triggers/run-execution.ts), then hands the run to the race (TriggerStore.handRunToRace: still
 * `running`, its `execution_id` the race's, no lease) and takes its next job. The race's own end — the
 * settle step of whichever entrant ends last (races/settle.ts), or the sweeper's for a dead entrant —
 * completes the run here: its result is the race's answer (winner, every entrant's row), its webhook
 * carries that answer, and its credits are what the race charged, the entrants' sum.
 *
 * Why not the run's worker waiting on the race: it would hold a worker idle for the whole race, and
 * with one worker free the race's entrant could not even start. Completing from the settle step costs
 * nothing while the race runs. One ordering needs care: a race may end before the worker's hand-off is
 * written, and the settle step then finds no run handed to it; so the worker, after handing off, reads the
 * race once and completes the run itself when it has ended. Both go through one conditioned write
 * (finalizeRaceRun), so the run ends once.
 */
export interface RaceRunDeps {
  triggerStore: Pick<TriggerStore, "getRun" | "getTrigger" | "finalizeRaceRun">;
  runOutcomes: Pick<RunOutcomes, "finalFields" | "announce">;
  clock: Clock;
}

/** Completes the trigger run race `race` was launched for, once the race has ended; false when there is none or it ended already. */
export async function completeRaceRun(deps: RaceRunDeps, race: ExecutionRecord, answer: SolveResponse | null): Promise<boolean> {
  const runId = race.origin.kind === "trigger_run" ? race.origin.id : null;
  if (!runId || !race.race_trigger_id || (race.status !== "completed" && race.status !== "failed")) return false;
  const run = await deps.triggerStore.getRun(race.race_trigger_id, runId);
  if (run?.status !== "running" || run.execution_id !== race.id) return false;
  const trigger = await deps.triggerStore.getTrigger(run.org_id, run.trigger_id);
  const outcome: RunOutcome =
    race.status === "completed"
      ? { status: "completed", result: answer, error: null }
      : { status: "failed", result: answer, error: race.error_message ?? "every solver in the race failed" };
  const fields = await deps.runOutcomes.finalFields(run, { trigger, outcome, nowMs: deps.clock.now() });
  const ended = await deps.triggerStore.finalizeRaceRun(run.trigger_id, { runId: run.id, raceId: race.id, status: outcome.status, set: fields });
  if (!ended) return false;
  await deps.runOutcomes.announce(ended, trigger, outcome.result);
  return true;
}

/** The run's worker, right after its hand-off: completes the run when its race has ended already (see above). */
export async function completeRaceRunIfEnded(deps: RaceRunDeps & { races: Pick<RaceStorePort, "get">; blobs: BlobStore }, orgId: string, raceId: string) {
  const race = await deps.races.get(orgId, raceId);
  if (!race || (race.status !== "completed" && race.status !== "failed")) return false;
  const answer = race.result ? await loadPayload<SolveResponse>(deps.blobs, race.result) : null;
  return completeRaceRun(deps, race, answer);
}

/** The hook a race's settle step calls when a race ends (races/settle.ts `raceEnded`), never throwing. */
export function raceRunCompleter(deps: RaceRunDeps & { logger: Pick<Logger, "warn"> }) {
  return async (race: ExecutionRecord, answer: SolveResponse | null): Promise<void> => {
    if (race.origin.kind !== "trigger_run") return;
    await completeRaceRun(deps, race, answer).catch((error: unknown) =>
      deps.logger.warn("completing a race's trigger run failed", { error, execution_id: race.id, run_id: race.origin.id }),
    );
  };
}
