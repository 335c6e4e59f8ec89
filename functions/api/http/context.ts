import type { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "hono";
import type { Principal } from "../../core/auth/service.js";
import type { RateClass } from "../../core/limits/rate-limits.js";
import type { Services } from "../../core/services.js";

/** What the Hono app needs from its host (Lambda or the local stack). */
export interface ApiDeps extends Services {
  /** The caller's address as the host sees it (API Gateway's sourceIp, or the socket's peer). */
  clientIp(c: Context<ApiEnv>): string;
  /** Process start, for uptime. */
  startedAtMs: number;
  /**
   * Runs work that must not delay a response after it (a long-lived server: the local stack). Absent
   * (Lambda), a request awaits such work, since a process frozen after its response would not finish it.
   */
  inBackground?: (work: Promise<unknown>) => void;
}

/** What admission reads on every request (authentication, rate limits, the body ceiling). */
export type RequestDeps = Pick<ApiDeps, "auth" | "limiter" | "clock" | "clientIp" | "config">;

export interface ApiEnv {
  Variables: {
    deps: RequestDeps;
    requestId: string;
    logger: Logger;
    principal: Principal | null;
    /** The matched route's class; unset for a path no route has. */
    rateClass: RateClass | undefined;
    /** The matched route's path template (`/api/v2/keys/:key_id`); unset for a path no route has. */
    routeTemplate: string | undefined;
    /** The headers of the window that counted the request; null until one did (an unlimited window gives none). */
    rateLimitHeaders: Record<string, string> | null;
  };
}
