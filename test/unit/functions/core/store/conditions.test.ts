import { describe, expect, it } from "vitest";
import { and, assign, assignOnce, buildUpdate, equals, leaseHeldBy, leaseLapsed, or, statusIs } from "../../../../../functions/core/store/conditions.js";

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
});
