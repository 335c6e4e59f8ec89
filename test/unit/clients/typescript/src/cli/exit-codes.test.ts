import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { comparisonExit, EXIT, executionExit } from "../../../../../../clients/typescript/src/cli/exit-codes.js";
import type { ComparisonDetail, ComparisonRow, ExecutionView } from "../../../../../../clients/typescript/src/types.js";

const VERDICTS = ["optimal", "feasible", "infeasible", "unbounded", "time_limit", "error"] as const;
type Verdict = (typeof VERDICTS)[number];

const row = (solver_status: ComparisonRow["solver_status"]): ComparisonRow => ({ solver_name: "s", status: "completed", solver_status }) as ComparisonRow;
const comparison = (rows: ComparisonRow[], objectivesAgree: boolean | null = true): ComparisonDetail =>
  ({
    status: "completed",
    results: rows,
    agreement: objectivesAgree === null ? null : { objectives_agree: objectivesAgree },
  }) as ComparisonDetail;

describe("exit codes", () => {
  it("are distinct for every verdict, error, usage, disagreement and running", () => {
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
    expect(EXIT.optimal).toBe(0);
  });

  it("an execution exits with its verdict once completed, 8 while it runs, 1 when it failed", () => {
    for (const v of VERDICTS) expect(executionExit({ status: "completed", result: { status: v } } as ExecutionView)).toBe(EXIT[v]);
    expect(executionExit({ status: "running", result: null } as ExecutionView)).toBe(EXIT.running);
    expect(executionExit({ status: "failed", result: null } as ExecutionView)).toBe(EXIT.error);
  });

  it("a comparison exits with the verdict its voting rows share, 7 when they differ, 1 on any error; unsupported rows do not vote", () => {
    const verdict = fc.constantFrom<Verdict>(...VERDICTS);
    fc.assert(
      fc.property(fc.array(verdict, { minLength: 1, maxLength: 8 }), fc.nat(3), fc.boolean(), (verdicts, unsupported, agree) => {
        const rows = [...verdicts.map(row), ...Array.from({ length: unsupported }, () => row("unsupported"))];
        const code = comparisonExit(comparison(rows, agree));
        const distinct = new Set(verdicts);
        if (distinct.has("error")) expect(code).toBe(EXIT.error);
        else if (distinct.size > 1 || !agree) expect(code).toBe(EXIT.disagreement);
        else expect(code).toBe(EXIT[verdicts[0]!]);
      }),
    );
    expect(comparisonExit(comparison([row("unsupported")]))).toBe(EXIT.error);
    expect(comparisonExit({ ...comparison([row("optimal")]), status: "running" })).toBe(EXIT.running);
    expect(comparisonExit({ ...comparison([row("optimal")]), status: "cancelled" })).toBe(EXIT.error);
  });
});
