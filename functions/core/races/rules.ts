import { derivedId, idTime } from "../ids.js";
import type { ProblemClass } from "../problem/schema.js";
import { pickAuto, unsupportedReason } from "../solvers/registry.js";
import { SOLVER_NAMES, type SolverName, type SolverStatus, type UnsupportedReason } from "../solvers/types.js";
import type { RaceEntrant, RaceView } from "./schemas.js";

/**
 * The race's rules (issue 29), pure so that a unit test reads them without a store: who may enter, how
 * many run given the free workers, what wins, and what the race answers when nobody proved a verdict.
 */

/** What a stopped entrant's execution and result say. */
export const RACE_STOPPED_MESSAGE = "cancelled: another solver won the race";

/**
 * The id of the race a trigger run launches: one per run, whichever worker launches it. A run handed back
 * by a stopping worker between the race's launch and the hand-off is taken by another worker, whose launch
 * then finds this race and hands the run to it instead of launching (and charging) a second one
 * (races/launch.ts). The time part is the run's, so the id sorts with the run's other work.
 */
export const raceIdOfRun = (runId: string): string => derivedId("exe", idTime(runId), `race:${runId}`);

/** The verdicts that end a race at once: a gate-verified proof, nothing left to search. */
const PROVEN: ReadonlySet<SolverStatus> = new Set(["optimal", "infeasible", "unbounded"]);
export const isProvenVerdict = (status: SolverStatus | null): boolean => status !== null && PROVEN.has(status);

/** Who enters: the solvers asked for (each must run the class), else every available one that can. */
export function raceSolvers(
  requested: readonly SolverName[] | undefined,
  cls: ProblemClass,
  available: ReadonlySet<string>,
): { solvers: SolverName[]; refused: Record<string, UnsupportedReason> } {
  const refused: Record<string, UnsupportedReason> = {};
  const solvers: SolverName[] = [];
  for (const name of requested ?? SOLVER_NAMES) {
    const reason = unsupportedReason(name, cls, available);
    if (reason) refused[name] = reason;
    else solvers.push(name);
  }
  return { solvers, refused };
}

/** What a race runs after counting free workers: its entrants, best first, or one solver when fewer than two can run at once. */
export interface RaceLineup {
  entrants: SolverName[];
  degraded: boolean;
  note: string | null;
}

/**
 * Entrants = min(solvers, free workers), the preferred solver for the class first (pickAuto's order, the
 * rest as listed), so a race cut short keeps the likeliest winner. Fewer than two free: the race degrades
 * to the best single choice among its solvers, and says why.
 */
export function lineUp(solvers: readonly SolverName[], cls: ProblemClass, freeWorkers: number): RaceLineup {
  const best = pickAuto(cls, new Set(solvers)) ?? solvers[0]!;
  const ordered = [best, ...solvers.filter((s) => s !== best)];
  if (ordered.length < 2) {
    return { entrants: ordered, degraded: true, note: `only ${best} can run this ${cls} problem: it ran alone` };
  }
  if (freeWorkers < 2) {
    const free = freeWorkers <= 0 ? "no worker was free" : "only one worker was free";
    return { entrants: [best], degraded: true, note: `${free} to race ${ordered.length} solvers: ${best}, the best single choice for ${cls}, ran alone` };
  }
  const entrants = ordered.slice(0, freeWorkers);
  const left = ordered.slice(freeWorkers);
  const note = left.length > 0 ? `${freeWorkers} workers were free: ${left.join(", ")} did not enter` : null;
  return { entrants, degraded: false, note };
}

/** An entrant's row when it ended or was stopped. */
export interface EntrantEnd {
  state: Extract<RaceEntrant["state"], "finished" | "cancelled" | "failed">;
  status: SolverStatus | null;
  objective_value: number | null;
  best_bound: number | null;
  time_seconds: number | null;
}

/** Still in the race: neither ended nor stopped. */
export const isRunning = (entrant: Pick<RaceEntrant, "state">): boolean => entrant.state === "queued" || entrant.state === "running";

/**
 * When nobody proved a verdict and every entrant has ended: the index of the best answer among those that
 * finished on their own (a finished row carries an objective only when the gate verified it), by the
 * problem's sense; without one, the first that finished without an error, else the first entrant.
 */
export function bestWhenAllEnded(entrants: readonly RaceEntrant[], sense: "minimize" | "maximize"): number {
  const sign = sense === "maximize" ? -1 : 1;
  let best = -1;
  for (const [i, e] of entrants.entries()) {
    if (e.state !== "finished" || e.objective_value === null) continue;
    if (best < 0 || sign * e.objective_value < sign * entrants[best]!.objective_value!) best = i;
  }
  if (best >= 0) return best;
  const ended = entrants.findIndex((e) => e.state === "finished" && e.status !== "error");
  return Math.max(ended, 0);
}

/** The race view the launch records: every entrant queued. */
export function startingView(lineup: RaceLineup, executionIds: readonly string[]): RaceView {
  return {
    winner: null,
    decided_by: null,
    degraded: lineup.degraded,
    note: lineup.note,
    entrants: lineup.entrants.map((solver, i) => ({
      solver,
      execution_id: executionIds[i]!,
      state: "queued",
      status: null,
      objective_value: null,
      best_bound: null,
      time_seconds: null,
    })),
  };
}

/** What bounds how long a live race's entrants may take: the waits the sweeper itself allows (config). */
export interface RaceWaits {
  /** A queued entrant no worker took within this is failed by the sweeper. */
  staleQueuedSeconds: number;
  /** A running entrant whose worker died is failed this long after its last renewal. */
  jobLeaseSeconds: number;
  /** How often the sweeper looks. */
  sweepIntervalSeconds: number;
}

/**
 * When the sweeper may end a race that is still open: its creation plus every wait a live entrant can
 * take — queued until the sweeper would call it lost, then its time limit, then a dead worker's lease
 * running out twice over, and one sweep between. An entrant still open after that is lost in a way the
 * sweeper cannot see through it (its record was never written, or it is parked for longer than a
 * queued job may wait), so the race ends with what its entrants reached.
 */
export function raceDeadlineMs(race: { created_at: string; settings: { time_limit_seconds: number } }, waits: RaceWaits): number {
  const seconds = waits.staleQueuedSeconds + race.settings.time_limit_seconds + 2 * waits.jobLeaseSeconds + waits.sweepIntervalSeconds;
  return Date.parse(race.created_at) + seconds * 1000;
}
