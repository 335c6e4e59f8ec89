import { solveJaos as solveJaosModel } from "@incumbent/jaos";
import { describe, expect, it } from "vitest";
import { solveJaos } from "../../../../../functions/core/solvers/jaos-engine.js";
import { SolverResultSchema } from "../../../../../functions/core/solvers/types.js";
import { problem, TEXTBOOK_LP } from "../../../../support/jaos.js";

/** The fields of a result row, in the order the adapter has always given them (stored results and logs keep it). */
const ROW_FIELDS = [
  "objective_value",
  "dual_bound",
  "gap",
  "nodes",
  "iterations",
  "solver_time_seconds",
  "wall_time_ms",
  "solution",
  "solver_version",
  "error_message",
  "solver_status",
];

describe("jaos through the service's adapter (jaos-engine.ts)", () => {
  it("reports a verified LP optimum's duals in the problem's own sense, checked, with or without presolve", () => {
    for (const presolve of [true, false]) {
      const r = solveJaos(TEXTBOOK_LP, { timeLimitSeconds: 10, gapTolerance: 1e-6, presolve });
      expect(SolverResultSchema.safeParse(r).success).toBe(true);
      expect(r.solver_status).toBe("optimal");
      expect(r.objective_value).toBe(36);
      expect(r.duals_verified).toBe(true);
      // maximise: y(c2) = 1.5, y(c3) = 1 in the problem's own sense
      expect(r.duals!.c2).toBeCloseTo(1.5, 12);
      expect(r.duals!.c3).toBeCloseTo(1, 12);
      expect(r.reduced_costs).toEqual({ x: expect.closeTo(0, 12), y: expect.closeTo(0, 12) });
      expect(Object.keys(r)).toEqual([...ROW_FIELDS, "duals", "reduced_costs", "duals_verified", "stats"]);
      expect(r).not.toHaveProperty("row_duals");
    }
  });

  it("gives a MILP's result the engine's fields and stats, and no dual fields", () => {
    const knapsack = problem({
      sense: "maximize",
      variables: ["a", "b", "c"].map((name) => ({ name, type: "binary" as const })),
      objective: {
        terms: [
          { var: "a", coef: 5 },
          { var: "b", coef: 4 },
          { var: "c", coef: 3 },
        ],
      },
      constraints: [
        {
          name: "weight",
          terms: [
            { var: "a", coef: 4 },
            { var: "b", coef: 3 },
            { var: "c", coef: 2 },
          ],
          ub: 5,
        },
      ],
    });
    const options = { timeLimitSeconds: 10, gapTolerance: 0 };
    const r = solveJaos(knapsack, options);
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBe(7);
    expect(Object.keys(r)).toEqual([...ROW_FIELDS, "stats"]);
    // the engine's own answer, clocks aside, is the service's
    const clockless = (x: object) => ({ ...x, wall_time_ms: 0, solver_time_seconds: 0 });
    expect(clockless(r)).toEqual(clockless(solveJaosModel(knapsack, options)));
  });

  it("measures the whole call, the dual check included, as wall_time_ms", () => {
    const r = solveJaos(TEXTBOOK_LP, { timeLimitSeconds: 10, gapTolerance: 1e-6 });
    expect(r.wall_time_ms).toBeGreaterThanOrEqual(Math.floor(r.solver_time_seconds! * 1000));
  });
});
