import type { Hono } from "hono";
import { z } from "zod";
import { EmailSchema as Email } from "../../core/auth/email.js";
import { ROLES } from "../../core/auth/roles.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { ApiKeySchema } from "../../core/auth/schemas.js";
import { UserIdParams, UserKeyIdParams } from "../http/route-parts.js";
import { SCHEMA_NAMES } from "../../core/schema-names.js";

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
SCHEMA_NAMES.add(UserSchema, { id: "User" });
const Accepted = z.object({ status: z.literal("accepted"), detail: z.string() });

export const userView = (u: { id: string; org_id: string; email: string; name: string; role: (typeof ROLES)[number]; created_at: string }) => ({
  id: u.id,
  organization_id: u.org_id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: u.created_at,
});

export function registerAuthRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "auth" | "enrolment" | "mailbox">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/login",
      operationId: "login",
      summary: "Sign in with e-mail and password; returns a session JWT",
      description:
        "Limited per client IP (AUTH_LOGIN_RATE_LIMIT_*) and per e-mail address and client IP together (AUTH_LOGIN_PER_EMAIL_RATE_LIMIT_*: a stranger's failures do not lock the account's owner out). A session ends at its expiry, or at once when the user's password is reset or their role changes.",
      tag: "Auth",
      access: "public",
      role: null,
      rateClass: "sign_in",
      errors: ["unauthorized"],
      body: LoginRequest,
      responses: { 200: { description: "A bearer token for the API.", schema: LoginResponse } },
    },
    async (c, { body }) => c.json(await deps.auth.login(body.email, body.password)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/signup",
      operationId: "signup",
      summary: "Ask to create an organization and its owner; a token to confirm it is mailed to the address",
      description:
        "Always 202, whether or not the address has an account, with the same work either way: a free address is mailed a token for POST /api/v2/auth/signup/confirm; a taken one a notice that its account exists. Addresses are compared in NFKC, case-folded.",
      tag: "Auth",
      access: "public",
      role: null,
      rateClass: "sign_up",
      errors: [],
      body: SignupRequest,
      responses: { 202: { description: "Accepted.", schema: Accepted } },
    },
    async (c, { body }) => {
      await deps.enrolment.requestSignup({ organizationName: body.organization_name, email: body.email, password: body.password, name: body.name });
      return c.json({ status: "accepted" as const, detail: "Check the address's mailbox to confirm the sign-up." }, 202);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/signup/confirm",
      operationId: "signupConfirm",
      summary: "Confirm a sign-up with its mailed token: the organization and its owner are made",
      description: "The token is usable once and expires after ENROLMENT_TTL_SECONDS. Sign in with the address and the password given at sign-up.",
      tag: "Auth",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: ["bad_request", "conflict"],
      body: z.object({ token: z.string().min(1).max(200) }),
      responses: { 201: { description: "The new owner.", schema: UserSchema } },
    },
    async (c, { body }) => c.json(userView(await deps.enrolment.confirmSignup(body.token)), 201),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/auth/invitations/accept",
      operationId: "acceptInvitation",
      summary: "Accept an invitation with its mailed token and a password: the user is made",
      description: "The token is usable once and expires after ENROLMENT_TTL_SECONDS.",
      tag: "Auth",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: ["bad_request", "conflict"],
      body: z.object({ token: z.string().min(1).max(200), password: Password, name: z.string().max(200).optional() }),
      responses: { 201: { description: "The new user.", schema: UserSchema } },
    },
    async (c, { body }) => c.json(userView(await deps.enrolment.acceptInvitation(body.token, body.password, body.name)), 201),
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
      role: null,
      rateClass: "password_reset",
      errors: [],
      body: z.object({ email: Email }),
      responses: { 202: { description: "Accepted.", schema: Accepted } },
    },
    async (c, { body }) => {
      await deps.auth.requestPasswordReset(body.email, (to, token) =>
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
      summary: "Set a new password with a reset token; the user's sessions end",
      tag: "Auth",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: ["bad_request"],
      body: z.object({ token: z.string().min(1).max(200), new_password: Password }),
      responses: { 200: { description: "Password changed.", schema: z.object({ status: z.literal("password_changed") }) } },
    },
    async (c, { body }) => {
      await deps.auth.confirmPasswordReset(body.token, body.new_password);
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
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      responses: { 200: { description: "The authenticated user.", schema: UserSchema.extend({ credential: z.enum(["api_key", "session"]) }) } },
    },
    async (c, { principal }) => c.json({ ...userView(await deps.auth.user(principal)), credential: principal.kind }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/users",
      operationId: "createUser",
      summary: "Invite a user to the organization (admin or owner; only an owner invites an owner)",
      description:
        "Always 202, whether or not the address has an account: a free address is mailed a token for POST /api/v2/auth/invitations/accept, where the invitee chooses a password; a taken one (an address belongs to one account) a notice. The inviter learns nothing about the address.",
      tag: "Auth",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: [],
      body: z.object({ email: Email, name: z.string().max(200).optional(), role: z.enum(ROLES).default("solver") }),
      responses: { 202: { description: "Invited.", schema: Accepted } },
    },
    async (c, { principal, body }) => {
      await deps.enrolment.invite(principal, body);
      return c.json({ status: "accepted" as const, detail: "An invitation was mailed to the address." }, 202);
    },
  );

  route(
    app,
    {
      method: "patch",
      path: "/api/v2/users/:user_id",
      operationId: "changeUserRole",
      summary: "Change a user's organization role (admin or owner; only an owner grants or takes the owner role)",
      description: "The user's sessions end at once (401 on their next request); their API keys carry the new role.",
      tag: "Auth",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found", "conflict"],
      params: UserIdParams,
      body: z.object({ role: z.enum(ROLES) }),
      responses: { 200: { description: "The user with the new role.", schema: UserSchema } },
    },
    async (c, { principal, params, body }) => c.json(userView(await deps.auth.changeRole(principal, params.user_id, body.role))),
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/users/:user_id",
      operationId: "removeUser",
      summary: "Remove a user from the organization (admin or owner; only an owner removes an owner)",
      description:
        "At once: the user's sessions end (401 on their next request, and their open event streams close), every API key of theirs is revoked; then their address is free to be invited again. The last owner cannot be removed (409).",
      tag: "Auth",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found", "conflict"],
      params: UserIdParams,
      responses: { 204: { description: "Removed." } },
    },
    async (c, { principal, params }) => {
      await deps.auth.removeUser(principal, params.user_id);
      return c.body(null, 204);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/users/:user_id/keys",
      operationId: "listUserApiKeys",
      summary: "A member's API keys, newest first (admin or owner; never the keys themselves)",
      tag: "API keys",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found"],
      params: UserIdParams,
      responses: { 200: { description: "Keys.", schema: z.object({ keys: z.array(ApiKeySchema) }) } },
    },
    async (c, { principal, params }) => c.json({ keys: await deps.auth.listUserKeys(principal, params.user_id) }),
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/users/:user_id/keys/:key_id",
      operationId: "revokeUserApiKey",
      summary: "Revoke any member's API key (admin or owner)",
      description:
        "The key stops authenticating at once in the process that revoked it and within API_KEY_CACHE_SECONDS elsewhere; event streams opened with it close within about a second.",
      tag: "API keys",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found"],
      params: UserKeyIdParams,
      responses: { 200: { description: "The revoked key.", schema: ApiKeySchema } },
    },
    async (c, { principal, params }) => c.json(await deps.auth.revokeUserKey(principal, params.user_id, params.key_id)),
  );
}
