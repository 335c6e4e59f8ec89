import type { Hono } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { KeyIdParams } from "../http/route-parts.js";
import { ApiKeySchema } from "../../core/auth/schemas.js";

export const CreateApiKeyRequest = z
  .object({
    name: z.string().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(3650).nullable().optional(),
    expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .refine((b) => !(b.expires_in_days && b.expires_at), { message: "give expires_in_days or expires_at, not both" });

export function registerKeyRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "auth">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/keys",
      operationId: "createApiKey",
      summary: "Create an API key (the plaintext key is in this response only)",
      description:
        "Stored as a SHA-256 hash. Live keys per user are capped by AUTH_MAX_ACTIVE_API_KEYS_PER_USER (default 25; 0 = none): past it, 409 naming the number.",
      tag: "API keys",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["conflict", "api_key_limit_reached"],
      body: CreateApiKeyRequest,
      responses: { 201: { description: "The key, once.", schema: ApiKeySchema.extend({ key: z.string() }) } },
    },
    async (c, { principal, body }) => c.json(await deps.auth.createApiKey(principal, body), 201),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/keys",
      operationId: "listApiKeys",
      summary: "The caller's API keys, newest first (never the keys themselves)",
      tag: "API keys",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "Keys.", schema: z.object({ keys: z.array(ApiKeySchema) }) } },
    },
    async (c, { principal }) => c.json({ keys: await deps.auth.listApiKeys(principal) }),
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/keys/:key_id",
      operationId: "revokeApiKey",
      summary: "Revoke an API key; its slot is free at once",
      tag: "API keys",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: KeyIdParams,
      responses: { 200: { description: "The revoked key.", schema: ApiKeySchema } },
    },
    async (c, { principal, params }) => c.json(await deps.auth.revokeApiKey(principal, params.key_id)),
  );
}
