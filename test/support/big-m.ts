import { ProblemSchema, type Problem } from "../../functions/core/problem/schema.js";

/**
 * The issue-24 big-M models, each with its optimum known by hand (small enough to enumerate the
 * binaries): the place where a solver's absolute integrality tolerance of 1e-6 lets `y = 3/M` pass as 0.
 */

/** The fixed-charge cost f_j of plant j: plant 1 is the cheapest to open. */
export const FIXED_CHARGE_COSTS = [13, 12, 14, 15, 16, 17, 18, 19];

/**
 * Eight plants: min Σ x_j + f_j·y_j, x_j − M·y_j ≤ 0 (`link_j`), Σ x_j ≥ 3 (`demand`), y binary.
 * Opening one plant serves the demand; the cheapest is plant 1: optimum 3 + 12 = 15 (x1 = 3, y1 = 1).
 * Its LP relaxation opens y1 = 3/M: at M = 1e7 that is 3e-7, "integral" within 1e-6.
 */
export function fixedCharge(M: number): Problem {
  const n = FIXED_CHARGE_COSTS.length;
  return ProblemSchema.parse({
    name: `fixed_charge_${M}`,
    variables: Array.from({ length: n }, (_, j) => [
      { name: `x${j}`, lb: 0 },
      { name: `y${j}`, type: "binary" },
    ]).flat(),
    objective: {
      terms: Array.from({ length: n }, (_, j) => [
        { var: `x${j}`, coef: 1 },
        { var: `y${j}`, coef: FIXED_CHARGE_COSTS[j]! },
      ]).flat(),
    },
    constraints: [
      ...Array.from({ length: n }, (_, j) => ({
        name: `link${j}`,
        terms: [
          { var: `x${j}`, coef: 1 },
          { var: `y${j}`, coef: -M },
        ],
        ub: 0,
      })),
      { name: "demand", terms: Array.from({ length: n }, (_, j) => ({ var: `x${j}`, coef: 1 })), lb: 3 },
    ],
  });
}
export const FIXED_CHARGE_OPTIMUM = 15;

/** The indicator: min 100x + y, y − M·x ≤ 0 (`link`), y ≥ 5 (`need`), x binary. x = 0 forces y = 0 < 5: optimum 105. */
export function indicator(M: number): Problem {
  return ProblemSchema.parse({
    name: `indicator_${M}`,
    variables: [
      { name: "x", type: "binary" },
      { name: "y", lb: 0 },
    ],
    objective: {
      terms: [
        { var: "x", coef: 100 },
        { var: "y", coef: 1 },
      ],
    },
    constraints: [
      {
        name: "link",
        terms: [
          { var: "y", coef: 1 },
          { var: "x", coef: -M },
        ],
        ub: 0,
      },
      { name: "need", terms: [{ var: "y", coef: 1 }], lb: 5 },
    ],
  });
}
export const INDICATOR_OPTIMUM = 105;

/**
 * A semi-continuous x: 0, or in [2, M] when s = 1 (`lower`: x ≥ 2s, `upper`: x ≤ M·s); the demand
 * x + u ≥ 3 is met by x (cost 1 each, plus 10 to switch it on) or by u (50 each): optimum 13 (s = 1, x = 3).
 */
export function semiContinuous(M: number): Problem {
  return ProblemSchema.parse({
    name: `semi_continuous_${M}`,
    variables: [
      { name: "s", type: "binary" },
      { name: "x", lb: 0 },
      { name: "u", lb: 0 },
    ],
    objective: {
      terms: [
        { var: "s", coef: 10 },
        { var: "x", coef: 1 },
        { var: "u", coef: 50 },
      ],
    },
    constraints: [
      {
        name: "upper",
        terms: [
          { var: "x", coef: 1 },
          { var: "s", coef: -M },
        ],
        ub: 0,
      },
      {
        name: "lower",
        terms: [
          { var: "x", coef: 1 },
          { var: "s", coef: -2 },
        ],
        lb: 0,
      },
      {
        name: "demand",
        terms: [
          { var: "x", coef: 1 },
          { var: "u", coef: 1 },
        ],
        lb: 3,
      },
    ],
  });
}
export const SEMI_CONTINUOUS_OPTIMUM = 13;
