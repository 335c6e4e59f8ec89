import { describe, expect, it } from "vitest";
import { fromItem, INTERNAL_ATTRIBUTES } from "../../../../../functions/core/store/items.js";

describe("fromItem", () => {
  it("leaves out every internal attribute and keeps the record's own, nulls included", () => {
    const item = {
      pk: "ORG#o",
      sk: "EXE#e",
      gsi1pk: "ACTIVE",
      gsi1sk: "x",
      active_kind: "execution",
      queued_at: "2026-01-01T00:00:00.000Z",
      lease_owner: "w",
      lease_expires_at_ms: 1,
      ttl: 2,
      id: "e",
      error_message: null,
    };
    expect(fromItem(item)).toEqual({ id: "e", error_message: null });
    expect([...INTERNAL_ATTRIBUTES].every((a) => a in item)).toBe(true);
  });

  it("fills defaults only for attributes the item lacks", () => {
    const record = fromItem<{ started_at: string | null; completed_at: string | null }>(
      { pk: "p", sk: "s", started_at: "t0" },
      { started_at: null, completed_at: null },
    );
    expect(record).toEqual({ started_at: "t0", completed_at: null });
  });
});
