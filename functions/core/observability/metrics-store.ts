import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { epochSeconds, isoTime } from "../clock.js";
import { newId } from "../ids.js";
import { assignOnce, buildUpdate, increment } from "../store/conditions.js";
import type { Table } from "../store/table.js";
import { keys } from "../store/keys.js";

/**
 * Service-wide request and solve counters. Requests are counted in memory and flushed as one ADD
 * (plus one batch of recent-request items) at most every `flushSeconds`, so the figures are the
 * whole service's while a request pays no extra DynamoDB call on the hot path.
 */
export interface RecentRequest {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  timestamp: string;
}

export interface MetricsTotals {
  start_time: string | null;
  total_requests: number;
  total_successful: number;
  total_failed: number;
  total_solved: number;
  solve_time_ms_sum: number;
}

const KEY = keys.metricsTotals;
const RECENT_PK = keys.recentRequests.partition;

export class MetricsStore {
  constructor(private readonly table: Table) {}

  async addTotals(delta: { requests: number; ok: number; failed: number; solved: number; solveMs: number }, nowMs: number): Promise<void> {
    await this.table.update({
      Key: KEY,
      ...buildUpdate({
        set: [assignOnce("start_time", isoTime(nowMs))],
        add: [
          increment("total_requests", delta.requests),
          increment("total_successful", delta.ok),
          increment("total_failed", delta.failed),
          increment("total_solved", delta.solved),
          increment("solve_time_ms_sum", delta.solveMs),
        ],
      }),
    });
  }

  async addRecent(items: RecentRequest[], keepSeconds: number): Promise<void> {
    for (let i = 0; i < items.length; i += 25) {
      const batch = items.slice(i, i + 25).map((r) => {
        const ms = Date.parse(r.timestamp);
        return { PutRequest: { Item: { pk: RECENT_PK, sk: newId("req", ms), ...r, ttl: epochSeconds(ms) + keepSeconds } } };
      });
      await this.table.doc.send(new BatchWriteCommand({ RequestItems: { [this.table.name]: batch } }));
    }
  }

  async totals(): Promise<MetricsTotals> {
    const item = await this.table.get<Partial<MetricsTotals>>(KEY.pk, KEY.sk);
    return {
      start_time: item?.start_time ?? null,
      total_requests: Number(item?.total_requests ?? 0),
      total_successful: Number(item?.total_successful ?? 0),
      total_failed: Number(item?.total_failed ?? 0),
      total_solved: Number(item?.total_solved ?? 0),
      solve_time_ms_sum: Number(item?.solve_time_ms_sum ?? 0),
    };
  }

  async recent(limit: number): Promise<RecentRequest[]> {
    const items = await this.table.queryPrefix<RecentRequest & { pk: string; sk: string }>(RECENT_PK, keys.recentRequests.prefix, { newestFirst: true, limit });
    return items.map(({ method, path, status, duration_ms, timestamp }) => ({ method, path, status, duration_ms, timestamp }));
  }
}

/** In-process accumulator in front of MetricsStore. */
export class MetricsRecorder {
  private pending = { requests: 0, ok: 0, failed: 0, solved: 0, solveMs: 0 };
  private recentBuffer: RecentRequest[] = [];
  private lastFlush: number;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly store: MetricsStore,
    private readonly options: { flushSeconds: number; recentKept: number; now: () => number },
  ) {
    this.lastFlush = options.now();
  }

  recordRequest(r: RecentRequest): void {
    this.pending.requests++;
    if (r.status < 400) this.pending.ok++;
    else this.pending.failed++;
    this.recentBuffer.push(r);
    if (this.recentBuffer.length > this.options.recentKept) this.recentBuffer.shift();
  }

  recordSolve(solveMs: number): void {
    this.pending.solved++;
    this.pending.solveMs += solveMs;
  }

  /** Flushes when the interval has passed: call after each request. */
  flushIfDue(): Promise<void> {
    return this.flush({ force: false });
  }

  /** Flushes now, after any flush in flight: for a reader of the totals, and at shutdown. */
  flushNow(): Promise<void> {
    return this.flush({ force: true });
  }

  private async flush({ force }: { force: boolean }): Promise<void> {
    // A forced flush (a reader of the totals) also covers what was recorded after a flush in flight
    // began: a long-lived server leaves that flush running in the background.
    if (force && this.flushing) await this.flushing;
    const now = this.options.now();
    if (!force && now - this.lastFlush < this.options.flushSeconds * 1000) return;
    if (this.flushing) return this.flushing;
    const totals = this.pending;
    const recent = this.recentBuffer;
    if (totals.requests === 0 && totals.solved === 0) return;
    this.pending = { requests: 0, ok: 0, failed: 0, solved: 0, solveMs: 0 };
    this.recentBuffer = [];
    this.lastFlush = now;
    this.flushing = (async () => {
      try {
        await this.store.addTotals(totals, now);
        await this.store.addRecent(recent, 86400);
      } catch {
        // Metrics are best effort: a failed flush must never fail a request.
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /** Totals including what has not been flushed yet from this process. */
  unflushed(): Readonly<typeof this.pending> {
    return this.pending;
  }
}
