import { Hono } from "hono";
import { AppError, isAppError, isDependencyUnavailable, RateLimitError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import { traceMark, traceRequest, tracing } from "../core/trace/solve-trace.js";
import { admitAnonymous } from "./http/admission.js";
import type { ApiDeps, ApiEnv } from "./http/context.js";
import { routesOf } from "./http/route.js";
import { metrics } from "./middleware/metrics/index.js";
import { rateLimitHeaders } from "./middleware/rate-limit-headers/index.js";
import { requestContext } from "./middleware/request-context/index.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerCompareRoutes } from "./routes/compare.js";
import { registerConsoleRoutes } from "./routes/console.js";
import { registerCreditGrantRoutes } from "./routes/credit-grants.js";
import { registerOperatorRoutes } from "./routes/operator.js";
import { registerCreditRoutes } from "./routes/credits.js";
import { registerDocsRoutes } from "./routes/docs.js";
import { registerDocumentRoutes } from "./routes/documents.js";
import { registerHealthRoutes } from "./routes/health.js";
import { registerImportRoutes } from "./routes/import.js";
import { registerKeyRoutes } from "./routes/keys.js";
import { registerMcpRoutes } from "./routes/mcp.js";
import { registerNotificationRoutes } from "./routes/notifications.js";
import { registerProgressRoutes } from "./routes/progress.js";
import { registerProjectRoutes } from "./routes/projects.js";
import { registerSolveRoutes } from "./routes/solve.js";
import { registerTriggerRoutes } from "./routes/triggers.js";
import { registerWorkspaceRoutes } from "./routes/workspaces.js";

/** The methods the app's routes take on `path`, for a 405's `Allow` (empty: no route has the path). */
function allowedMethods(app: Hono<ApiEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const spec of routesOf(app)) {
    const pattern = new RegExp(`^${spec.path.replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`);
    if (pattern.test(path)) methods.add(spec.method.toUpperCase());
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

/**
 * The Hono app: the same object serves API Gateway through Lambda and the local stack through
 * @hono/node-server. Middleware here is cross-cutting only (request context, metrics, rate-limit
 * headers); who may call a route and how often is the route's own declaration (http/route.ts), and
 * each area's routes live in routes/<area>.ts with the services they use.
 */
export function createApp(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  // The overhead benchmark's timestamps (SOLVE_TRACE=1): from the request's arrival to its response.
  if (tracing()) {
    app.use("*", (_c, next) =>
      traceRequest(async () => {
        await next();
        traceMark("response_out");
      }),
    );
  }

  app.use("*", requestContext({ deps, logger: deps.logger, generateId: () => newId("req", deps.clock.now()) }));
  app.use("*", metrics({ recorder: deps.metrics, clock: deps.clock, inBackground: deps.inBackground }));
  app.use("*", rateLimitHeaders({ countUncounted: admitAnonymous }));

  app.onError((error, c) => {
    if (isAppError(error)) {
      if (error instanceof RateLimitError) c.header("Retry-After", String(error.state.retryAfter));
      // The unread rest of an oversize body would be taken for the next request on this connection.
      if (error.code === "payload_too_large") c.header("Connection", "close");
      return c.json(error.body(), error.status as 400);
    }
    if (isDependencyUnavailable(error)) {
      c.get("logger")?.warn("a dependency is unavailable", { error });
      return c.json(new AppError("service_unavailable", "A service this request needs is unavailable; retry shortly.").body(), 503);
    }
    c.get("logger")?.error("unhandled error", { error });
    return c.json(new AppError("internal_error", "Unexpected failure; retry after a short delay.").body(), 500);
  });

  app.notFound((c) => {
    const allow = allowedMethods(app, c.req.path);
    if (allow.length > 0) {
      return c.json(new AppError("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}; use ${allow.join(", ")}.`).body(), 405, {
        Allow: allow.join(", "),
      });
    }
    return c.json(new AppError("not_found", `No route ${c.req.method} ${c.req.path}.`).body(), 404);
  });

  registerHealthRoutes(app, deps);
  registerCreditRoutes(app, deps);
  registerAuthRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
  registerSolveRoutes(app, deps);
  registerProgressRoutes(app, deps);
  registerImportRoutes(app, deps);
  registerNotificationRoutes(app, deps);
  registerProjectRoutes(app, deps);
  registerCompareRoutes(app, deps);
  registerDocumentRoutes(app, deps);
  registerTriggerRoutes(app, deps);
  registerCreditGrantRoutes(app, deps);
  registerOperatorRoutes(app, deps);
  registerMcpRoutes(app, deps);
  registerDocsRoutes(app, deps);
  registerConsoleRoutes(app);
  return app;
}
