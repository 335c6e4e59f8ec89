import Table from "cli-table3";
import type { IncumbentClient } from "../client.js";
import { abortablePause } from "../events.js";
import type { ExecutionView, RaceView } from "../types.js";
import { executionSummary, liveOutput, num, solverSeconds } from "./render.js";
import type { Io } from "./solve.js";

const ENDED = new Set<ExecutionView["status"]>(["completed", "failed", "cancelled"]);
const HEAD = ["solver", "state", "verdict", "objective", "bound", "time (s)"];

/** The entrants as a table, the winner marked, then who won, by what rule, and the note when there is one. */
export function raceTable(race: RaceView): string {
  const table = new Table({ head: HEAD, style: { head: [], border: [] } });
  for (const e of race.entrants) {
    table.push([
      e.solver === race.winner ? `${e.solver} *` : e.solver,
      e.state,
      e.status ?? "-",
      num(e.objective_value),
      num(e.best_bound),
      solverSeconds(e.time_seconds),
    ]);
  }
  const lines = [table.toString()];
  if (race.winner) lines.push(`winner: ${race.winner}${race.decided_by ? ` (${race.decided_by.replaceAll("_", " ")})` : ""}`);
  else if (race.entrants.some((e) => e.state === "queued" || e.state === "running")) lines.push("racing…");
  else lines.push("no winner: every entrant failed");
  if (race.note) lines.push(`${race.degraded ? "degraded: " : "note: "}${race.note}`);
  return lines.join("\n");
}

/** A race's summary: the verdict it returns, then every entrant's final row and the winner. */
export function raceSummary(view: ExecutionView): string {
  return view.race ? `${executionSummary(view)}\n${raceTable(view.race)}` : executionSummary(view);
}

/**
 * Follows a race by reading its execution once a second (the race view carries each entrant's last
 * incumbent, bound and state), redrawing the entrants' table until the race has ended. With `json`,
 * each changed race view is a line `{"event":"race","data":…}` and the end is `{"event":"final","data":…}`.
 */
export async function watchRace(
  client: IncumbentClient,
  executionId: string,
  { io, ...options }: { json: boolean; intervalMs?: number; io: Io },
): Promise<ExecutionView> {
  const live = liveOutput(io.err);
  let last = "";
  try {
    for (;;) {
      const view = await client.execution(executionId);
      const frame = view.race ? raceTable(view.race) : `${view.id}  ${view.status}`;
      if (frame !== last) {
        if (options.json && view.race && !ENDED.has(view.status)) io.out.write(`${JSON.stringify({ event: "race", data: view.race })}\n`);
        live.update(`${view.id}  ${view.status}\n${frame}`, { force: true });
        last = frame;
      }
      if (ENDED.has(view.status)) {
        if (options.json) io.out.write(`${JSON.stringify({ event: "final", data: view })}\n`);
        return view;
      }
      await abortablePause(options.intervalMs ?? 1000);
    }
  } finally {
    live.done({ clear: true });
  }
}
