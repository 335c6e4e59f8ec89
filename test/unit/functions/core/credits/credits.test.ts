import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../../functions/core/clock.js";
import { loadConfig } from "../../../../../functions/core/config.js";
import { Credits } from "../../../../../functions/core/credits/credits.js";
import type { LedgerEntry } from "../../../../../functions/core/credits/ledger.js";
import { CreditFloorError } from "../../../../../functions/core/identity/store.js";

function credits(
  balance: number,
  users = [
    { id: "usr_owner", role: "owner" },
    { id: "usr_admin", role: "admin" },
    { id: "usr_solver", role: "solver" },
  ],
) {
  const org = { id: "org_test", credit_balance: balance };
  const notices: { to: string; type: string; data: unknown }[] = [];
  const identity = {
    adjustCredits: async (_org: string, delta: number, floor: number | null) => {
      if (floor !== null && org.credit_balance + delta < floor)
        throw new CreditFloorError({ pk: "ORG#org_test", sk: "ORG" }, { credit_balance: org.credit_balance } as never);
      org.credit_balance += delta;
      return org.credit_balance;
    },
    getOrganization: async () => org,
    listUsers: async () => users,
  };
  const notifications = { notify: async (to: string, n: { type: string; data: unknown }) => void notices.push({ to, type: n.type, data: n.data }) };
  const config = loadConfig({ CREDITS_LOW_THRESHOLD: "100", CREDIT_PRICE_EUR: "0.02" });
  const entries: Omit<LedgerEntry, "id" | "created_at">[] = [];
  const ledger = {
    record: async (_org: string, entry: Omit<LedgerEntry, "id" | "created_at">) => {
      entries.push(entry);
      return { ...entry, id: `crd_${entries.length}`, created_at: "2026-12-01T00:00:00.000Z" };
    },
    page: async () => ({ entries: [], next: null }),
  };
  const clock = new ManualClock(Date.UTC(2026, 11, 1));
  return { service: new Credits({ identity: identity as never, notifications: notifications as never, config, ledger, clock }), org, notices, entries };
}

describe("credits", () => {
  it("quotes the spec's formula and its price", () => {
    const quote = credits(0).service.quote({ num_variables: 101, num_integer_vars: 0, num_binary_vars: 0, num_constraints: 0, time_limit_seconds: 60 });
    expect(quote.credits_required).toBe(13); // 1 + 10 + 1.5 = 12.5, rounded half up
    expect(quote.cost_eur).toBe(0.26);
  });

  it("charges down to zero and no further (insufficient_credits names what is needed and left)", async () => {
    const c = credits(10);
    expect(await c.service.charge("org_test", 10)).toBe(0);
    await expect(c.service.charge("org_test", 1)).rejects.toMatchObject({ code: "insufficient_credits", extra: { credits_required: 1, credits_remaining: 0 } });
    await c.service.refund("org_test", 4);
    expect((await c.service.balance("org_test")).credits_remaining).toBe(4);
  });

  it("refuses a charge the balance does not cover with the balance the store's refusal carries", async () => {
    const c = credits(4);
    await expect(c.service.charge("org_test", 10)).rejects.toMatchObject({
      code: "insufficient_credits",
      extra: { credits_required: 10, credits_remaining: 4 },
    });
    expect(c.org.credit_balance).toBe(4);
  });

  it("tells the charged user once, when a charge crosses the low threshold", async () => {
    const c = credits(0);
    await c.service.noticeLowBalance("usr_1", 150, 10);
    await c.service.noticeLowBalance("usr_1", 95, 10);
    await c.service.noticeLowBalance("usr_1", 80, 10);
    expect(c.notices).toEqual([{ to: "usr_1", type: "credits_low", data: { credits_remaining: 95, threshold: 100 } }]);
  });

  it("grants (the operator) to the organization named, tells every admin and owner, and records every movement in the history", async () => {
    const c = credits(5);
    expect(await c.service.operatorGrant("org_test", 50, "invoice 7")).toEqual({ organization_id: "org_test", credits_granted: 50, credits_remaining: 55 });
    expect(c.notices.map((n) => [n.to, n.type])).toEqual([
      ["usr_owner", "credits_purchased"],
      ["usr_admin", "credits_purchased"],
    ]);
    expect(c.notices[0]!.data).toMatchObject({ granted_by: "operator" });
    await c.service.charge("org_test", 20);
    await c.service.refund("org_test", 20);
    expect(c.entries).toEqual([
      { kind: "operator_grant", credits: 50, balance_after: 55, note: "invoice 7" },
      { kind: "charge", credits: -20, balance_after: 35, note: null },
      { kind: "refund", credits: 20, balance_after: 55, note: null },
    ]);
  });

  it("reports the balance in euros", async () => {
    expect(await credits(250).service.balance("org_test")).toEqual({
      organization_id: "org_test",
      credits_remaining: 250,
      credit_price_eur: 0.02,
      balance_eur: 5,
    });
  });
});
