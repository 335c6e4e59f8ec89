import { epochSeconds } from "../clock.js";
import { and, assign, atMost, attribute, attributeNotExists, buildUpdate, increment, or, type Part } from "../store/conditions.js";
import type { Table } from "../store/table.js";
import { keys } from "../store/keys.js";

/**
 * Fixed-window counters kept in DynamoDB so limits hold across Lambda instances.
 *
 * One item per scope and period of the longest window (e.g. one UTC day); each window is an attribute
 * of that item (`w86400_0`, `w60_1337`, …). Consuming is ONE conditional UpdateItem: `ADD` every
 * window's counter, on condition that each is still under its limit. No read-modify-write, no
 * transaction. The item expires (ttl) after its period.
 */
export interface WindowSpec {
  /** Unique within one consume call; also the policy name in the IETF RateLimit headers. */
  name: string;
  seconds: number;
  /** 0 = unlimited: counted, never refused. */
  limit: number;
}

export interface WindowState {
  name: string;
  seconds: number;
  limit: number;
  count: number;
  remaining: number;
  /** Unix seconds when this window resets. */
  resetAt: number;
}

export interface ConsumeResult {
  allowed: boolean;
  windows: WindowState[];
}

function windowAttribute(w: WindowSpec, nowMs: number): { attr: string; resetAt: number } {
  const index = Math.floor(nowMs / 1000 / w.seconds);
  return { attr: `${w.name}_${index}`, resetAt: (index + 1) * w.seconds };
}

/** The window's counter is at most `max` before this hit (no counter yet: nothing counted). */
const windowHasRoom = (name: string, max: number): Part => or(attributeNotExists(attribute(name)), atMost(attribute(name), max));

export class CounterStore {
  constructor(private readonly table: Table) {}

  /**
   * Counts one hit against every window of `scope`, or none when any limited window is full.
   * Returns the windows' states for the response headers.
   */
  async consume(scope: string, { windows, nowMs, amount = 1 }: { windows: WindowSpec[]; nowMs: number; amount?: number }): Promise<ConsumeResult> {
    const longest = windows.reduce((a, b) => (b.seconds > a.seconds ? b : a));
    const period = Math.floor(nowMs / 1000 / longest.seconds);
    const key = keys.limit.key(scope, longest.seconds, period);
    const attrs = windows.map((w) => ({ ...windowAttribute(w, nowMs), spec: w }));

    const limited = attrs.filter((a) => a.spec.limit > 0);
    const updated = await this.table.update<Record<string, number>>({
      Key: key,
      ...buildUpdate({
        set: [assign("ttl", (period + 1) * longest.seconds + 3600)],
        add: attrs.map((a) => increment(attribute(a.attr), amount)),
        // Parentheses only where two windows are limited (`and` adds them around each `or`): the local
        // emulator's parser pays ~3 ms for a parenthesised condition, on every solve's admission (the
        // daily quota limits one window).
        condition: limited.length ? and(...limited.map((a) => windowHasRoom(a.attr, a.spec.limit - amount))) : undefined,
      }),
    });
    // Refused: read the counters once (only on this path) so the 429 can say where they stand.
    const counts = updated ?? (await this.table.get<Record<string, number>>(key.pk, key.sk)) ?? {};
    return {
      allowed: updated !== null,
      windows: attrs.map((a) => {
        const count = Number(counts[a.attr] ?? 0);
        return {
          name: a.spec.name,
          seconds: a.spec.seconds,
          limit: a.spec.limit,
          count,
          remaining: a.spec.limit > 0 ? Math.max(0, a.spec.limit - count) : Number.POSITIVE_INFINITY,
          resetAt: a.resetAt,
        };
      }),
    };
  }

  /** Today's (UTC) count of a one-window daily counter named `name`, without changing it. */
  async dailyCount(scope: string, name: string, nowMs: number): Promise<number> {
    const day = Math.floor(nowMs / 86_400_000);
    const key = keys.limit.key(scope, 86400, day);
    const item = await this.table.get<Record<string, number>>(key.pk, key.sk);
    return Number(item?.[`${name}_${day}`] ?? 0);
  }
}

/** The window that binds first: the fewest remaining, the shorter on a tie. */
export function bindingWindow(windows: WindowState[]): WindowState | null {
  const limited = windows.filter((w) => w.limit > 0);
  if (limited.length === 0) return null;
  return limited.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.seconds < a.seconds) ? b : a));
}

export const ttlFromNow = (nowMs: number, seconds: number): number => epochSeconds(nowMs) + seconds;
