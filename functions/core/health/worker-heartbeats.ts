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
}

const KEEP_SECONDS = 86_400;

/** What a worker reports in each beat: its solvers, when it started, and the time now. */
export interface WorkerBeat {
  solvers: InventoryEntry[];
  startedAtMs: number;
  nowMs: number;
}

export class WorkerHeartbeats {
  constructor(private readonly table: Table) {}

  /** Writes (or refreshes) this worker's item; the task role's PutItem is enough. */
  async beat(workerId: string, { solvers, startedAtMs, nowMs }: WorkerBeat): Promise<void> {
    const item: WorkerHeartbeat = {
      worker_id: workerId,
      solvers,
      started_at: isoTime(startedAtMs),
      heartbeat_at: isoTime(nowMs),
      stopped_at: null,
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
    return items.map(({ worker_id, solvers, started_at, heartbeat_at, stopped_at }) => ({
      worker_id,
      solvers,
      started_at,
      heartbeat_at,
      stopped_at: stopped_at ?? null,
    }));
  }
}
