/**
 * When a failed webhook delivery is tried again. The schedule is one setting, WEBHOOK_RETRY_DELAYS_SECONDS:
 * the n-th entry is the wait after the n-th failed attempt, so there are 1 + entries attempts in all.
 * The default (30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 6 h, 12 h: 9 attempts over ~21.7 h) grows
 * roughly exponentially.
 *
 * Each wait is jittered by ±20 %, so the deliveries of a burst of runs that failed together against
 * one receiver do not come back as a burst. A receiver's `Retry-After` (seconds or an HTTP date)
 * lengthens the wait, never shortens it, and is capped at the schedule's longest step so a receiver
 * cannot park a delivery for weeks.
 */
export const JITTER = 0.2;

/** Seconds a `Retry-After` header asks for, or null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (!Number.isFinite(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The wait in seconds before the attempt after `failedAttempt` (1-based), or null when that was the
 * last one. `random` returns [0, 1) (injected so tests are exact).
 */
export function retryDelaySeconds(
  delays: readonly number[],
  { failedAttempt, retryAfterSeconds, random = Math.random }: { failedAttempt: number; retryAfterSeconds: number | null; random?: () => number },
): number | null {
  const base = delays[failedAttempt - 1];
  if (base === undefined) return null;
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  const cap = Math.max(0, ...delays);
  const asked = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, cap);
  return Math.round(Math.max(jittered, asked) * 1000) / 1000;
}

export const totalAttempts = (delays: readonly number[]): number => 1 + delays.length;
