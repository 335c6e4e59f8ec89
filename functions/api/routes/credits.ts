import type { Hono } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { queryInt, route } from "../http/route.js";
import { CreditInputSchema, CreditQuoteSchema } from "../../core/credits/schemas.js";

export const CreditCalculatorResponse = CreditQuoteSchema.extend({ cost_eur: z.number() });

export const CreditBalanceResponse = z.object({
  organization_id: z.string(),
  credits_remaining: z.number(),
  credit_price_eur: z.number(),
  balance_eur: z.number(),
});

export const CreditHistoryResponse = z.object({
  organization_id: z.string(),
  entries: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["initial_grant", "operator_grant", "charge", "refund"]),
      credits: z.number().describe("signed: a grant adds, a charge takes"),
      balance_after: z.number(),
      note: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
  next_before: z.string().nullable().describe("pass as `before` for the next (older) page; null on the last"),
});

export function registerCreditRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "credits">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/credits/calculator",
      operationId: "creditCalculator",
      summary: "Credits a solve of this size would cost",
      description:
        "The spec's formula exactly; cost_eur = credits × CREDIT_PRICE_EUR. Public, limited per client IP. A race (solve with solver_name `race`) is charged this quote once per entrant, summed at launch, and counts as one solve against the daily quota.",
      tag: "Credits",
      access: "public",
      role: null,
      rateClass: "calculator",
      errors: [],
      body: CreditInputSchema,
      responses: { 200: { description: "The quote and how it was made.", schema: CreditCalculatorResponse } },
    },
    (c, { body }) => c.json(deps.credits.quote(body)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/credits/balance",
      operationId: "creditBalance",
      summary: "The organization's credit balance",
      tag: "Credits",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      responses: { 200: { description: "Credits remaining.", schema: CreditBalanceResponse } },
    },
    async (c, { principal }) => c.json(await deps.credits.balance(principal.orgId)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/credits/history",
      operationId: "creditHistory",
      summary: "Every movement of the organization's credit balance, newest first",
      description: "The initial grant, the operator's grants (with their notes), each admission's charge and any refund.",
      tag: "Credits",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      query: z.object({ limit: queryInt(50, 1, 100), before: z.string().max(200).optional() }),
      responses: { 200: { description: "Entries, newest first.", schema: CreditHistoryResponse } },
    },
    async (c, { principal, query }) => c.json(await deps.credits.history(principal.orgId, query.limit, query.before)),
  );
}
