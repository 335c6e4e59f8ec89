import type { Logger } from "@aws-lambda-powertools/logger";
import type { MiddlewareHandler } from "hono";
import { withLogContext } from "../../../core/observability/log-context.js";
import type { ApiEnv, RequestDeps } from "../../http/context.js";

export interface RequestContextOptions {
  deps: RequestDeps;
  /** The process logger; each request gets a child carrying its request id. */
  logger: Logger;
  /** A fresh id when the client sent none, or one that is not acceptable. */
  generateId: () => string;
  /** Header read from the client and echoed on the response. */
  headerName?: string;
  /** Longest client id kept (as Hono's request-id middleware). */
  limitLength?: number;
}

/** Characters a client's request id may use (as Hono's request-id middleware: word characters, `-`, `=`). */
const ACCEPTABLE_ID = /^[\w\-=]+$/;

/** The client's request id when it is safe to log and echo: not empty, not too long, plain characters only. */
export function acceptableRequestId(value: string | undefined, limitLength = 255): value is string {
  return value !== undefined && value.length > 0 && value.length <= limitLength && ACCEPTABLE_ID.test(value);
}

/**
 * Sets up what every handler reads from the context: the dependencies admission uses, the request id
 * (the client's when acceptable, else a fresh one; echoed in `X-Request-Id`), a logger tagged with it,
 * and an empty principal and rate-limit state.
 */
export function requestContext(options: RequestContextOptions): MiddlewareHandler<ApiEnv> {
  const headerName = options.headerName ?? "X-Request-Id";
  const limitLength = options.limitLength ?? 255;
  return async function requestContext(c, next) {
    const sent = c.req.header(headerName);
    const requestId = acceptableRequestId(sent, limitLength) ? sent : options.generateId();
    const logger = options.logger.createChild();
    logger.appendKeys({ request_id: requestId });
    c.set("deps", options.deps);
    c.set("requestId", requestId);
    c.set("logger", logger);
    c.set("principal", null);
    c.set("rateClass", undefined);
    c.set("routeTemplate", undefined);
    c.set("rateLimitHeaders", null);
    // Every line logged while serving the request carries its id (and its organization once known).
    await withLogContext({ request_id: requestId }, () => next());
    c.res.headers.set(headerName, requestId);
  };
}
