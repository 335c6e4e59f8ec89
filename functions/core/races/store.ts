import type { PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { executionKey, type ExecutionRecord } from "../executions/store.js";
import { fromItem } from "../store/items.js";
import { activeIndex, Leases, withoutUnsetTimes } from "../store/leases.js";
import { and, assign, assignAll, buildUpdate, raceEntrantOpen, raceUndecided, statusIs } from "../store/conditions.js";
import type { Table } from "../store/table.js";
import { RACE_STOPPED_MESSAGE } from "./rules.js";
import type { RaceEntrant, RaceView } from "./schemas.js";

/** The ACTIVE index kind of a race's own record (the sweeper's: sweeper/sweep.ts). */
export const RACE_ACTIVE_KIND = "race";

/** An entrant's row as its end writes it (its solver and execution id stay). */
export type EntrantRow = Omit<RaceEntrant, "solver" | "execution_id">;

/** The first proven verdict's claim: which entrant, its solver (the race's winner) and its row. */
export interface EntrantClaim {
  index: number;
  solver: string;
  row: EntrantRow;
}

/** How the race's answer was chosen, written with it. */
export interface RaceDecision {
  winner: number;
  decidedBy: NonNullable<RaceView["decided_by"]>;
  /** `failed` when every entrant failed (the result is then the chosen entrant's, if it has one). */
  status: "completed" | "failed";
  result: PayloadRef | null;
  errorMessage: string | null;
  solverName: string;
  nowMs: number;
}

/** What stopping one entrant did: ended it before it started, asked its worker to stop, or found it ended. */
export type EntrantStop = "cancelled_queued" | "requested" | "ended";

/**
 * The race's writes (the race is an execution record holding `race`, its entrants are execution records
 * of origin `race`); each is conditioned (store/conditions.ts), so a redelivered job or two entrants
 * ending at once write each row once and decide the race once. The use case (races/settle.ts) sees
 * only this port, so a unit test runs it against an in-memory fake.
 */
export interface RaceStorePort {
  /** The race's own record, new: false when a race with its id exists already (a trigger run's race is keyed by the run). */
  create(record: ExecutionRecord): Promise<boolean>;
  get(orgId: string, raceId: string): Promise<ExecutionRecord | null>;
  /** An entrant's worker took it: its row `running` (only from `queued`). */
  markRunning(orgId: string, raceId: string, index: number): Promise<void>;
  /** The first proven verdict: the row `won` and the race decided; null when another decided it first or the row was written already. */
  claimWin(orgId: string, raceId: string, claim: EntrantClaim): Promise<ExecutionRecord | null>;
  /** An entrant's end (finished, cancelled, failed), once; null when its row was written already. */
  recordEnd(orgId: string, raceId: string, index: number, row: EntrantRow): Promise<ExecutionRecord | null>;
  /** The race's answer, once every entrant has ended: false when another write completed it first. */
  complete(orgId: string, raceId: string, decision: RaceDecision): Promise<boolean>;
  /** Stops a losing entrant: a queued one ends `cancelled` now, a running one gets `cancel_requested` for its worker to see. */
  stopEntrant(orgId: string, entrantId: string, nowMs: number): Promise<EntrantStop>;
  /** Whether someone asked this running execution to stop (its worker's watch, a cheap consistent read). */
  cancelRequested(orgId: string, id: string): Promise<boolean>;
}

const executionOf = (item: Record<string, unknown>): ExecutionRecord => fromItem<ExecutionRecord>(item, { started_at: null, completed_at: null });

export class RaceStore implements RaceStorePort {
  private readonly leases: Leases;
  constructor(private readonly table: Table) {
    this.leases = new Leases(table);
  }

  /**
   * The race's own record, `running` from the start and never queued: no worker leases it (its entrants
   * are the work). It sits in the ACTIVE index under its own kind (`race`) until its answer is written,
   * so the sweeper can settle a race whose settle step was lost (races/sweep.ts); nothing else reads ACTIVE.
   * False when a race with this id exists: a trigger run's race has the run's id (rules.ts raceIdOfRun).
   */
  async create(record: ExecutionRecord): Promise<boolean> {
    return this.table.putNew({
      ...executionKey(record.org_id, record.id),
      ...withoutUnsetTimes(record),
      ...activeIndex(RACE_ACTIVE_KIND, `${record.org_id}#${record.id}`, record.created_at),
    });
  }

  async get(orgId: string, raceId: string): Promise<ExecutionRecord | null> {
    const key = executionKey(orgId, raceId);
    const item = await this.table.get(key.pk, key.sk);
    return item ? executionOf(item) : null;
  }

  async markRunning(orgId: string, raceId: string, index: number): Promise<void> {
    await this.table.update({
      Key: executionKey(orgId, raceId),
      ...buildUpdate({ set: [assign(`race.entrants[${index}].state`, "running")], condition: raceEntrantOpen(index) }),
    });
  }

  async claimWin(orgId: string, raceId: string, { index, solver, row }: EntrantClaim): Promise<ExecutionRecord | null> {
    const item = await this.table.update({
      Key: executionKey(orgId, raceId),
      ...buildUpdate({
        set: [...rowParts(index, { ...row, state: "won" }), assign("race.winner", solver), assign("race.decided_by", "proven_verdict")],
        condition: and(raceUndecided(), raceEntrantOpen(index)),
      }),
    });
    return item ? executionOf(item) : null;
  }

  async recordEnd(orgId: string, raceId: string, index: number, row: EntrantRow): Promise<ExecutionRecord | null> {
    const item = await this.table.update({
      Key: executionKey(orgId, raceId),
      ...buildUpdate({ set: rowParts(index, row), condition: raceEntrantOpen(index) }),
    });
    return item ? executionOf(item) : null;
  }

  async complete(orgId: string, raceId: string, decision: RaceDecision): Promise<boolean> {
    const won = decision.status === "completed";
    const item = await this.table.update({
      Key: executionKey(orgId, raceId),
      ...buildUpdate({
        set: [
          ...assignAll({ status: decision.status, result: decision.result, error_message: decision.errorMessage, completed_at: isoTime(decision.nowMs) }),
          ...(won ? [assign("solver_name", decision.solverName), assign("race.winner", decision.solverName)] : []),
          assign("race.decided_by", decision.decidedBy),
          ...(won ? [assign(`race.entrants[${decision.winner}].state`, "won")] : []),
        ],
        // Out of the ACTIVE index with its answer: the sweeper has nothing more to look at.
        remove: ["gsi1pk", "gsi1sk", "queued_at"],
        condition: statusIs("running"),
      }),
    });
    return item !== null;
  }

  async stopEntrant(orgId: string, entrantId: string, nowMs: number): Promise<EntrantStop> {
    const key = executionKey(orgId, entrantId);
    const ended = await this.leases.finalizeUnheld(key, {
      from: ["queued"],
      status: "cancelled",
      set: { error_message: RACE_STOPPED_MESSAGE, completed_at: isoTime(nowMs) },
    });
    if (ended) return "cancelled_queued";
    const asked = await this.table.update({
      Key: key,
      ...buildUpdate({ set: [assign("cancel_requested", true), assign("cancel_requested_at", isoTime(nowMs))], condition: statusIs("running") }),
    });
    return asked ? "requested" : "ended";
  }

  async cancelRequested(orgId: string, id: string): Promise<boolean> {
    const key = executionKey(orgId, id);
    const item = await this.table.getAttributes<{ cancel_requested?: boolean }>(key.pk, key.sk, ["cancel_requested"]);
    return item?.cancel_requested === true;
  }
}

/** SET parts writing one entrant's row (every field but its solver and execution id). */
function rowParts(index: number, row: EntrantRow) {
  return Object.entries(row).map(([field, value]) => assign(`race.entrants[${index}].${field}`, value));
}
