import { describe, expect, it } from "vitest";
import {
  and,
  append,
  assign,
  assignOnce,
  atLeast,
  atMost,
  attribute,
  attributeNotExists,
  buildCondition,
  buildUpdate,
  equals,
  greaterThan,
  increment,
  isNull,
  itemAbsent,
  itemExists,
  leaseHeldBy,
  leaseLapsed,
  lessThan,
  notEquals,
  or,
  statusIs,
} from "../../../../../functions/core/store/conditions.js";

describe("condition parts", () => {
  it("render a lease rule with every name and value behind a placeholder, names shared between parts", () => {
    const built = buildUpdate({
      set: [assign("lease_expires_at_ms", 5000), assignOnce("started_at", "t0")],
      remove: ["gsi1pk"],
      condition: or(statusIs("queued", "pending"), leaseHeldBy("w1"), leaseLapsed(1000)),
    });
    expect(built.UpdateExpression).toBe("SET #p0 = :p1, #p2 = if_not_exists(#p2, :p3) REMOVE #p4");
    // Flat: AND binds before OR, so no parentheses are needed (and the local emulator parses nesting slowly).
    expect(built.ConditionExpression).toBe("#p5 = :p6 OR #p5 = :p7 OR #p5 = :p8 AND #p9 = :p10 OR #p5 = :p11 AND #p0 < :p12");
    expect(built.ExpressionAttributeNames).toEqual({
      "#p0": "lease_expires_at_ms",
      "#p2": "started_at",
      "#p4": "gsi1pk",
      "#p5": "status",
      "#p9": "lease_owner",
    });
    expect(Object.values(built.ExpressionAttributeValues!)).toEqual([5000, "t0", "queued", "pending", "running", "w1", "running", 1000]);
  });

  it("name each attribute of a row path, and keep list indexes as they are", () => {
    const built = buildUpdate({ set: [assign("results[2]", { a: 1 })], condition: and(equals("results[2].status", "running")) });
    expect(built.UpdateExpression).toBe("SET #p0[2] = :p1");
    expect(built.ConditionExpression).toBe("#p0[2].#p2 = :p3");
    expect(built.ExpressionAttributeNames).toEqual({ "#p0": "results", "#p2": "status" });
  });

  it("parenthesise an OR inside an AND, and only there", () => {
    const built = buildUpdate({ set: [assign("x", 1)], condition: and(statusIs("queued", "pending"), equals("owner", "w1")) });
    expect(built.ConditionExpression).toBe("(#p2 = :p3 OR #p2 = :p4) AND #p5 = :p6");
  });

  it("render each comparison with its operator, and a null check as equality with a stored null", () => {
    const built = buildCondition(
      and(itemExists(), atLeast("credit_balance", 5), atMost("a", 1), lessThan("b", 2), greaterThan("c", 3), notEquals("d", 4), isNull("used_at")),
    );
    expect(built.ConditionExpression).toBe("attribute_exists(#p0) AND #p1 >= :p2 AND #p3 <= :p4 AND #p5 < :p6 AND #p7 > :p8 AND #p9 <> :p10 AND #p11 = :p12");
    expect(built.ExpressionAttributeNames).toEqual({ "#p0": "pk", "#p1": "credit_balance", "#p3": "a", "#p5": "b", "#p7": "c", "#p9": "d", "#p11": "used_at" });
    expect(built.ExpressionAttributeValues).toEqual({ ":p2": 5, ":p4": 1, ":p6": 2, ":p8": 3, ":p10": 4, ":p12": null });
  });

  it("send no values map when a condition uses no value (DynamoDB refuses an empty one)", () => {
    expect(buildCondition(itemAbsent())).toEqual({ ConditionExpression: "attribute_not_exists(#p0)", ExpressionAttributeNames: { "#p0": "pk" } });
  });

  it("name every segment of a nested path once, and take an `attribute` whole, dots and dashes included", () => {
    const built = buildCondition(
      and(
        equals("webhook.delivery_id", "d1"),
        equals("webhook.status", "pending"),
        or(attributeNotExists(attribute("burst.minute_7")), atMost(attribute("burst.minute_7"), 2)),
      ),
    );
    expect(built.ConditionExpression).toBe("#p0.#p1 = :p2 AND #p0.#p3 = :p4 AND (attribute_not_exists(#p5) OR #p5 <= :p6)");
    expect(built.ExpressionAttributeNames).toEqual({ "#p0": "webhook", "#p1": "delivery_id", "#p3": "status", "#p5": "burst.minute_7" });
  });

  it("build SET, ADD and REMOVE clauses in that order, with or without a condition", () => {
    const built = buildUpdate({
      set: [append("webhook.attempts", [{ attempt: 1 }]), assign("updated_at", "t1")],
      add: [increment("version_count"), increment(attribute("solves-day_3"), 2)],
      remove: ["gsi1pk"],
    });
    expect(built.UpdateExpression).toBe("SET #p0.#p1 = list_append(#p0.#p1, :p2), #p3 = :p4 ADD #p5 :p6, #p7 :p8 REMOVE #p9");
    expect(built).not.toHaveProperty("ConditionExpression");
    expect(built.ExpressionAttributeValues).toEqual({ ":p2": [{ attempt: 1 }], ":p4": "t1", ":p6": 1, ":p8": 2 });
    expect(built.ExpressionAttributeNames?.["#p7"]).toBe("solves-day_3");
  });
});
