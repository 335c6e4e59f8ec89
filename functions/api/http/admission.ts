import { addLogContext } from "../../core/observability/log-context.js";
import type { Context, MiddlewareHandler } from "hono";
import { roleAtLeast } from "../../core/auth/roles.js";
import { normalizeEmail } from "../../core/auth/email.js";
import type { Principal } from "../../core/auth/service.js";
import { AppError, forbidden, unauthorized } from "../../core/errors.js";
import { assertAllowed, RATE_CLASSES, type RateClass, rateClassWhat, rateLimitHeaders } from "../../core/limits/rate-limits.js";
import type { ConsumeResult } from "../../core/limits/counters.js";
import type { ApiEnv } from "./context.js";
import type { RouteSpec } from "./route.js";

/** The bearer credential of `Authorization: Bearer <credential>`, or null. */
export function bearer(c: Context<ApiEnv>): string | null {
  const header = c.req.header("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Keeps a window's state for the response headers; refuses (429) when it is full. */
export function observeWindow(
  c: Context<ApiEnv>,
  { result, nowMs, what, amount = 1 }: { result: ConsumeResult; nowMs: number; what?: string; amount?: number },
): void {
  c.set("rateLimitHeaders", rateLimitHeaders(result, nowMs));
  assertAllowed(result, { nowMs, what, amount });
}

/**
 * Counts a request no organization can be charged for (no or a bad credential, an unknown route) against
 * its client IP's window, so it carries the rate-limit headers and guessing is bounded; 429 when full.
 */
export async function admitAnonymous(c: Context<ApiEnv>): Promise<void> {
  const deps = c.get("deps");
  const now = deps.clock.now();
  const result = await deps.limiter.consume("anonymous", { subject: deps.clientIp(c), nowMs: now });
  if (result) observeWindow(c, { result, nowMs: now });
}

async function authenticate(c: Context<ApiEnv>, spec: RouteSpec): Promise<Principal> {
  const deps = c.get("deps");
  const principal = await deps.auth.authenticate(bearer(c));
  if (spec.access === "api_key" && principal.kind !== "api_key") throw unauthorized("This endpoint takes an API key, not a session token.");
  return principal;
}

/**
 * The instance operator's token, or nothing: an organization member's valid credential is 403 (no
 * role of an organization reaches an operator's act), anything else 401.
 */
async function authenticateOperator(c: Context<ApiEnv>): Promise<void> {
  const deps = c.get("deps");
  const credential = bearer(c);
  if (deps.auth.isOperator(credential)) return;
  const member = await deps.auth.authenticate(credential).catch(() => null);
  if (member) throw forbidden("This is an instance operator's act (the operator's token); no organization role may do it.");
  throw unauthorized("This operation takes the instance operator's token.");
}

const isJson = (type: string): boolean => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type);

/** 415 for a body whose declared type the route does not take (a JSON route: JSON; an upload: its types). */
function assertContentType(c: Context<ApiEnv>, spec: RouteSpec): void {
  const type = c.req.header("content-type");
  if (!type || c.req.method === "GET" || c.req.method === "HEAD") return;
  if (spec.body && !isJson(type)) {
    throw new AppError("unsupported_media_type", `This operation takes application/json, not ${type.split(";")[0]}.`);
  }
  if (spec.rawBody && !spec.rawBody.contentTypes.some((t) => type.toLowerCase().startsWith(t))) {
    throw new AppError("unsupported_media_type", `This operation takes ${spec.rawBody.contentTypes.join(", ")}, not ${type.split(";")[0]}.`);
  }
}

/**
 * Who may call a route, and how often, as its declaration says: authenticates the credential its access
 * names, counts the request against its rate class (one conditional UpdateItem; the headers are kept
 * for the response) — a class counted per e-mail address counts the client IP here, the address once
 * the body is read — checks the role, then the body's media type. Nothing here reads the body.
 */
export async function admit(c: Context<ApiEnv>, spec: RouteSpec): Promise<Principal | null> {
  const deps = c.get("deps");
  c.set("rateClass", spec.rateClass);
  c.set("routeTemplate", spec.path);
  if (spec.access === "operator") await authenticateOperator(c);
  const principal = spec.access === "user" || spec.access === "api_key" ? await authenticate(c, spec) : null;
  if (principal) {
    c.set("principal", principal);
    c.get("logger").appendKeys({ org_id: principal.orgId, user_id: principal.userId });
    addLogContext({ org_id: principal.orgId, user_id: principal.userId });
  }
  const scope = RATE_CLASSES[spec.rateClass].scope;
  const subject = scope === "organization" ? principal?.orgId : scope === "client_ip" ? deps.clientIp(c) : undefined;
  if (subject !== undefined) {
    const now = deps.clock.now();
    const result = await deps.limiter.consume(spec.rateClass, { subject, nowMs: now });
    if (result) observeWindow(c, { result, nowMs: now, what: rateClassWhat(spec.rateClass) });
  } else if (scope === "email") {
    // The address is in the body, which is not read yet: the client IP is known, and counted first
    // (as any request no organization is charged for), so a flood of bodies costs no parsing past it.
    await admitAnonymous(c);
  }
  if (principal) assertRole(principal, spec);
  assertContentType(c, spec);
  return principal;
}

/** The role check of a declaration, for a caller already authenticated (a tool call inside the MCP route). */
export function assertRole(principal: Principal, spec: Pick<RouteSpec, "role">): void {
  if (spec.role !== null && !roleAtLeast(principal.role, spec.role)) {
    throw forbidden(`This operation needs the ${spec.role} role; the caller is ${principal.role}.`);
  }
}

/** The route's admission as middleware (the first handler of every declared route). */
export const admission =
  (spec: RouteSpec): MiddlewareHandler<ApiEnv> =>
  async (c, next) => {
    await admit(c, spec);
    await next();
  };

/** Windows keyed by what the body says (sign-in's per-account window, password reset per address). */
export async function admitInput(c: Context<ApiEnv>, spec: RouteSpec, body: unknown): Promise<void> {
  const email = (body as { email?: unknown } | undefined)?.email;
  if (typeof email !== "string") return;
  const deps = c.get("deps");
  const now = deps.clock.now();
  const cls: RateClass = spec.rateClass;
  if (cls === "sign_in")
    assertAllowed(await deps.limiter.signInForAccountFrom(normalizeEmail(email), deps.clientIp(c), now), {
      nowMs: now,
      what: "sign-in attempts for this account from this address",
    });
  if (RATE_CLASSES[cls].scope === "email") {
    const result = await deps.limiter.consume(cls, { subject: normalizeEmail(email), nowMs: now });
    if (result) observeWindow(c, { result, nowMs: now, what: rateClassWhat(cls) });
  }
}
