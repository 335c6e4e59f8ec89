import type { Hono } from "hono";
import { z } from "zod";
import { roleAtLeast } from "../../core/auth/roles.js";
import { notFound } from "../../core/errors.js";
import type { ApiEnv } from "../http/context.js";
import { requireRole, route } from "../http/route.js";

export const CreditGrantRequest = z.object({
  credits: z.number().int().min(1).max(100_000_000),
  note: z.string().max(500).optional().describe("shown in the notification"),
});

export const CreditGrantResponse = z.object({
  organization_id: z.string(),
  credits_granted: z.number().int(),
  credits_remaining: z.number(),
});

/**
 * An admin's credit grant to their own organization (a purchase recorded by hand until payments
 * exist). One conditional ADD on the balance; every owner and admin of the organization gets a
 * `credits_purchased` notification.
 */
export function registerCreditGrantRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/credits/grant",
      operationId: "grantCredits",
      summary: "Add credits to the organization (admins and owners)",
      tag: "Credits",
      access: "user",
      body: CreditGrantRequest,
      responses: { 200: { description: "The new balance.", schema: CreditGrantResponse }, 403: { description: "Admins and owners only." } },
    },
    async (c, input) => {
      const principal = requireRole(input, "admin", "Granting credits needs the admin or owner role.");
      const deps = c.get("deps");
      const balance = await deps.identity.adjustCredits(principal.orgId, input.body.credits, null);
      if (balance === null) throw notFound("Organization");
      const admins = (await deps.identity.listUsers(principal.orgId)).filter((u) => roleAtLeast(u.role, "admin"));
      for (const user of admins) {
        await deps.notifications.notify(user.id, {
          type: "credits_purchased",
          title: `${input.body.credits} credits added`,
          message: `${input.body.credits} credits were added to your organization${input.body.note ? ` (${input.body.note})` : ""}; it now has ${balance}.`,
          data: { credits_granted: input.body.credits, credits_remaining: balance, granted_by: principal.userId },
          link: "/credits",
        });
      }
      return c.json({ organization_id: principal.orgId, credits_granted: input.body.credits, credits_remaining: balance });
    },
  );
}
