import { describe, expect, it } from "vitest";
import { checkDuals } from "../../../../../functions/core/solvers/checker.js";
import { dualFields, dualsWithSingletonRows, normaliseDuals, reducedCostsOf } from "../../../../../functions/core/solvers/duals.js";
import { problem } from "../../../../support/jaos.js";

/** min x + 2y + 3z  s.t.  x + y + z ≥ 2,  x − y ≤ 1,  x ≤ 10;  optimum x = 1.5, y = 0.5, z = 0 (2.5). */
const lp = (sense: "minimize" | "maximize") => {
  const s = sense === "maximize" ? -1 : 1;
  return problem({
    sense,
    variables: [{ name: "x" }, { name: "y" }, { name: "z" }],
    objective: {
      constant: 1,
      terms: [
        { var: "x", coef: s },
        { var: "y", coef: 2 * s },
        { var: "z", coef: 3 * s },
      ],
    },
    constraints: [
      {
        name: "cover",
        lb: 2,
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
          { var: "z", coef: 1 },
        ],
      },
      {
        name: "balance",
        ub: 1,
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: -1 },
        ],
      },
      { name: "cap", ub: 10, terms: [{ var: "x", coef: 1 }] },
    ],
  });
};
const x = { x: 1.5, y: 0.5, z: 0 };

describe("LP duals: sign convention and checker", () => {
  it("accepts the optimal duals of a minimisation (lower side y ≥ 0, upper side y ≤ 0, d ≥ 0 at a lower bound)", () => {
    const p = lp("minimize");
    const duals = { cover: 1.5, balance: -0.5, cap: 0 };
    const reduced = reducedCostsOf(p, duals);
    expect(reduced).toEqual({ x: 0, y: 0, z: 1.5 });
    expect(checkDuals(p, { solution: x, duals, reducedCosts: reduced })).toEqual([]);
  });

  it("accepts the maximisation's duals with every sign flipped, and normalises a minimised form's duals to them", () => {
    const p = lp("maximize");
    // A solver given min −c reports the minimiser's duals of that form; the convention flips them.
    const normalised = normaliseDuals(p, { reportedFor: "minimisation", rowDuals: { cover: 1.5, balance: -0.5, cap: 0 } });
    expect(normalised).toEqual({ duals: { cover: -1.5, balance: 0.5, cap: 0 }, reduced_costs: { x: 0, y: 0, z: -1.5 } });
    expect(checkDuals(p, { solution: x, duals: normalised!.duals, reducedCosts: normalised!.reduced_costs })).toEqual([]);
    // The minimisation's signs on the maximisation are wrong: cover's lower side cannot take y > 0 there.
    const unflipped = { cover: 1.5, balance: -0.5, cap: 0 };
    const kinds = checkDuals(p, { solution: x, duals: unflipped, reducedCosts: { x: -2.5, y: -3.5, z: -4.5 } }).map((v) => v.kind);
    expect(kinds).toContain("dual_sign");
    expect(kinds).toContain("strong_duality");
  });

  it("rejects a dual of the wrong sign on a one-sided row", () => {
    const p = lp("minimize");
    const duals = { cover: -1.5, balance: 0.5, cap: 0 };
    const violations = checkDuals(p, { solution: x, duals, reducedCosts: reducedCostsOf(p, duals) });
    expect(violations.find((v) => v.kind === "dual_sign")?.name).toBe("cover");
  });

  it("rejects duals that break complementary slackness on an inactive row, even when the identity c = Aᵀy + d holds", () => {
    const p = lp("minimize");
    const duals = { cover: 1.5, balance: -0.5, cap: -0.25 };
    const violations = checkDuals(p, { solution: x, duals, reducedCosts: reducedCostsOf(p, duals) });
    expect(violations.filter((v) => v.kind === "complementary_slackness").map((v) => v.name)).toEqual(["cap", "x"]);
    expect(violations.some((v) => v.kind === "stationarity")).toBe(false);
  });

  it("rejects reduced costs that do not satisfy c = Aᵀy + d", () => {
    const p = lp("minimize");
    const violations = checkDuals(p, { solution: x, duals: { cover: 1.5, balance: -0.5, cap: 0 }, reducedCosts: { x: 0, y: 0, z: 1 } });
    expect(violations.map((v) => v.kind)).toEqual(["stationarity"]);
  });

  it("rejects feasible-signed duals whose dual objective misses the primal one (a non-optimal dual point)", () => {
    const p = lp("minimize");
    const duals = { cover: 1, balance: 0, cap: 0 };
    const violations = checkDuals(p, { solution: x, duals, reducedCosts: reducedCostsOf(p, duals) });
    expect(violations.some((v) => v.kind === "strong_duality")).toBe(true);
  });

  it("leaves duals out for a row the solver saw without a value, and checks only LPs", () => {
    const p = lp("minimize");
    expect(normaliseDuals(p, { reportedFor: "minimisation", rowDuals: { cover: 1.5, balance: -0.5 } })).toBeNull();
    const milp = problem({ variables: [{ name: "n", type: "integer" }], objective: { terms: [{ var: "n", coef: 1 }] } });
    expect(checkDuals(milp, { solution: { n: 0 }, duals: {}, reducedCosts: { n: 1 } }).map((v) => v.kind)).toEqual(["not_an_lp"]);
  });

  it("gives a one-variable row the multiplier of its variable when the row, not the bound, is active (SCIP treats such rows as bounds)", () => {
    // min x + y  s.t.  floor: 2x ≥ 4,  pair: x + y ≥ 3,  x, y ≥ 0: optimum x = 2, y = 1; y_pair = 1, y_floor = 0.
    const p = problem({
      variables: [{ name: "x" }, { name: "y" }],
      objective: {
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
      },
      constraints: [
        { name: "floor", lb: 4, terms: [{ var: "x", coef: 2 }] },
        {
          name: "pair",
          lb: 3,
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 1 },
          ],
        },
      ],
    });
    const point = { x: 2, y: 1 };
    // With a costlier x the floor row carries the difference: c_x − y_pair = 3 − 1 = 2 = 2·y_floor.
    const dear = {
      ...p,
      objective: {
        ...p.objective,
        terms: [
          { var: "x", coef: 3 },
          { var: "y", coef: 1 },
        ],
      },
    };
    const lpDuals = dualsWithSingletonRows(dear, point, { pair: 1 })!;
    expect(lpDuals.duals).toEqual({ floor: 1, pair: 1 });
    expect(lpDuals.reduced_costs).toEqual({ x: 0, y: 0 });
    expect(checkDuals(dear, { solution: point, duals: lpDuals.duals, reducedCosts: lpDuals.reduced_costs })).toEqual([]);
    expect(dualsWithSingletonRows(p, point, {})).toBeNull();
  });

  it("marks a result's duals false when the checker rejects them, keeps them for inspection, and leaves them out for a MILP or a non-optimal verdict", () => {
    const p = lp("minimize");
    const wrong = normaliseDuals(p, { reportedFor: "problem", rowDuals: { cover: -1.5, balance: 0.5, cap: 0 } });
    expect(dualFields(p, { solver_status: "optimal", solution: x }, wrong)).toEqual({ ...wrong, duals_verified: false });
    const right = normaliseDuals(p, { reportedFor: "problem", rowDuals: { cover: 1.5, balance: -0.5, cap: 0 } });
    expect(dualFields(p, { solver_status: "optimal", solution: x }, right).duals_verified).toBe(true);
    expect(dualFields(p, { solver_status: "time_limit", solution: x }, right)).toEqual({ duals: null, reduced_costs: null, duals_verified: null });
    const milp = problem({ variables: [{ name: "n", type: "integer" }], objective: { terms: [{ var: "n", coef: 1 }] } });
    expect(dualFields(milp, { solver_status: "optimal", solution: { n: 0 } }, { duals: {}, reduced_costs: { n: 1 } }).duals).toBeNull();
  });
});
