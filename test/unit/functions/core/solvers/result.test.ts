import { describe, expect, it } from "vitest";
import { pendingRow } from "../../../../../functions/core/comparisons/rows.js";
import { RowSchema } from "../../../../../functions/core/comparisons/schemas.js";
import { SolveResponseSchema } from "../../../../../functions/core/executions/schemas.js";
import { ROW_DUALS_MAX_ENTRIES, rowOf, solveResponseOf } from "../../../../../functions/core/solvers/result.js";
import { emptyResult } from "../../../../../functions/core/solvers/types.js";

describe("solver results, defined once", () => {
  const answer = {
    ...emptyResult("optimal"),
    objective_value: 7,
    solver_time_seconds: 0.25,
    solution: { x: 1 },
    settings_applied: { command_line: "--tmlim 4 /tmp/incumbent-x/solve.mps" },
  };

  it("maps an adapter's answer to exactly the solve response's fields (solve_time_seconds), dropping the adapter's extras", () => {
    const response = solveResponseOf("exe_1", { solver: "glpk", result: answer });
    expect(SolveResponseSchema.strict().parse(response)).toEqual(response);
    expect(response).toMatchObject({ status: "optimal", solver_status: "optimal", solve_time_seconds: 0.25, objective_value: 7, solver_name: "glpk" });
    expect(JSON.stringify(response)).not.toContain("/tmp/");
  });

  it("fills a comparison row from the response with the spec's row names (solver_time_seconds)", () => {
    const row = rowOf(pendingRow("glpk"), solveResponseOf("exe_1", { solver: "glpk", result: answer }), "completed");
    expect(RowSchema.strict().parse(row)).toEqual(row);
    expect(row).toMatchObject({ status: "completed", execution_id: "exe_1", solver_time_seconds: 0.25, objective_value: 7, solver_status: "optimal" });
  });

  it("carries an LP's duals into the solve response and a row, but leaves a large LP's to its execution (the row keeps the verdict)", () => {
    const small = { ...answer, duals: { cap: 2 }, reduced_costs: { x: 0 }, duals_verified: true };
    const response = solveResponseOf("exe_1", { solver: "glpk", result: small });
    expect(response).toMatchObject({ duals: { cap: 2 }, reduced_costs: { x: 0 }, duals_verified: true });
    expect(rowOf(pendingRow("glpk"), response, "completed")).toMatchObject({ duals: { cap: 2 }, reduced_costs: { x: 0 }, duals_verified: true });

    const many = Object.fromEntries(Array.from({ length: ROW_DUALS_MAX_ENTRIES }, (_, i) => [`r${i}`, i]));
    const large = solveResponseOf("exe_2", { solver: "glpk", result: { ...small, duals: many } });
    expect(Object.keys(large.duals!).length).toBe(ROW_DUALS_MAX_ENTRIES);
    const row = rowOf(pendingRow("glpk"), large, "completed");
    expect(RowSchema.strict().parse(row)).toEqual(row);
    expect(row).toMatchObject({ duals: null, reduced_costs: null, duals_verified: true, execution_id: "exe_2" });
  });

  it("carries an explained infeasibility into the solve response and a row, but leaves one over the row budget to its execution", () => {
    const infeasibility = {
      constraints: [{ name: "demand" }],
      variable_bounds: [{ variable: "x", bound: "upper" as const }],
      method: "deletion_filter" as const,
      irreducible: true,
      verified: true,
      verdict_check: { status: "confirmed" as const, solver: "highs" as const, message: "highs proved a subset of the model infeasible" },
    };
    const explained = { ...answer, ...emptyResult("infeasible"), settings_applied: null, infeasibility };
    const response = solveResponseOf("exe_3", { solver: "cbc", result: explained });
    expect(response.infeasibility).toEqual(infeasibility);
    const row = rowOf(pendingRow("cbc"), response, "completed");
    expect(RowSchema.strict().parse(row)).toEqual(row);
    expect(row.infeasibility).toEqual(infeasibility);

    const constraints = Array.from({ length: ROW_DUALS_MAX_ENTRIES + 1 }, (_, i) => ({ name: `r${i}` }));
    const large = solveResponseOf("exe_4", { solver: "cbc", result: { ...explained, infeasibility: { ...infeasibility, constraints } } });
    expect(large.infeasibility!.constraints).toHaveLength(ROW_DUALS_MAX_ENTRIES + 1);
    expect(rowOf(pendingRow("cbc"), large, "completed")).toMatchObject({ infeasibility: null, execution_id: "exe_4" });
  });
});
