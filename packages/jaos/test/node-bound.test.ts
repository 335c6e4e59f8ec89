import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { modelFromProblem } from "../src/model.js";
import { provenLpBound } from "../src/node-bound.js";
import { impliedColumnBounds } from "../src/safe-bound.js";
import { problem } from "./support.js";

const far = () => performance.now() + 10_000;

/** max 0.3x + y s.t. x − y ≤ 0.5, 0 ≤ x, y ≤ 1 (min −0.3x − y): optimum x = y = 1, −1.3 in min sense. */
const LOOSE = modelFromProblem(
  problem({
    sense: "maximize",
    variables: [
      { name: "x", lb: 0, ub: 1 },
      { name: "y", lb: 0, ub: 1 },
    ],
    objective: {
      constant: 0,
      terms: [
        { var: "x", coef: 0.3 },
        { var: "y", coef: 1 },
      ],
    },
    constraints: [
      {
        name: "r",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: -1 },
        ],
        ub: 0.5,
      },
    ],
  }),
).model;

describe("jaos node LP bound: what the duals prove, not what the simplex reports", () => {
  it("stays at the true optimum when a loose dual tolerance makes the simplex overstate its objective", () => {
    const engine = new LpEngine(LOOSE);
    // a dual tolerance of 0.5 accepts x at 0 with reduced cost −0.3: "optimal" at x = 0, y = 1
    const r = engine.solve({ deadline: far(), perturb: false, tolerances: { primal: 1e-9, dual: 0.5 } });
    expect(r.status).toBe("optimal");
    expect(r.objective).toBeCloseTo(-1, 12);
    const proof = provenLpBound(engine, impliedColumnBounds(LOOSE, LOOSE.colLower, LOOSE.colUpper), r)!;
    expect(proof.how).toBe("lagrangian");
    // the LP's true optimum is −1.3: a pruning level of −1.1 is reached by the reported value, not the proof
    expect(proof.value).toBeLessThanOrEqual(-1.3);
    expect(proof.value).toBeGreaterThan(-1.3 - 1e-12);
    // reduced-cost fixing on the proof: x's reduced cost −0.3 points at its upper bound
    expect(proof.reducedCosts[0]).toBeLessThan(0);
  });

  it("proves the optimum itself once the LP is solved to the default tolerances", () => {
    const engine = new LpEngine(LOOSE);
    const r = engine.solve({ deadline: far() });
    expect(r.status).toBe("optimal");
    expect(r.objective).toBeCloseTo(-1.3, 12);
    const proof = provenLpBound(engine, undefined, r)!;
    expect(Math.abs(proof.value - r.objective)).toBeLessThanOrEqual(1e-12);
    expect(proof.value).toBeLessThanOrEqual(r.objective);
  });
});
