import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../../core/errors.js";
import type { ApiEnv } from "./context.js";

/**
 * MAX_REQUEST_BODY_MB (0 = no ceiling), applied after admission so a refused body is counted and
 * answered with the caller's rate-limit headers. The 413 closes the connection (set by the error
 * handler): the unread rest of the body would otherwise be taken for the next request.
 */
export function requestBodyLimit(): MiddlewareHandler<ApiEnv> {
  let limiter: { mb: number; middleware: MiddlewareHandler } | null = null;
  return async (c, next) => {
    const mb = c.get("deps").config.maxRequestBodyMb;
    if (mb <= 0) return next();
    if (limiter?.mb !== mb) {
      limiter = {
        mb,
        middleware: bodyLimit({
          maxSize: mb * 1024 * 1024,
          onError: () => {
            throw new AppError("payload_too_large", `Request body is larger than ${mb} MB.`);
          },
        }),
      };
    }
    return limiter.middleware(c, next);
  };
}
