import { randomUUID } from "node:crypto";
import { type BlobStore, deleteStoredBlob, loadPayload, storePayload } from "../blob/blob-store.js";
import { blobKeys } from "../blob/keys.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { ExecutionOutcome, ExecutionRecord } from "../executions/store.js";
import type { Logger } from "../logger.js";
import type { Notifications } from "../notifications/notifications.js";
import { bestWhenAllEnded, isProvenVerdict, isRunning } from "./rules.js";
import type { RaceView } from "./schemas.js";
import type { EntrantRow, RaceStorePort } from "./store.js";

/** What settling a race needs: its store, the blobs its answer is kept in, and the announcer of final writes. */
export interface RacePorts {
  races: RaceStorePort;
  blobs: BlobStore;
  clock: Clock;
  config: Pick<Config, "inlinePayloadMaxBytes">;
  announceFinal?(executionId: string, outcome?: ExecutionOutcome): void;
  /** Tells an async race's user it ended (a worker has them; the API and the sweeper pass theirs). */
  notifications?: Pick<Notifications, "notify">;
  /** Called once the race's answer is written (a trigger run's race completes its run: triggers/race-run.ts); never throws. */
  raceEnded?(race: ExecutionRecord, answer: SolveResponse | null): Promise<void>;
}

/** How one entrant's job ended, as its worker saw it. */
export interface EntrantEnding {
  entrant: ExecutionRecord;
  /** `completed` and `failed` as solveExecution wrote them; `cancelled` when it was stopped. */
  final: "completed" | "failed" | "cancelled";
  /** Its result (null when the job threw before one was written). */
  response: SolveResponse | null;
  /** What a stopped entrant had reached. */
  reached?: { incumbent: number | null; bound: number | null };
  /** Seconds from its start to its end. */
  timeSeconds: number;
  /** The problem's sense, when the settler read the problem (else the race's record says it). */
  sense?: "minimize" | "maximize";
}

/**
 * One entrant's end, written on its race (races/store.ts does each write once, conditioned):
 *  - a gate-verified proven verdict claims the win if nobody has; the winner then stops the others (a
 *    queued one ends at once, a running one is asked to stop and its worker writes its own row);
 *  - any other end writes its row;
 *  - whoever finds no entrant still running writes the race's answer: the winner's result with the race
 *    view, or, when nobody proved a verdict, the best answer of those that ended.
 * A redelivered job finds its row written and only retries the completion, which is itself conditioned.
 */
export async function settleEntrant(ports: RacePorts, ending: EntrantEnding): Promise<void> {
  const { entrant } = ending;
  const raceId = entrant.origin.id;
  if (!raceId) return;
  const race = await ports.races.get(entrant.org_id, raceId);
  const index = race?.race?.entrants.findIndex((e) => e.execution_id === entrant.id) ?? -1;
  if (!race?.race || index < 0) return;
  const row = entrantRow(ending);
  let after: ExecutionRecord | null = null;
  if (ending.final === "completed" && isProvenVerdict(ending.response?.status ?? null)) {
    after = await ports.races.claimWin(entrant.org_id, raceId, { index, solver: entrant.solver_name, row });
    if (after) after = await stopOthers(ports, after, index);
  }
  after ??= await ports.races.recordEnd(entrant.org_id, raceId, index, row);
  await completeIfEnded(ports, after ?? (await ports.races.get(entrant.org_id, raceId)), ending.sense);
}

/** An entrant's row from how its job ended (a finished row carries an objective only when the gate passed it). */
export function entrantRow(ending: EntrantEnding): EntrantRow {
  const { response, final, reached, timeSeconds } = ending;
  if (final === "cancelled") {
    const incumbent = reached?.incumbent ?? null;
    return {
      state: "cancelled",
      status: incumbent === null ? null : "feasible",
      objective_value: incumbent,
      best_bound: reached?.bound ?? null,
      time_seconds: timeSeconds,
    };
  }
  if (final === "failed" || !response) {
    return { state: "failed", status: "error", objective_value: null, best_bound: null, time_seconds: timeSeconds };
  }
  const verified = response.verification?.status !== "violated";
  return {
    state: "finished",
    status: response.status,
    objective_value: verified ? response.objective_value : null,
    best_bound: response.dual_bound,
    time_seconds: timeSeconds,
  };
}

/** The winner stops every other open entrant; a queued one ends here, so its row is written here too. */
async function stopOthers(ports: RacePorts, race: ExecutionRecord, winner: number): Promise<ExecutionRecord> {
  let latest = race;
  for (const [i, e] of race.race!.entrants.entries()) {
    if (i === winner || !isRunning(e)) continue;
    const stop = await ports.races.stopEntrant(race.org_id, e.execution_id, ports.clock.now());
    if (stop !== "cancelled_queued") continue;
    ports.announceFinal?.(e.execution_id);
    const row: EntrantRow = { state: "cancelled", status: null, objective_value: null, best_bound: null, time_seconds: null };
    latest = (await ports.races.recordEnd(race.org_id, race.id, i, row)) ?? latest;
  }
  return latest;
}

/**
 * Writes the race's answer once no entrant runs: the winner's result (the first proven verdict; else the
 * best that ended; a degraded race's one solver) with the race view as it now stands, execution_id the
 * race's. When every entrant failed the race fails (with the chosen one's result, if any). Only one write succeeds.
 */
export async function completeIfEnded(
  ports: RacePorts,
  race: ExecutionRecord | null,
  sense: "minimize" | "maximize" | undefined,
  /** Why the race failed when it fails (the sweeper's past-deadline end); default: every entrant failed. */
  failure?: string,
): Promise<void> {
  if (!race?.race || race.status !== "running" || race.race.entrants.some(isRunning)) return;
  const view = race.race;
  const claimed = view.entrants.findIndex((e) => e.state === "won");
  const winner = claimed >= 0 ? claimed : bestWhenAllEnded(view.entrants, sense ?? race.race_sense ?? "minimize");
  const decidedBy: NonNullable<RaceView["decided_by"]> = claimed >= 0 ? "proven_verdict" : view.degraded ? "single_solver" : "best_when_all_ended";
  const chosen = view.entrants[winner]!;
  const entrantRecord = await ports.races.get(race.org_id, chosen.execution_id);
  const chosenResult = entrantRecord?.result ? await loadPayload<SolveResponse>(ports.blobs, entrantRecord.result) : null;
  // The chosen entrant failed only when every one did: the race fails, with that entrant's result when it has one.
  const failed = chosen.state === "failed" || !chosenResult;
  const finalView: RaceView = {
    ...view,
    winner: failed ? null : chosen.solver,
    decided_by: decidedBy,
    entrants: view.entrants.map((e, i) => (i === winner && !failed ? { ...e, state: "won" } : e)),
  };
  const nowMs = ports.clock.now();
  const answer: SolveResponse | null = chosenResult ? { ...chosenResult, execution_id: race.id, race: finalView } : null;
  const ref = answer
    ? await storePayload(ports.blobs, blobKeys.executionResult(race.org_id, race.id, randomUUID()), {
        value: answer,
        inlineMaxBytes: ports.config.inlinePayloadMaxBytes,
      })
    : null;
  const errorMessage = failed
    ? (failure ?? `every solver in the race failed${entrantRecord?.error_message ? ` (${chosen.solver}: ${entrantRecord.error_message})` : ""}`)
    : null;
  const status = failed ? "failed" : "completed";
  const done = await ports.races.complete(race.org_id, race.id, { winner, decidedBy, result: ref, solverName: chosen.solver, status, errorMessage, nowMs });
  if (!done) {
    if (ref && "blob" in ref) await deleteStoredBlob(ports.blobs, "results/", ref.blob).catch(() => undefined);
    return;
  }
  ports.announceFinal?.(race.id, { id: race.id, status, result: ref, error_message: errorMessage });
  await ports.raceEnded?.({ ...race, status, result: ref, error_message: errorMessage, solver_name: failed ? race.solver_name : chosen.solver }, answer);
  if (race.notify && ports.notifications) {
    const objective = answer?.objective_value ?? null;
    await ports.notifications
      .notify(race.created_by, {
        type: failed ? "execution_failed" : "execution_complete",
        title: failed ? "Race failed" : `Race won by ${chosen.solver}: ${answer?.status}`,
        message: failed
          ? `${race.problem_name}: ${errorMessage}.`
          : `${race.problem_name}: ${chosen.solver} won (${decidedBy.replaceAll("_", " ")}), ${answer?.status}${objective !== null ? `, objective ${objective}` : ""}.`,
        data: { execution_id: race.id, objective_value: objective },
        link: `/executions/${race.id}`,
      })
      .catch(() => undefined);
  }
}

/** What the sweeper settles races with: its services, the race store among them. */
export type SweeperRaceServices = Pick<RacePorts, "blobs" | "clock" | "config" | "notifications" | "raceEnded"> & {
  raceStore: RaceStorePort;
  logger: Pick<Logger, "warn">;
};

/** The race ports of the sweeper's services. */
export const sweeperRacePorts = (services: SweeperRaceServices): RacePorts => ({
  races: services.raceStore,
  blobs: services.blobs,
  clock: services.clock,
  config: services.config,
  notifications: services.notifications,
  raceEnded: services.raceEnded,
});

/** A race entrant the sweeper failed (its worker died, or it never started): settled like a failed end, never throwing. */
export async function settleSweptEntrant(services: SweeperRaceServices, entrant: ExecutionRecord): Promise<void> {
  const ports = sweeperRacePorts(services);
  await settleEntrant(ports, { entrant, final: "failed", response: null, timeSeconds: 0 }).catch((error: unknown) =>
    services.logger.warn("settling a swept race entrant failed", { error, execution_id: entrant.id }),
  );
}
