import { epochSeconds, isoTime } from "../clock.js";
import type { InventoryEntry } from "../solvers/inventory.js";
import type { Table } from "../store/table.js";
import { keys } from "../store/keys.js";

/**
 * What each solver worker tells the API about itself: its solvers (probed at start), when it started,
 * and a heartbeat time refreshed every WORKER_HEARTBEAT_SECONDS. The API's health check reads these
 * instead of loading a solver of its own (the Lambda has none). One item per worker under one
 * partition; a worker that stops cleanly marks its item stopped, one that dies simply stops beating,
 * and the item expires (ttl) a day later so the partition stays small.
 */
export interface WorkerHeartbeat {
  worker_id: string;
  solvers: InventoryEntry[];
  started_at: string;
  heartbeat_at: string;
  stopped_at: string | null;
  /**
   * What the worker is doing: `starting` (written first thing, before its warm-up: it will poll within
   * seconds, but has no inventory yet), `idle` (polling), `busy` (a job in hand). Absent on an item
   * written before the state was kept: read as idle.
   */
  state?: WorkerState;
  /** Since when it is in `state` (a busy worker: since it took its job). */
  state_since?: string;
}

export const WORKER_STATES = ["starting", "idle", "busy"] as const;
export type WorkerState = (typeof WORKER_STATES)[number];

const KEEP_SECONDS = 86_400;

/** What a worker reports in each beat: its solvers, when it started, the time now, and its state and since when. */
export interface WorkerBeat {
  solvers: InventoryEntry[];
  startedAtMs: number;
  nowMs: number;
  state?: WorkerState;
  stateSinceMs?: number;
}

/** A worker counts as live while its last heartbeat is younger than this many intervals. */
export const LIVE_HEARTBEAT_INTERVALS = 3;

/** Beat within the live window and not stopped: running, whatever it is doing. */
export const isLive = (w: WorkerHeartbeat, nowMs: number, heartbeatSeconds: number): boolean =>
  !w.stopped_at && nowMs - Date.parse(w.heartbeat_at) <= LIVE_HEARTBEAT_INTERVALS * heartbeatSeconds * 1000;

/** Live and past its warm-up: it reported its solvers and takes jobs now (health, the API's own solves). */
export const isServing = (w: WorkerHeartbeat, nowMs: number, heartbeatSeconds: number): boolean => isLive(w, nowMs, heartbeatSeconds) && w.state !== "starting";

/**
 * How many workers could start a job now: the live ones without a job in hand (a starting one counts:
 * it polls within seconds), and how many are live at all (none: a fleet at zero tasks, which scales up
 * for queued work — the caller then decides without the count).
 */
export function freeWorkers(workers: readonly WorkerHeartbeat[], nowMs: number, heartbeatSeconds: number): { live: number; free: number } {
  const live = workers.filter((w) => isLive(w, nowMs, heartbeatSeconds));
  return { live: live.length, free: live.filter((w) => w.state !== "busy").length };
}

export class WorkerHeartbeats {
  constructor(private readonly table: Table) {}

  /** Writes (or refreshes) this worker's item, its state included: a change of state is one more beat, never a write of its own kind. */
  async beat(workerId: string, { solvers, startedAtMs, nowMs, state = "idle", stateSinceMs = nowMs }: WorkerBeat): Promise<void> {
    const item: WorkerHeartbeat = {
      worker_id: workerId,
      solvers,
      started_at: isoTime(startedAtMs),
      heartbeat_at: isoTime(nowMs),
      stopped_at: null,
      state,
      state_since: isoTime(stateSinceMs),
    };
    await this.table.put({ ...keys.workerHeartbeat(workerId), ...item, ttl: epochSeconds(nowMs) + KEEP_SECONDS });
  }

  /** A clean stop: the worker no longer counts as live, though its last inventory stays readable. */
  async stopped(workerId: string, { solvers, startedAtMs, nowMs }: WorkerBeat): Promise<void> {
    await this.table.put({
      ...keys.workerHeartbeat(workerId),
      worker_id: workerId,
      solvers,
      started_at: isoTime(startedAtMs),
      heartbeat_at: isoTime(nowMs),
      stopped_at: isoTime(nowMs),
      ttl: epochSeconds(nowMs) + KEEP_SECONDS,
    });
  }

  /** Every worker that reported within the last day, live or not. */
  async list(): Promise<WorkerHeartbeat[]> {
    const items = await this.table.queryAll<WorkerHeartbeat & { pk: string; sk: string }>({
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": keys.workerHeartbeat.partition },
    });
    return items.map(({ worker_id, solvers, started_at, heartbeat_at, stopped_at, state, state_since }) => ({
      worker_id,
      solvers,
      started_at,
      heartbeat_at,
      stopped_at: stopped_at ?? null,
      state: state ?? "idle",
      state_since: state_since ?? heartbeat_at,
    }));
  }
}
