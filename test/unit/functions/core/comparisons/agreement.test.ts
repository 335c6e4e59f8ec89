import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeAgreement, type FinishedRow, refutedRows, type Sense } from "../../../../../functions/core/comparisons/agreement.js";
import type { Row } from "../../../../../functions/core/comparisons/schemas.js";
import type { Verification } from "../../../../../functions/core/solvers/verification.js";

const verification = (status: Verification["status"], claimed: Verification["claimed_status"]): Verification => ({
  status,
  max_violation: status === "verified" ? 0 : null,
  where: null,
  message: null,
  claimed_status: claimed,
  solver_objective: null,
  retried_with: null,
  cross_check: null,
  refuted_by: null,
});

function row(solver: string, status: Row["solver_status"], objective: number | null, bound: number | null = objective): FinishedRow {
  const withPoint = status === "optimal" || status === "feasible" || status === "time_limit";
  return {
    row: {
      solver_name: solver,
      execution_id: `exe_${solver}`,
      status: "completed",
      solver_status: status,
      unsupported_reason: null,
      objective_value: objective,
      dual_bound: withPoint ? bound : null,
      gap: null,
      nodes: null,
      iterations: null,
      wall_time_ms: 1,
      solver_time_seconds: 0.001,
      solver_version: null,
      error_message: null,
      verification: verification(withPoint && objective !== null ? "verified" : "not_checked", status as Verification["claimed_status"]),
    },
    solution: withPoint && objective !== null ? { x: 1, y: objective } : null,
  };
}

describe("the agreement block sees verdict conflicts", () => {
  it("the issue's comparison: four rows optimal at 105 and jaos infeasible — objectives agree, verdicts do not, and jaos's row is refuted", () => {
    const finished = [
      row("scip", "optimal", 105),
      row("highs", "optimal", 105),
      row("cbc", "optimal", 105),
      row("glpk", "optimal", 105),
      row("jaos", "infeasible", null),
    ];
    const agreement = computeAgreement(finished, 1e-4)!;
    expect(agreement.objectives_agree).toBe(true);
    expect(agreement.verdicts_agree).toBe(false);
    expect(agreement.disagreeing_solvers).toEqual(["jaos", "scip", "highs", "cbc", "glpk"]);
    expect(agreement.conflicts).toEqual([expect.objectContaining({ kind: "infeasible_refuted", solvers: ["jaos", "scip", "highs", "cbc", "glpk"] })]);

    const refuted = refutedRows(finished);
    expect(refuted).toHaveLength(1);
    expect(refuted[0]!.row).toMatchObject({
      solver_name: "jaos",
      solver_status: "error",
      error_message: expect.stringContaining("said infeasible, but scip found a point"),
      verification: { status: "violated", claimed_status: "infeasible", refuted_by: { solver_name: "scip", objective_value: 105, execution_id: "exe_scip" } },
    });
    // Once refuted, the row still counts with what it claimed: the conflict stays listed.
    const after = finished.map((f) => (f.row.solver_name === "jaos" ? refuted[0]! : f));
    expect(computeAgreement(after, 1e-4)!.verdicts_agree).toBe(false);
    expect(refutedRows(after)).toEqual([]);
  });

  it("optimal at different objectives is a conflict, and so is a verified point better than another row's bound", () => {
    const differ = computeAgreement([row("scip", "optimal", 13), row("highs", "optimal", 15)], 1e-4)!;
    expect(differ).toMatchObject({ objectives_agree: false, verdicts_agree: false });
    expect(differ.conflicts!.map((c) => c.kind)).toEqual(expect.arrayContaining(["optimal_objectives_differ", "bound_beaten"]));
    const beaten = computeAgreement([row("highs", "optimal", 15), row("scip", "feasible", 13, 12)], 1e-4)!;
    expect(beaten.conflicts).toEqual([expect.objectContaining({ kind: "bound_beaten", solvers: ["highs", "scip"] })]);
    // A maximisation's better point is the larger one.
    expect(computeAgreement([row("highs", "optimal", 15), row("scip", "feasible", 13, 20)], 1e-4, "maximize")!.verdicts_agree).toBe(true);
  });

  it("unbounded next to a proved optimum, and infeasible next to unbounded, are conflicts", () => {
    const a = computeAgreement([row("scip", "optimal", 1), row("highs", "optimal", 1), row("cbc", "unbounded", null)], 1e-4)!;
    expect(a.conflicts).toEqual([expect.objectContaining({ kind: "unbounded_vs_optimal", solvers: ["cbc", "scip", "highs"] })]);
    const b = computeAgreement(
      [row("scip", "feasible", 1, null), row("highs", "feasible", 1, null), row("cbc", "unbounded", null), row("glpk", "infeasible", null)],
      1e-4,
    )!;
    expect(b.conflicts!.map((c) => c.kind).sort()).toEqual(["infeasible_refuted", "infeasible_vs_unbounded"]);
  });

  it("rows that tell one consistent story agree; any infeasible row next to them is named (generated)", () => {
    const story = fc.record({
      optimum: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      sense: fc.constantFrom<Sense>("minimize", "maximize"),
      gap: fc.constantFrom(0, 1e-6, 1e-4, 1e-2),
      rows: fc.array(
        fc.record({
          status: fc.constantFrom("optimal", "feasible", "time_limit", "error"),
          worse: fc.double({ min: 0, max: 1e3, noNaN: true }),
          looser: fc.double({ min: 0, max: 1e3, noNaN: true }),
          within: fc.double({ min: -0.4, max: 0.4, noNaN: true }),
        }),
        { minLength: 2, maxLength: 6 },
      ),
    });
    fc.assert(
      fc.property(story, ({ optimum, sense, gap, rows }) => {
        const sign = sense === "maximize" ? -1 : 1;
        const tol = Math.max(gap, 1e-6) * Math.max(1, Math.abs(optimum));
        const finished = rows.map((r, i) => {
          const name = `s${i}`;
          if (r.status === "error") return row(name, "error", null);
          // Optimal rows sit within half the tolerance of the optimum; others at or past it, their bounds at or before it.
          if (r.status === "optimal") return row(name, "optimal", optimum + r.within * tol, optimum + r.within * tol);
          return row(name, r.status as Row["solver_status"], optimum + sign * r.worse, optimum - sign * r.looser);
        });
        const agreement = computeAgreement(finished, gap, sense);
        if (agreement) expect(agreement.conflicts).toEqual([]);
        const withInfeasible = [...finished, row("late", "infeasible", null)];
        const after = computeAgreement(withInfeasible, gap, sense);
        const hasPoint = finished.some((f) => f.row.solver_status !== "error");
        if (after) expect(after.disagreeing_solvers!.includes("late")).toBe(hasPoint);
        expect(refutedRows(withInfeasible).map((f) => f.row.solver_name)).toEqual(hasPoint ? ["late"] : []);
      }),
      { numRuns: 300 },
    );
  });
});
