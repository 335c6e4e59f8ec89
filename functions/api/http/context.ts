import type { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "hono";
import type { Principal } from "../../core/auth/service.js";
import type { Services } from "../../core/services.js";

/** What the Hono app needs from its host (Lambda or the local stack). */
export interface ApiDeps extends Services {
  /** The caller's address as the host sees it (API Gateway's sourceIp, or the socket's peer). */
  clientIp(c: Context<ApiEnv>): string;
  /** Process start, for uptime. */
  startedAtMs: number;
}

export interface ApiEnv {
  Variables: {
    deps: ApiDeps;
    requestId: string;
    logger: Logger;
    principal: Principal | null;
    rateLimitHeaders: Record<string, string>;
  };
}
