import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../../functions/core/clock.js";
import { enqueueComparison } from "../../../../../functions/core/comparisons/launching.js";
import { pendingRow } from "../../../../../functions/core/comparisons/rows.js";
import type { ComparisonRecord } from "../../../../../functions/core/comparisons/store.js";
import type { JobMessage } from "../../../../../functions/core/queue/messages.js";
import { Placeholders } from "../../../../../functions/core/store/conditions.js";
import { pendingComparison } from "../../../../support/job-fakes.js";

/** A comparison's job sent, or the comparison and its pending rows failed enqueue_failed, against in-memory fakes. */

function world(refusal: Error | null) {
  const sent: JobMessage[] = [];
  const ended: { from: string[]; status: string; fields: Partial<ComparisonRecord>; rowWrites: string[] }[] = [];
  const fairShare = {
    async dispatch(job: JobMessage) {
      if (refusal) throw refusal;
      sent.push(job);
      return "queued" as const;
    },
  };
  const comparisonStore = {
    async finalizeUnheld(
      _org: string,
      {
        from,
        status,
        fields,
        rows,
      }: { id: string; from: string[]; status: string; fields: Partial<ComparisonRecord>; rows?: { set?: ((p: Placeholders) => string)[] } },
    ) {
      const p = new Placeholders();
      const rowWrites = (rows?.set ?? []).map((part) => {
        const [path, value] = part(p).split(" = ");
        const index = /\[(\d+)\]/.exec(path!)![1];
        const row = p.values[value!] as { status: string; error_message: string };
        return `${index}:${row.status}:${row.error_message}`;
      });
      ended.push({ from, status, fields, rowWrites });
      return null;
    },
  };
  return { sent, ended, deps: { fairShare, comparisonStore, clock: new ManualClock(Date.UTC(2026, 10, 28)) } };
}

// glpk cannot take a QP: its row is decided already (completed, unsupported) and is left alone.
const record = pendingComparison(["highs", "glpk"], {
  stats: { problem_class: "QP", variable_count: 2, constraint_count: 2 },
  rows: [pendingRow("highs"), { ...pendingRow("glpk"), status: "completed", solver_status: "unsupported", unsupported_reason: "quadratic_terms" }],
  priority: 2,
});

describe("enqueueComparison", () => {
  it("sends the comparison's job on its band", async () => {
    const w = world(null);
    await enqueueComparison(w.deps, record);
    expect(w.sent).toEqual([{ type: "comparison", id: "cmp_1", org_id: "org_1", priority: 2 }]);
    expect(w.ended).toEqual([]);
  });

  it("on a refusal ends the pending comparison failed, fails only its pending rows, and throws the refusal on", async () => {
    const w = world(new Error("broker down"));
    await expect(enqueueComparison(w.deps, record)).rejects.toThrow("broker down");
    expect(w.ended).toEqual([
      {
        from: ["pending"],
        status: "failed",
        fields: { error_message: "enqueue_failed: broker down", completed_at: "2026-11-28T00:00:00.000Z" },
        rowWrites: ["0:failed:the job broker refused the job"],
      },
    ]);
  });
});
