import { describe, expect, it } from "vitest";
import { answeredHereChoice, handsBackToFleet, mayTakeOver } from "../../../../../functions/core/executions/api-solve.js";
import type { AutoChoice } from "../../../../../functions/core/solvers/recommendation/schemas.js";

const HIGHS_CHOSEN: AutoChoice = {
  solver: "highs",
  reason: "Kept HiGHS, the default for MILP, for lack of clear evidence: …",
  basis: "organization",
  evidence: { comparisons: 7, similar_problems: ["cmp_1", "cmp_2", "cmp_3"] },
};
const JAOS_CHOSEN: AutoChoice = { ...HIGHS_CHOSEN, solver: "jaos", reason: "jaos was fastest on 3 of the 3 most similar models you compared." };

describe("the API's own small solves with auto", () => {
  it("take over from a live fleet only jaos's work: a named jaos, or an auto that chose jaos", () => {
    expect(mayTakeOver({ solver_requested: "jaos", solver_name: "jaos" })).toBe(true);
    expect(mayTakeOver({ solver_requested: "auto", solver_name: "jaos" })).toBe(true);
    expect(mayTakeOver({ solver_requested: "auto", solver_name: "highs" })).toBe(false);
  });

  it("keep an auto choice of jaos as it was made", () => {
    expect(answeredHereChoice({ solver_requested: "auto", solver_name: "jaos", auto_choice: JAOS_CHOSEN })).toEqual(JAOS_CHOSEN);
  });

  it("say, when no worker was warm, that jaos answered and what would have run", () => {
    const choice = answeredHereChoice({ solver_requested: "auto", solver_name: "highs", auto_choice: HIGHS_CHOSEN })!;
    expect(choice.solver).toBe("jaos");
    expect(choice.basis).toBe("organization");
    expect(choice.evidence).toEqual(HIGHS_CHOSEN.evidence);
    expect(choice.reason).toMatch(/^No solver worker was warm, so the API answered at once with jaos .*with a warm worker HiGHS would have run\. Kept HiGHS/);
  });

  it("say so too without a recommender (today's rule), and leave a named solver's execution without a choice", () => {
    const rule = answeredHereChoice({ solver_requested: "auto", solver_name: "highs" })!;
    expect(rule).toMatchObject({ solver: "jaos", basis: "default_rule", evidence: { comparisons: 0, similar_problems: [] } });
    expect(rule.reason).toContain("HiGHS by the default rule.");
    expect(answeredHereChoice({ solver_requested: "jaos", solver_name: "jaos" })).toBeUndefined();
  });

  it("hand an auto solve that jaos ended in an error to the fleet (whose worker falls back to the default); a named jaos keeps its error", () => {
    expect(handsBackToFleet({ solver_requested: "auto" }, "error")).toBe(true);
    expect(handsBackToFleet({ solver_requested: "auto" }, "time_limit")).toBe(false);
    expect(handsBackToFleet({ solver_requested: "auto" }, "optimal")).toBe(false);
    expect(handsBackToFleet({ solver_requested: "jaos" }, "error")).toBe(false);
  });
});
