import { z } from "zod";

const count = z.number().int().min(0);

/** What the credit formula (formula.ts) reads of a problem: its sizes and its time limit. */
export const CreditInputSchema = z.object({
  num_variables: count,
  num_integer_vars: count.default(0),
  num_binary_vars: count.default(0),
  num_constraints: count,
  time_limit_seconds: z.number().min(0).default(60),
});
export type CreditInput = z.infer<typeof CreditInputSchema>;

/** Each term of the formula, so that a quote shows how it was made. */
export const CreditBreakdownSchema = z.object({
  base_cost: z.number(),
  variable_cost: z.number(),
  mip_penalty: z.number(),
  constraint_cost: z.number(),
  time_bonus: z.number(),
  raw_total: z.number(),
  cap_applied: z.boolean(),
  max_credits_per_solve: z.number().int(),
});
export type CreditBreakdown = z.infer<typeof CreditBreakdownSchema>;

export const CreditQuoteSchema = z.object({
  credits_required: z.number().int(),
  breakdown: CreditBreakdownSchema,
});
export type CreditQuote = z.infer<typeof CreditQuoteSchema>;
