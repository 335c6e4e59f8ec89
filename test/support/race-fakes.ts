import { newExecutionRecord } from "../../functions/core/executions/records.js";
import type { ExecutionRecord } from "../../functions/core/executions/store.js";
import { lineUp, startingView } from "../../functions/core/races/rules.js";
import type { RaceEntrant } from "../../functions/core/races/schemas.js";
import type { EntrantStop, RaceStorePort } from "../../functions/core/races/store.js";
import type { SolverName } from "../../functions/core/solvers/types.js";
import { type fakeExecutionStore, SMALL_LP } from "./job-fakes.js";

/**
 * An in-memory race store over the fake execution store's items (the race and its entrants are
 * execution records there, as in the table), with races/store.ts's conditions: a row is written once,
 * the race is decided once and completed once.
 */

type Items = ReturnType<typeof fakeExecutionStore>["items"];
type Stored = ExecutionRecord & { cancel_requested?: boolean };

const open = (e: RaceEntrant | undefined) => e?.state === "queued" || e?.state === "running";

export function fakeRaceStore(items: Items): RaceStorePort & { completions: number } {
  const live = (id: string) => items.items.get(id) as Stored | undefined;
  const store = {
    completions: 0,
    /** races/store.ts create: a new race only (a trigger run's race is keyed by the run). */
    async create(record: ExecutionRecord) {
      if (items.items.has(record.id)) return false;
      items.put(record.id, record);
      return true;
    },
    async get(_org: string, id: string) {
      return items.get(id);
    },
    async markRunning(_org: string, raceId: string, index: number) {
      const entrant = live(raceId)?.race?.entrants[index];
      if (entrant?.state === "queued") entrant.state = "running";
    },
    async claimWin(_org: string, raceId: string, { index, solver, row }: { index: number; solver: string; row: Omit<RaceEntrant, "solver" | "execution_id"> }) {
      const race = live(raceId);
      if (race?.status !== "running" || !race.race || race.race.decided_by !== null || !open(race.race.entrants[index])) return null;
      Object.assign(race.race.entrants[index]!, row, { state: "won" });
      Object.assign(race.race, { winner: solver, decided_by: "proven_verdict" });
      return items.get(raceId);
    },
    async recordEnd(_org: string, raceId: string, index: number, row: Omit<RaceEntrant, "solver" | "execution_id">) {
      const race = live(raceId);
      if (!race?.race || !open(race.race.entrants[index])) return null;
      Object.assign(race.race.entrants[index]!, row);
      return items.get(raceId);
    },
    async complete(
      _org: string,
      raceId: string,
      d: {
        winner: number;
        decidedBy: "proven_verdict" | "best_when_all_ended" | "single_solver";
        status: "completed" | "failed";
        result: ExecutionRecord["result"];
        errorMessage: string | null;
        solverName: string;
      },
    ) {
      const race = live(raceId);
      if (race?.status !== "running" || !race.race) return false;
      store.completions++;
      Object.assign(race, { status: d.status, result: d.result, error_message: d.errorMessage, completed_at: "2026-11-01T00:00:00.000Z" });
      race.race.decided_by = d.decidedBy;
      if (d.status === "completed") {
        race.solver_name = d.solverName;
        race.race.winner = d.solverName as SolverName;
        race.race.entrants[d.winner]!.state = "won";
      }
      return true;
    },
    async stopEntrant(_org: string, id: string): Promise<EntrantStop> {
      const entrant = live(id);
      if (entrant?.status === "queued") {
        items.end(id, "cancelled", { error_message: "cancelled: another solver won the race" });
        return "cancelled_queued";
      }
      if (entrant?.status === "running") {
        entrant.cancel_requested = true;
        return "requested";
      }
      return "ended";
    },
    async cancelRequested(_org: string, id: string) {
      return live(id)?.cancel_requested === true;
    },
  };
  return store;
}

const NOW = Date.parse("2026-11-01T00:00:00.000Z");

/**
 * A race `race_1` of SMALL_LP between `solvers` (entrants `exe_<solver>`, queued), put in `items`:
 * what races/launch.ts records, without the admission. `freeWorkers` below 2 makes it degraded; `notify`: an async race;
 * `triggerRun`: a trigger run's race (origin `trigger_run`, its trigger kept).
 */
export function putRace(
  items: Items,
  solvers: SolverName[],
  {
    freeWorkers = solvers.length,
    notify = false,
    triggerRun,
  }: { freeWorkers?: number; notify?: boolean; triggerRun?: { triggerId: string; runId: string } } = {},
): { raceId: string; entrantIds: string[] } {
  const lineup = lineUp(solvers, "LP", freeWorkers);
  const entrantIds = lineup.entrants.map((s) => `exe_${s}`);
  const common = {
    orgId: "org_1",
    createdBy: "usr_1",
    problem: { inline: JSON.stringify(SMALL_LP) },
    problemName: "small",
    stats: { problem_class: "LP" as const, variable_count: 2, constraint_count: 2 },
    settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
    creditsCharged: 1,
    nowMs: NOW,
  };
  const race = newExecutionRecord({
    ...common,
    id: "race_1",
    origin: triggerRun ? { kind: "trigger_run", id: triggerRun.runId } : { kind: notify ? "solve_async" : "solve", id: null },
    notify,
    solverRequested: "race",
    solverName: "race",
    running: true,
  });
  items.put("race_1", { ...race, race: startingView(lineup, entrantIds), ...(triggerRun ? { race_trigger_id: triggerRun.triggerId } : {}) });
  lineup.entrants.forEach((solver, i) =>
    items.put(
      entrantIds[i]!,
      newExecutionRecord({ ...common, id: entrantIds[i]!, origin: { kind: "race", id: "race_1" }, notify: false, solverRequested: "race", solverName: solver }),
    ),
  );
  return { raceId: "race_1", entrantIds };
}
