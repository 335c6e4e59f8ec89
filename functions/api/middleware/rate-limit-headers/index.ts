import type { Context, MiddlewareHandler } from "hono";
import { isAppError, RateLimitError } from "../../../core/errors.js";
import type { RateClass } from "../../../core/limits/rate-limits.js";
import type { ApiEnv } from "../../http/context.js";

export interface RateLimitHeadersOptions {
  /**
   * Counts a response that no window counted (a missing or bad credential, an unknown route, a fire
   * refused before its trigger's window) and returns the window's headers, or throws the 429.
   */
  countUncounted: (c: Context<ApiEnv>) => Promise<void>;
  /** Classes that carry no headers (health). */
  exempt?: RateClass[];
}

/**
 * Puts the rate-limit headers on every response except the exempt classes'. The route's admission
 * kept the state of the window that counted the request; a response nothing counted is counted here,
 * per client IP, and an error response past that window becomes the 429 (an error changed nothing, so
 * answering 429 instead loses nothing).
 */
export function rateLimitHeaders(options: RateLimitHeadersOptions): MiddlewareHandler<ApiEnv> {
  const exempt = new Set<RateClass | undefined>(options.exempt ?? ["exempt"]);
  return async function rateLimitHeaders(c, next) {
    await next();
    if (exempt.has(c.get("rateClass"))) return;
    if (c.get("rateLimitHeaders") === null) {
      try {
        await options.countUncounted(c);
      } catch (error) {
        if (!(isAppError(error) && error instanceof RateLimitError) || c.res.status < 400) throw error;
        c.res = c.json(error.body(), 429, { "Retry-After": String(error.state.retryAfter) });
      }
    }
    for (const [name, value] of Object.entries(c.get("rateLimitHeaders") ?? {})) c.res.headers.set(name, value);
  };
}
