import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError, RateLimitError, isAppError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type { ApiDeps, ApiEnv } from "./http/context.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerCompareRoutes } from "./routes/compare.js";
import { registerCreditGrantRoutes } from "./routes/credit-grants.js";
import { registerCreditRoutes } from "./routes/credits.js";
import { registerDocumentRoutes } from "./routes/documents.js";
import { registerDocsRoutes } from "./routes/docs.js";
import { registerHealthRoutes } from "./routes/health.js";
import { registerImportRoutes } from "./routes/import.js";
import { registerKeyRoutes } from "./routes/keys.js";
import { registerMcpRoutes } from "./routes/mcp.js";
import { registerNotificationRoutes } from "./routes/notifications.js";
import { registerProjectRoutes } from "./routes/projects.js";
import { registerSolveRoutes } from "./routes/solve.js";
import { registerWorkspaceRoutes } from "./routes/workspaces.js";
import { registerTriggerRoutes } from "./routes/triggers.js";

/**
 * The Hono app: the same object serves API Gateway through Lambda and the local stack through
 * @hono/node-server. Middleware here is cross-cutting only (request context, body size, errors,
 * metrics); each area's routes live in routes/<area>.ts.
 */
export function createApp(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });

  app.use("*", async (c, next) => {
    const started = performance.now();
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || newId("req", deps.clock.now());
    c.set("deps", deps);
    c.set("requestId", requestId);
    c.set("principal", null);
    c.set("rateLimitHeaders", {});
    const logger = deps.logger.createChild();
    logger.appendKeys({ request_id: requestId });
    c.set("logger", logger);
    await next();
    for (const [name, value] of Object.entries(c.get("rateLimitHeaders"))) c.res.headers.set(name, value);
    c.res.headers.set("X-Request-Id", requestId);
    const duration = Math.round((performance.now() - started) * 100) / 100;
    deps.metrics.recordRequest({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: duration,
      timestamp: new Date(deps.clock.now()).toISOString(),
    });
    await deps.metrics.maybeFlush();
  });

  if (deps.config.maxRequestBodyMb > 0) {
    app.use(
      "*",
      bodyLimit({
        maxSize: deps.config.maxRequestBodyMb * 1024 * 1024,
        onError: () => {
          throw new AppError("payload_too_large", `Request body is larger than ${deps.config.maxRequestBodyMb} MB.`);
        },
      }),
    );
  }

  app.onError((error, c) => {
    if (isAppError(error)) {
      if (error instanceof RateLimitError) c.header("Retry-After", String(error.state.retryAfter));
      // The unread rest of an oversize body would be taken for the next request on this connection.
      if (error.code === "payload_too_large") c.header("Connection", "close");
      return c.json(error.body(), error.status as 400);
    }
    c.get("logger")?.error("unhandled error", { error });
    const body = new AppError("internal_error", "Unexpected failure; retry after a short delay.").body();
    return c.json(body, 500);
  });

  app.notFound((c) => c.json(new AppError("not_found", `No route ${c.req.method} ${c.req.path}.`).body(), 404));

  registerHealthRoutes(app);
  registerCreditRoutes(app);
  registerAuthRoutes(app);
  registerKeyRoutes(app);
  registerWorkspaceRoutes(app);
  registerSolveRoutes(app);
  registerImportRoutes(app);
  registerNotificationRoutes(app);
  registerProjectRoutes(app);
  registerCompareRoutes(app);
  registerDocumentRoutes(app);
  registerTriggerRoutes(app);
  registerCreditGrantRoutes(app);
  registerMcpRoutes(app);
  registerDocsRoutes(app);
  return app;
}
