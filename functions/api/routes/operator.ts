import type { Hono } from "hono";
import { z } from "zod";
import { EmailSchema } from "../../core/auth/email.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { UserSchema, userView } from "./auth.js";

/**
 * What only the instance operator does besides granting credits (routes/credit-grants.ts): making an
 * organization and its owner directly — for a deployment without a mail transport, where a sign-up's
 * confirmation cannot be delivered, and for onboarding by hand. The operator is trusted: a taken
 * address is a plain 409 here.
 */
export function registerOperatorRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "auth">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/operator/organizations",
      operationId: "operatorCreateOrganization",
      summary: "Create an organization and its owner (the instance operator only)",
      description: "Takes the operator's token (OPERATOR_TOKEN_SHA256). The owner signs in with the address and password given.",
      tag: "Operator",
      access: "operator",
      role: null,
      rateClass: "anonymous",
      errors: ["forbidden", "conflict"],
      body: z.object({
        organization_name: z.string().min(1).max(200),
        email: EmailSchema,
        password: z.string().min(8, "at least 8 characters").max(256),
        name: z.string().max(200).optional(),
      }),
      responses: { 201: { description: "The new owner.", schema: UserSchema } },
    },
    async (c, { body }) => {
      const { user } = await deps.auth.createOrganizationWithOwner({
        orgName: body.organization_name,
        email: body.email,
        password: body.password,
        name: body.name,
      });
      return c.json(userView(user), 201);
    },
  );
}
