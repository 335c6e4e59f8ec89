import type { CreditInput, CreditQuote } from "./schemas.js";

/**
 * The spec's credit formula per solve (Limits: "Credit formula per solve"), exactly:
 *   credits = max(1, min(round(base + variables + mip + constraints + time), cap))
 */
export function creditQuote(input: CreditInput, maxCreditsPerSolve = 500): CreditQuote {
  const base = 1;
  const n = input.num_variables;
  const variable = n <= 100 ? n * 0.1 : 10 + Math.sqrt(n - 100) * 1.5;
  const mip = Math.sqrt(input.num_integer_vars + input.num_binary_vars) * 2.0;
  const m = input.num_constraints;
  const constraint = m <= 50 ? m * 0.05 : 2.5 + Math.sqrt(m - 50) * 0.5;
  const t = input.time_limit_seconds;
  const time = t > 60 ? Math.ceil((t - 60) / 60) : 0;
  const raw = base + variable + mip + constraint + time;
  const rounded = Math.round(raw);
  const credits = Math.max(1, Math.min(rounded, maxCreditsPerSolve));
  return {
    credits_required: credits,
    breakdown: {
      base_cost: base,
      variable_cost: variable,
      mip_penalty: mip,
      constraint_cost: constraint,
      time_bonus: time,
      raw_total: raw,
      cap_applied: rounded > maxCreditsPerSolve,
      max_credits_per_solve: maxCreditsPerSolve,
    },
  };
}

/** Euros for a number of credits at `CREDIT_PRICE_EUR`, rounded to the cent's hundredth. */
export const creditsToEur = (credits: number, priceEur: number): number => Math.round(credits * priceEur * 10_000) / 10_000;
