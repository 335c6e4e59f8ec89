import type { Hono } from "hono";
import { z } from "zod";
import { ROLES } from "../../core/auth/roles.js";
import { forbidden, notFound } from "../../core/errors.js";
import { assertAllowed, rateLimitHeaders } from "../../core/limits/rate-limits.js";
import { normalizeEmail } from "../../core/store/identity.js";
import type { ApiEnv } from "../http/context.js";
import { requirePrincipal, requireRole, route } from "../http/route.js";

const Email = z.email().max(254);
const Password = z.string().min(8, "at least 8 characters").max(256);

export const LoginRequest = z.object({ email: Email, password: z.string().min(1).max(256) });
export const LoginResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
  expires_at: z.string(),
  expires_in: z.number().int(),
});
export const SignupRequest = z.object({
  organization_name: z.string().min(1).max(200),
  email: Email,
  password: Password,
  name: z.string().max(200).optional(),
});
export const UserSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  created_at: z.string(),
});
const Accepted = z.object({ status: z.literal("accepted"), detail: z.string() });

const userView = (u: { id: string; org_id: string; email: string; name: string; role: (typeof ROLES)[number]; created_at: string }) => ({
  id: u.id,
  organization_id: u.org_id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: u.created_at,
});

export function registerAuthRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/login",
      operationId: "login",
      summary: "Sign in with e-mail and password; returns a session JWT",
      description: "Limited per client IP (AUTH_LOGIN_RATE_LIMIT_*) and per e-mail address (AUTH_LOGIN_PER_EMAIL_RATE_LIMIT_*).",
      tag: "Auth",
      access: "public",
      body: LoginRequest,
      responses: { 200: { description: "A bearer token for the API.", schema: LoginResponse }, 401: { description: "Wrong e-mail or password." } },
    },
    async (c, { body }) => {
      const deps = c.get("deps");
      const now = deps.clock.now();
      const byIp = await deps.limiter.signIn(deps.clientIp(c), now);
      c.set("rateLimitHeaders", rateLimitHeaders(byIp, now));
      assertAllowed(byIp, now, "sign-in attempts");
      const byEmail = await deps.limiter.signInForEmail(normalizeEmail(body.email), now);
      assertAllowed(byEmail, now, "sign-in attempts for this account");
      return c.json(await deps.auth.login(body.email, body.password));
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/signup",
      operationId: "signup",
      summary: "Create an organization and its owner",
      tag: "Auth",
      access: "public",
      body: SignupRequest,
      responses: { 201: { description: "The new owner.", schema: UserSchema }, 409: { description: "E-mail address taken." } },
    },
    async (c, { body }) => {
      const deps = c.get("deps");
      const now = deps.clock.now();
      const limit = await deps.limiter.signUp(deps.clientIp(c), now);
      c.set("rateLimitHeaders", rateLimitHeaders(limit, now));
      assertAllowed(limit, now, "sign-ups");
      const { user } = await deps.auth.createOrganizationWithOwner({
        orgName: body.organization_name,
        email: body.email,
        password: body.password,
        name: body.name,
      });
      return c.json(userView(user), 201);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/password-reset",
      operationId: "passwordReset",
      summary: "Ask for a password-reset token",
      description: "Always 202, whether or not the address exists. The token expires and is usable once.",
      tag: "Auth",
      access: "public",
      body: z.object({ email: Email }),
      responses: { 202: { description: "Accepted.", schema: Accepted } },
    },
    async (c, { body }) => {
      const deps = c.get("deps");
      const now = deps.clock.now();
      const email = normalizeEmail(body.email);
      const limit = await deps.limiter.passwordReset(email, now);
      c.set("rateLimitHeaders", rateLimitHeaders(limit, now));
      assertAllowed(limit, now, "password-reset requests for this address");
      await deps.auth.requestPasswordReset(email, (to, token) =>
        deps.mailbox(to, "Incumbent password reset", `Use this token with POST /api/v2/auth/password-reset/confirm: ${token}`),
      );
      return c.json({ status: "accepted" as const, detail: "If the address belongs to an account, a reset token has been sent." }, 202);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/password-reset/confirm",
      operationId: "passwordResetConfirm",
      summary: "Set a new password with a reset token",
      tag: "Auth",
      access: "public",
      body: z.object({ token: z.string().min(1).max(200), new_password: Password }),
      responses: {
        200: { description: "Password changed.", schema: z.object({ status: z.literal("password_changed") }) },
        400: { description: "Token invalid, expired or used." },
      },
    },
    async (c, { body }) => {
      await c.get("deps").auth.confirmPasswordReset(body.token, body.new_password);
      return c.json({ status: "password_changed" as const });
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/auth/me",
      operationId: "me",
      summary: "The caller",
      tag: "Auth",
      access: "user",
      responses: { 200: { description: "The authenticated user.", schema: UserSchema.extend({ credential: z.enum(["api_key", "session"]) }) } },
    },
    async (c, input) => {
      const principal = requirePrincipal(input);
      const user = await c.get("deps").identity.getUser(principal.userId);
      if (!user) throw notFound("User");
      return c.json({ ...userView(user), credential: principal.kind });
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/users",
      operationId: "createUser",
      summary: "Add a user to the organization (admin or owner)",
      tag: "Auth",
      access: "user",
      body: z.object({ email: Email, password: Password, name: z.string().max(200).optional(), role: z.enum(ROLES).default("solver") }),
      responses: { 201: { description: "The new user.", schema: UserSchema }, 403: { description: "Caller is not an admin." } },
    },
    async (c, input) => {
      const principal = requireRole(input, "admin", "Only admins and owners add users.");
      if (input.body.role === "owner" && principal.role !== "owner") throw forbidden("Only an owner makes another owner.");
      const user = await c.get("deps").auth.createUser(principal.orgId, input.body);
      return c.json(userView(user), 201);
    },
  );
}
