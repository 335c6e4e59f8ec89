import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
let stack: Stack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

/**
 * Each expected value is worked out by hand from the spec's formula:
 *   base 1; variables n·0.1 (n ≤ 100) else 10 + √(n−100)·1.5; mip √(integers+binaries)·2;
 *   constraints m·0.05 (m ≤ 50) else 2.5 + √(m−50)·0.5; time ⌈(t−60)/60⌉ above 60 s;
 *   credits = max(1, min(round(total), 500)).
 */
const cases = [
  {
    name: "100 variables, 50 constraints: 1 + 10 + 2.5 = 13.5 → 14",
    body: { num_variables: 100, num_constraints: 50, time_limit_seconds: 60 },
    credits: 14,
    raw: 13.5,
  },
  {
    name: "101 variables: 10 + √1·1.5 = 11.5 → 1 + 11.5 + 2.5 = 15",
    body: { num_variables: 101, num_constraints: 50, time_limit_seconds: 60 },
    credits: 15,
    raw: 15,
  },
  {
    name: "51 constraints: 2.5 + √1·0.5 = 3 → 1 + 10 + 3 = 14",
    body: { num_variables: 100, num_constraints: 51, time_limit_seconds: 60 },
    credits: 14,
    raw: 14,
  },
  { name: "small LP: 1 + 1 + 0.25 = 2.25 → 2", body: { num_variables: 10, num_constraints: 5, time_limit_seconds: 60 }, credits: 2, raw: 2.25 },
  { name: "61 s adds ⌈1/60⌉ = 1", body: { num_variables: 10, num_constraints: 5, time_limit_seconds: 61 }, credits: 3, raw: 3.25 },
  { name: "120 s adds ⌈60/60⌉ = 1", body: { num_variables: 10, num_constraints: 5, time_limit_seconds: 120 }, credits: 3, raw: 3.25 },
  { name: "121 s adds ⌈61/60⌉ = 2", body: { num_variables: 10, num_constraints: 5, time_limit_seconds: 121 }, credits: 4, raw: 4.25 },
  { name: "empty problem is the floor of 1", body: { num_variables: 0, num_constraints: 0, time_limit_seconds: 0 }, credits: 1, raw: 1 },
  {
    name: "integers: √9·2 = 6 → 1 + 2 + 6 + 0.6 = 9.6 → 10",
    body: { num_variables: 20, num_integer_vars: 9, num_constraints: 12, time_limit_seconds: 30 },
    credits: 10,
    raw: 9.6,
  },
  {
    name: "integers and binaries count together: √(12+4)·2 = 8",
    body: { num_variables: 20, num_integer_vars: 12, num_binary_vars: 4, num_constraints: 12, time_limit_seconds: 60 },
    credits: 12,
    raw: 11.6,
  },
  {
    name: "mixed: 1 + 25 + 20 + 7.5 + 4 = 57.5 → 58",
    body: { num_variables: 200, num_integer_vars: 100, num_constraints: 150, time_limit_seconds: 300 },
    credits: 58,
    raw: 57.5,
  },
  { name: "huge problem is capped at 500", body: { num_variables: 1_000_000, num_constraints: 10_000, time_limit_seconds: 3600 }, credits: 500, raw: null },
] as const;

describe("POST /api/v2/credits/calculator", () => {
  it.each(cases)("$name", async ({ body, credits, raw }) => {
    const res = await stack.api.as(null).post("/api/v2/credits/calculator", body);
    expect(res.status).toBe(200);
    expect(res.body.credits_required).toBe(credits);
    if (raw !== null) expect(res.body.breakdown.raw_total).toBeCloseTo(raw, 10);
    expect(res.body.breakdown.cap_applied).toBe(credits === 500);
    expect(res.body.breakdown.max_credits_per_solve).toBe(500);
    expect(res.body.cost_eur).toBeCloseTo(credits * 0.01, 10);
  });

  it("shows every part of the breakdown for the 101-variable case", async () => {
    const res = await stack.api
      .as(null)
      .post("/api/v2/credits/calculator", { num_variables: 101, num_integer_vars: 4, num_binary_vars: 0, num_constraints: 51, time_limit_seconds: 121 });
    expect(res.body.breakdown).toEqual({
      base_cost: 1,
      variable_cost: 11.5,
      mip_penalty: 4,
      constraint_cost: 3,
      time_bonus: 2,
      raw_total: 21.5,
      cap_applied: false,
      max_credits_per_solve: 500,
    });
    expect(res.body.credits_required).toBe(22);
  });

  it("refuses negative and non-integer counts with the validation shape", async () => {
    const res = await stack.api.as(null).post("/api/v2/credits/calculator", { num_variables: -1, num_constraints: 2.5 });
    expect(res.status).toBe(422);
    expect(res.body.status_code).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(["body.num_variables", "body.num_constraints"]);
  });

  it("reports the organization's balance with an API key", async () => {
    const res = await stack.api.get("/api/v2/credits/balance");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization_id: stack.bootstrap.organizationId, credits_remaining: 10_000, credit_price_eur: 0.01 });
  });
});
