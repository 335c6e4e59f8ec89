import type { Hono } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";

export const CreditGrantRequest = z.object({
  credits: z.number().int().min(1).max(100_000_000),
  note: z.string().max(500).optional().describe("shown in the notification"),
});

export const CreditGrantResponse = z.object({
  organization_id: z.string(),
  credits_granted: z.number().int(),
  credits_remaining: z.number(),
});

/** An admin's credit grant to their own organization (rules: core/credits/credits.ts). */
export function registerCreditGrantRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "credits">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/credits/grant",
      operationId: "grantCredits",
      summary: "Add credits to the organization (admins and owners)",
      tag: "Credits",
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found"],
      body: CreditGrantRequest,
      responses: { 200: { description: "The new balance.", schema: CreditGrantResponse } },
    },
    async (c, { principal, body }) => c.json(await deps.credits.grant(principal, body.credits, body.note)),
  );
}
