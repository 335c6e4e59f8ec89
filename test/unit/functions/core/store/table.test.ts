import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../../functions/core/clock.js";
import { buildUpdate, equals, itemExists, assign } from "../../../../../functions/core/store/conditions.js";
import { CreditFloorError, ResetTokenSpentError } from "../../../../../functions/core/identity/store.js";
import { ConditionFailedError, Table } from "../../../../../functions/core/store/table.js";
import { DeliveryClaimedError } from "../../../../../functions/core/triggers/delivery-conditions.js";

/** A document client whose every conditional write fails, and whose reads find `stored`. */
function refusingTable(stored: Record<string, unknown> | null) {
  const sent: unknown[] = [];
  const doc = {
    send: async (command: unknown) => {
      sent.push(command);
      if (command instanceof UpdateCommand) throw Object.assign(new Error("The conditional request failed"), { name: "ConditionalCheckFailedException" });
      if (command instanceof GetCommand) return { Item: stored ?? undefined };
      throw new Error(`unexpected ${String(command)}`);
    },
  };
  return { table: new Table(doc as never, "t", new ManualClock(0)), sent };
}

const key = { pk: "ORG#o1", sk: "ORG" };

describe("a failed conditional write", () => {
  it("throws ConditionFailedError with the item as a consistent read finds it", async () => {
    const { table, sent } = refusingTable({ ...key, status: "completed" });
    const error = await table
      .updateOrExplain({ Key: key, ...buildUpdate({ set: [assign("status", "cancelled")], condition: equals("status", "running") }) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect(error).toMatchObject({ name: "ConditionFailedError", key, existing: { status: "completed" } });
    expect((sent[1] as GetCommand).input.ConsistentRead).toBe(true);
  });

  it("carries a missing item as null", async () => {
    const { table } = refusingTable(null);
    const error = await table.updateOrExplain({ Key: key, ...buildUpdate({ set: [assign("x", 1)], condition: itemExists() }) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ existing: null });
  });

  it("throws the repository's subclass when one is given, still a ConditionFailedError", async () => {
    const { table } = refusingTable({ ...key, credit_balance: 3 });
    const error = await table
      .updateOrExplain({ Key: key, ...buildUpdate({ set: [assign("x", 1)], condition: itemExists() }) }, CreditFloorError)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CreditFloorError);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect(error).toMatchObject({ name: "CreditFloorError", balance: 3 });
  });

  it("answers null for a missing item where the caller asks only for refusals explained", async () => {
    const missing = refusingTable(null).table;
    expect(await missing.updateOrExplainRefusal({ Key: key, ...buildUpdate({ set: [assign("x", 1)], condition: itemExists() }) }, CreditFloorError)).toBeNull();
    const present = refusingTable({ ...key, credit_balance: 2 }).table;
    await expect(
      present.updateOrExplainRefusal({ Key: key, ...buildUpdate({ set: [assign("x", 1)], condition: itemExists() }) }, CreditFloorError),
    ).rejects.toBeInstanceOf(CreditFloorError);
  });

  it("returns null from a plain update, where the caller needs only to know that it failed", async () => {
    const { table } = refusingTable({ ...key });
    expect(await table.update({ Key: key, ...buildUpdate({ set: [assign("x", 1)], condition: itemExists() }) })).toBeNull();
  });
});

describe("typed condition failures say why from the item they carry", () => {
  it("a spent reset token: used when it has a used_at, else expired", () => {
    const token = { user_id: "u1", expires_at_ms: 10 };
    expect(new ResetTokenSpentError(key, { ...token, used_at: "2026-11-23T10:00:00Z" }).reason).toBe("used");
    expect(new ResetTokenSpentError(key, { ...token, used_at: null }).reason).toBe("expired");
  });

  it("a lost webhook claim: still awaited only while the same delivery is pending at the same attempt", () => {
    const webhook = { delivery_id: "d1", status: "pending", next_attempt: 2, claim_until_ms: 9000 } as never;
    const claimed = new DeliveryClaimedError(key, { webhook });
    expect(claimed.stillAwaits("d1", 2)).toBe(true);
    expect(claimed.claimedUntilMs).toBe(9000);
    expect(claimed.stillAwaits("d1", 1)).toBe(false);
    expect(claimed.stillAwaits("d0", 2)).toBe(false);
    expect(new DeliveryClaimedError(key, { webhook: { ...(webhook as object), status: "delivered" } as never }).stillAwaits("d1", 2)).toBe(false);
    expect(new DeliveryClaimedError(key, null).stillAwaits("d1", 2)).toBe(false);
  });
});
