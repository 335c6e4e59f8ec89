import { describe, expect, it } from "vitest";
import {
  HISTORY_LIMIT,
  HISTORY_TTL_MS,
  OrganizationObservations,
  TableComparisonHistory,
} from "../../../../../../functions/core/solvers/recommendation/evidence.js";
import type { ComparisonEvidence } from "../../../../../../functions/core/solvers/recommendation/observations.js";
import type { Table } from "../../../../../../functions/core/store/table.js";

const comparison = (id: string, status: string): ComparisonEvidence & { status: string } => ({
  id,
  status,
  problem_class: "LP",
  variable_count: 10,
  constraint_count: 5,
  settings: { time_limit_seconds: 60 },
  results: [{ solver_name: "highs", status: "completed", solver_status: "optimal", solver_time_seconds: 0.1 }],
  agreement: null,
});

/** A table whose comparison partition holds `items` newest first, served in pages of `page`. */
function table(items: ReturnType<typeof comparison>[], page = 100) {
  const queries: Record<string, unknown>[] = [];
  const fake = {
    queryPage: async (input: Record<string, unknown>) => {
      queries.push(input);
      const from = (input.ExclusiveStartKey as { at: number } | undefined)?.at ?? 0;
      const to = Math.min(items.length, from + Math.min(page, (input.Limit as number) ?? page));
      return { items: items.slice(from, to), next: to < items.length ? { at: to } : undefined };
    },
  };
  return { table: fake as unknown as Table, queries };
}

describe("the organization's history", () => {
  it("reads the newest finished comparisons of the organization only, newest first, up to the limit", async () => {
    const items = Array.from({ length: 250 }, (_, i) => comparison(`cmp_${String(999 - i)}`, i % 5 === 0 ? "running" : "completed"));
    const t = table(items);
    const found = await new TableComparisonHistory(t.table).recentFinished("org_a", 150);
    expect(found).toHaveLength(150);
    expect(found.every((c) => c.id !== "cmp_999")).toBe(true); // running: skipped
    expect(t.queries[0]).toMatchObject({ ExpressionAttributeValues: { ":pk": "ORG#org_a" }, ScanIndexForward: false });
    expect(String(t.queries[0]!.ProjectionExpression)).not.toContain("problem,");
  });

  it("stops looking after a bounded number of comparisons", async () => {
    const t = table(Array.from({ length: 1000 }, (_, i) => comparison(`cmp_${i}`, "running")));
    expect(await new TableComparisonHistory(t.table).recentFinished("org_a", HISTORY_LIMIT)).toEqual([]);
    expect(t.queries.length).toBeLessThanOrEqual(4);
  });

  it("is kept a while per organization, then read again", async () => {
    let now = 0;
    let reads = 0;
    const observations = new OrganizationObservations(
      {
        recentFinished: async () => {
          reads++;
          return [comparison("cmp_1", "completed"), { ...comparison("cmp_2", "completed"), problem_class: null }];
        },
      },
      () => now,
    );
    const first = await observations.of("org_a");
    expect(first.map((o) => o.id)).toEqual(["cmp_1"]); // a comparison never compiled says nothing
    now += HISTORY_TTL_MS - 1;
    expect(await observations.of("org_a")).toBe(first);
    await observations.of("org_b");
    now += 1;
    await observations.of("org_a");
    expect(reads).toBe(3);
  });
});
