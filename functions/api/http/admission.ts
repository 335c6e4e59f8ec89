import type { Context } from "hono";
import type { Principal } from "../../core/auth/service.js";
import { unauthorized } from "../../core/errors.js";
import { assertAllowed, classifyEndpoint, rateLimitHeaders } from "../../core/limits/rate-limits.js";
import type { ApiEnv } from "./context.js";
import type { RouteSpec } from "./route.js";

/** The bearer credential of `Authorization: Bearer <credential>`, or null. */
export function bearer(c: Context<ApiEnv>): string | null {
  const header = c.req.header("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Who may call a route, and how often: authenticates the credential the route's access names, then
 * counts the request against the organization's (or, for public routes that are limited, the client
 * IP's) windows — one conditional UpdateItem — and keeps the headers for the response.
 */
export async function admit(c: Context<ApiEnv>, spec: RouteSpec): Promise<Principal | null> {
  const deps = c.get("deps");
  const now = deps.clock.now();
  const cls = classifyEndpoint(spec.method.toUpperCase(), c.req.path);
  if (spec.access === "user" || spec.access === "api_key") {
    const principal = await deps.auth.authenticate(bearer(c));
    if (spec.access === "api_key" && principal.kind !== "api_key") {
      throw unauthorized("This endpoint takes an API key, not a session token.");
    }
    c.set("principal", principal);
    c.get("logger").appendKeys({ org_id: principal.orgId, user_id: principal.userId });
    const result = await deps.limiter.forOrganization(principal.orgId, cls, now);
    c.set("rateLimitHeaders", rateLimitHeaders(result, now));
    assertAllowed(result, now);
    return principal;
  }
  if (spec.access === "public" && cls === "credits_calculator") {
    const result = await deps.limiter.forClientIp(deps.clientIp(c), cls, now);
    c.set("rateLimitHeaders", rateLimitHeaders(result, now));
    assertAllowed(result, now);
  }
  return null;
}
