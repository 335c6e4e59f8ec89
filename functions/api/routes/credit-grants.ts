import type { Hono } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";

export const CreditGrantRequest = z.object({
  organization_id: z.string().min(1).max(200).describe("the organization credited"),
  credits: z.number().int().min(1).max(100_000_000),
  note: z.string().max(500).optional().describe("shown in the notification and the organization's credit history"),
});

export const CreditGrantResponse = z.object({
  organization_id: z.string(),
  credits_granted: z.number().int(),
  credits_remaining: z.number(),
});

/**
 * The instance operator's credit grant to an organization (rules: core/credits/credits.ts). No
 * organization role reaches it: an owner's or admin's credential is 403, so nobody raises their own
 * balance; owners see the grant in GET /api/v2/credits/history.
 */
export function registerCreditGrantRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "credits">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/credits/grant",
      operationId: "grantCredits",
      summary: "Add credits to an organization (the instance operator only)",
      description:
        "Takes the operator's token (OPERATOR_TOKEN_SHA256 holds its SHA-256; no operator configured: every call is refused). An organization member's credential, owner included, is 403.",
      tag: "Credits",
      access: "operator",
      role: null,
      rateClass: "anonymous",
      errors: ["forbidden", "not_found"],
      body: CreditGrantRequest,
      responses: { 200: { description: "The organization's new balance.", schema: CreditGrantResponse } },
    },
    async (c, { body }) => c.json(await deps.credits.operatorGrant(body.organization_id, body.credits, body.note)),
  );
}
