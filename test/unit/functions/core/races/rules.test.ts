import { describe, expect, it } from "vitest";
import { bestWhenAllEnded, isProvenVerdict, lineUp, raceSolvers } from "../../../../../functions/core/races/rules.js";
import type { RaceEntrant } from "../../../../../functions/core/races/schemas.js";

/** The race's rules (races/rules.ts): who enters, how many run, what wins when nobody proved a verdict. */

const row = (solver: RaceEntrant["solver"], fields: Partial<RaceEntrant>): RaceEntrant => ({
  solver,
  execution_id: `exe_${solver}`,
  state: "finished",
  status: "time_limit",
  objective_value: null,
  best_bound: null,
  time_seconds: 1,
  ...fields,
});

describe("race rules", () => {
  it("counts optimal, infeasible and unbounded as proven verdicts, nothing else", () => {
    expect(["optimal", "infeasible", "unbounded"].every((s) => isProvenVerdict(s as never))).toBe(true);
    expect(["feasible", "time_limit", "error"].some((s) => isProvenVerdict(s as never))).toBe(false);
    expect(isProvenVerdict(null)).toBe(false);
  });

  it("enters every available solver that can run the class by default, and names why the others cannot", () => {
    const { solvers, refused } = raceSolvers(undefined, "MILP", new Set(["highs", "glpk", "cbc", "jaos"]));
    expect(solvers.sort()).toEqual(["cbc", "glpk", "highs", "jaos"]);
    expect(refused).toEqual({ scip: "not_available" });
    expect(raceSolvers(["glpk", "highs"], "QP", new Set(["glpk", "highs"])).refused).toEqual({ glpk: "quadratic_terms" });
  });

  it("puts the class's preferred solver first and cuts the field to the free workers, saying who did not enter", () => {
    const lineup = lineUp(["glpk", "cbc", "highs"], "MILP", 2);
    expect(lineup.entrants).toHaveLength(2);
    expect(lineup.entrants[0]).toBe("highs");
    expect(lineup.degraded).toBe(false);
    expect(lineup.note).toMatch(/2 workers were free: .* did not enter/);
    expect(lineUp(["glpk", "highs"], "MILP", 4)).toEqual({ entrants: ["highs", "glpk"], degraded: false, note: null });
  });

  it("degrades to the best single choice when fewer than two workers are free, and says why", () => {
    const one = lineUp(["glpk", "highs", "cbc"], "MILP", 1);
    expect(one).toMatchObject({ entrants: ["highs"], degraded: true });
    expect(one.note).toContain("only one worker was free");
    expect(lineUp(["glpk", "highs"], "LP", 0).note).toContain("no worker was free");
    expect(lineUp(["glpk"], "LP", 4)).toMatchObject({ entrants: ["glpk"], degraded: true });
  });

  it("when all ended unproved, picks the best finished objective in the problem's sense, never a stopped one's", () => {
    const entrants = [
      row("glpk", { objective_value: 10 }),
      row("highs", { objective_value: 12 }),
      row("cbc", { state: "cancelled", status: "feasible", objective_value: 99 }),
    ];
    expect(bestWhenAllEnded(entrants, "maximize")).toBe(1);
    expect(bestWhenAllEnded(entrants, "minimize")).toBe(0);
    expect(bestWhenAllEnded([row("glpk", { state: "failed", status: "error" }), row("highs", { status: "time_limit" })], "minimize")).toBe(1);
    expect(bestWhenAllEnded([row("glpk", { state: "failed", status: "error" })], "minimize")).toBe(0);
  });
});
