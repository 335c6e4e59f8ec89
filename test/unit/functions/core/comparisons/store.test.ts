import { describe, expect, it } from "vitest";
import { pendingRow } from "../../../../../functions/core/comparisons/rows.js";
import { type ComparisonRecord, ComparisonStore } from "../../../../../functions/core/comparisons/store.js";
import { ConditionFailedError } from "../../../../../functions/core/store/table.js";

const key = { pk: "ORG#o1", sk: "CMP#cmp_1" };
const record = (status: ComparisonRecord["status"], rows: ComparisonRecord["results"]) => ({
  ...key,
  id: "cmp_1",
  org_id: "o1",
  status,
  results: rows,
  cancel_requested: false,
});

/**
 * A table whose reads find `stored` and whose conditional updates fail with the item `raced` (what a
 * worker wrote between the cancel's read and its write) until `raced` runs out.
 */
function racingTable(stored: Record<string, unknown>, raced: Record<string, unknown>[]) {
  const calls = { gets: 0, updates: [] as Record<string, unknown>[] };
  const table = {
    get: async () => {
      calls.gets++;
      return stored;
    },
    updateOrExplain: async (input: Record<string, unknown>) => {
      calls.updates.push(input);
      const next = raced.shift();
      if (next) throw new ConditionFailedError(key, next);
      return { ...stored, cancel_requested: true };
    },
  };
  return { store: new ComparisonStore(table as never), calls };
}

describe("a comparison's cancel", () => {
  it("answers a comparison that became final meanwhile from the item its failed write carries, without writing again", async () => {
    const finished = record("completed", [{ ...pendingRow("cbc"), status: "completed" }]);
    const { store, calls } = racingTable(record("running", [pendingRow("cbc")]), [finished]);
    const out = await store.cancel("o1", "cmp_1", 0);
    expect(out?.status).toBe("completed");
    expect(calls.gets).toBe(1);
    expect(calls.updates).toHaveLength(1);
  });

  it("goes on from the item carried when a worker started a row meanwhile: only the rows still pending are cancelled", async () => {
    const started = record("running", [{ ...pendingRow("cbc"), status: "running", execution_id: "exe_1" }, pendingRow("highs")]);
    const { store, calls } = racingTable(record("running", [pendingRow("cbc"), pendingRow("highs")]), [started]);
    await store.cancel("o1", "cmp_1", 0);
    expect(calls.gets).toBe(1);
    expect(calls.updates).toHaveLength(2);
    const second = calls.updates[1] as { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeNames: Record<string, string> };
    // The retry conditions on row 1 only (row 0 now runs), and the status read.
    expect(second.ConditionExpression).toBe("#p3 = :p5 AND #p2[1].#p3 = :p6");
    expect(second.UpdateExpression).toBe("SET #p0 = :p1, #p2[1].#p3 = :p4");
  });

  it("answers a comparison deleted meanwhile with null (the failed write carries no item)", async () => {
    const table = { get: async () => record("running", [pendingRow("cbc")]), updateOrExplain: async () => Promise.reject(new ConditionFailedError(key, null)) };
    expect(await new ComparisonStore(table as never).cancel("o1", "cmp_1", 0)).toBeNull();
  });
});
