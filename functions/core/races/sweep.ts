import { loadPayload } from "../blob/blob-store.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { ExecutionRecord } from "../executions/store.js";
import { isRunning, raceDeadlineMs, type RaceWaits } from "./rules.js";
import { completeIfEnded, type EntrantEnding, type RacePorts, settleEntrant } from "./settle.js";
import type { EntrantRow } from "./store.js";

/** What a sweep found a race to be: answered by this sweep, ended at its deadline by it, still running, or ended already. */
export type RaceSweep = "settled" | "ended_past_deadline" | "running" | "ended";

/**
 * The sweeper's pass over a race still `running` (its record sits in the ACTIVE index from its launch to
 * its answer: races/store.ts). A race ends when its last entrant's settle step writes the answer; a step
 * that was lost (the worker died between its execution's final write and the race's, or between the
 * last row and the answer) would leave it `running` forever. So:
 *  - an entrant whose execution has ended but whose row is still open is settled from its execution's
 *    record, as its worker would have (a proven verdict still claims the win);
 *  - a race with no open row left gets its answer written;
 *  - a race still open past its deadline (rules.ts raceDeadlineMs) has its open entrants stopped and
 *    their rows written `failed`, then ends with what the others reached (or fails).
 * A race with an entrant still running, before its deadline, is left alone. Every write is the live
 * settle step's own conditioned write (a row once, the answer once: store.ts), so a sweep that meets a
 * live settle writes nothing twice and never changes what the live one wrote.
 */
export async function sweepRace(ports: RacePorts, { orgId, raceId, waits }: { orgId: string; raceId: string; waits: RaceWaits }): Promise<RaceSweep> {
  const race = await ports.races.get(orgId, raceId);
  if (!race?.race || race.status !== "running") return "ended";
  for (const row of race.race.entrants.filter(isRunning)) {
    const entrant = await ports.races.get(orgId, row.execution_id);
    if (entrant && isEnded(entrant)) await settleEntrant(ports, await endingOf(ports, entrant));
  }
  await completeIfEnded(ports, await ports.races.get(orgId, raceId), undefined);
  const settled = await ports.races.get(orgId, raceId);
  if (settled?.status !== "running") return "settled";
  const nowMs = ports.clock.now();
  if (nowMs <= raceDeadlineMs(settled, waits)) return "running";
  await endOpenEntrants(ports, settled, nowMs);
  const deadline = new Date(raceDeadlineMs(settled, waits)).toISOString();
  await completeIfEnded(ports, await ports.races.get(orgId, raceId), undefined, `the race was still open at its deadline (${deadline}): no entrant answered`);
  return (await ports.races.get(orgId, raceId))?.status === "running" ? "running" : "ended_past_deadline";
}

const isEnded = (e: ExecutionRecord): e is ExecutionRecord & { status: EntrantEnding["final"] } =>
  e.status === "completed" || e.status === "failed" || e.status === "cancelled";

/** How an ended entrant's job ended, read back from its execution: its result, and for a stopped one what that result says it reached. */
async function endingOf(ports: RacePorts, entrant: ExecutionRecord & { status: EntrantEnding["final"] }): Promise<EntrantEnding> {
  const response = entrant.result ? await loadPayload<SolveResponse>(ports.blobs, entrant.result) : null;
  const started = entrant.started_at ? Date.parse(entrant.started_at) : null;
  const ended = entrant.completed_at ? Date.parse(entrant.completed_at) : null;
  return {
    entrant,
    final: entrant.status,
    response,
    reached: entrant.status === "cancelled" ? { incumbent: response?.objective_value ?? null, bound: response?.dual_bound ?? null } : undefined,
    timeSeconds: started !== null && ended !== null ? Math.max(0, ended - started) / 1000 : 0,
  };
}

/** Past the deadline: every open entrant is stopped (a queued one ends now, a running one is asked to) and its row written `failed`. */
async function endOpenEntrants(ports: RacePorts, race: ExecutionRecord, nowMs: number): Promise<void> {
  for (const [i, row] of race.race!.entrants.entries()) {
    if (!isRunning(row)) continue;
    const stop = await ports.races.stopEntrant(race.org_id, row.execution_id, nowMs);
    if (stop === "cancelled_queued") ports.announceFinal?.(row.execution_id);
    const failed: EntrantRow = { state: "failed", status: "error", objective_value: null, best_bound: null, time_seconds: null };
    await ports.races.recordEnd(race.org_id, race.id, i, failed);
  }
}
