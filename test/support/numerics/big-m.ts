import fc from "fast-check";
import type { ProblemInput } from "../../../functions/core/problem/schema.js";
import { assignments, type Base, best, bigM, type Column, fillCheapest, int, type Row, sum, terms } from "./shared.js";

/** The families whose binaries switch a continuous variable through a big-M row (see cases.ts). */

// ---------------------------------------------------------------- fixed charge

export interface FixedChargeRecipe {
  facilities: { fixed: number; unit: number; cap: number | null }[];
  demand: number;
  M: number;
}

/** Per y: x_j ∈ [0, cap_j·y_j] (M·y_j ≥ D never binds) and Σx ≥ D, a fractional knapsack. */
export function fixedCharge(r: FixedChargeRecipe): Base {
  const n = r.facilities.length;
  const problem: ProblemInput = {
    name: "fixed charge",
    variables: [
      ...r.facilities.map((_, j): Column => ({ name: `y${j}`, type: "binary" })),
      ...r.facilities.map((f, j): Column => ({ name: `x${j}`, ub: f.cap })),
    ],
    objective: {
      terms: terms(
        r.facilities.flatMap((f, j): [string, number][] => [
          [`y${j}`, f.fixed],
          [`x${j}`, f.unit],
        ]),
      ),
    },
    constraints: [
      ...r.facilities.map(
        (_, j): Row => ({
          name: `link${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -r.M],
          ]),
          ub: 0,
        }),
      ),
      { name: "demand", terms: terms(r.facilities.map((_, j) => [`x${j}`, 1])), lb: r.demand },
    ],
  };
  const candidates = [...assignments(n)].map((y) => {
    const hi = r.facilities.map((f, j) => y[j]! * Math.min(f.cap ?? r.M, r.M));
    const x = fillCheapest({ cost: r.facilities.map((f) => f.unit), lo: new Array(n).fill(0), hi, need: r.demand, exact: false });
    if (!x) return null;
    const value = sum(r.facilities.map((f, j) => f.fixed * y[j]! + f.unit * x[j]!));
    return {
      value,
      point: Object.fromEntries(
        r.facilities.flatMap((_, j) => [
          [`y${j}`, y[j]!],
          [`x${j}`, x[j]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

export const fixedChargeRecipe = fc.record({
  facilities: fc.array(fc.record({ fixed: int(1, 20), unit: int(0, 5), cap: fc.option(int(1, 10), { nil: null }) }), { minLength: 1, maxLength: 6 }),
  demand: int(1, 12),
  M: bigM,
});

// ---------------------------------------------------------------- indicator

export interface IndicatorRecipe {
  items: { bonus: number; unit: number; level: number; room: number; offMeansZero: boolean }[];
  resource: number;
  atLeast: number;
  M: number;
}

/**
 * max Σ g_i y_i − c_i x_i. Per y: x_i ∈ [L_i·y_i, U_i] (or [0, 0] when off and `offMeansZero`) and
 * Σx ≤ R. With c ≥ 0 the least point x = L·y is optimal, and if it breaks Σx ≤ R every point does.
 * The rows are void when their binary says so: x − M·y ≥ L − M at y = 0 since L ≤ 10 < M; x − M·y ≤ 0
 * at y = 1 since U ≤ 12 < M.
 */
export function indicator(r: IndicatorRecipe): Base {
  const n = r.items.length;
  const rows: Row[] = r.items.flatMap((it, i): Row[] => [
    {
      name: `on${i}`,
      terms: terms([
        [`x${i}`, 1],
        [`y${i}`, -r.M],
      ]),
      lb: it.level - r.M,
    },
    ...(it.offMeansZero
      ? [
          {
            name: `off${i}`,
            terms: terms([
              [`x${i}`, 1],
              [`y${i}`, -r.M],
            ]),
            ub: 0,
          },
        ]
      : []),
  ]);
  rows.push({ name: "resource", terms: terms(r.items.map((_, i) => [`x${i}`, 1])), ub: r.resource });
  if (r.atLeast > 0) rows.push({ name: "count", terms: terms(r.items.map((_, i) => [`y${i}`, 1])), lb: r.atLeast });
  const problem: ProblemInput = {
    name: "indicator",
    sense: "maximize",
    variables: [...r.items.map((_, i): Column => ({ name: `y${i}`, type: "binary" })), ...r.items.map((it, i): Column => ({ name: `x${i}`, ub: it.room }))],
    objective: {
      terms: terms(
        r.items.flatMap((it, i): [string, number][] => [
          [`y${i}`, it.bonus],
          [`x${i}`, -it.unit],
        ]),
      ),
    },
    constraints: rows,
  };
  const candidates = [...assignments(n)].map((y) => {
    const x = r.items.map((it, i) => it.level * y[i]!);
    if (r.items.some((it, i) => x[i]! > it.room) || sum(x) > r.resource || sum(y) < r.atLeast) return null;
    // Minimised: the negated objective.
    const value = -sum(r.items.map((it, i) => it.bonus * y[i]! - it.unit * x[i]!));
    return {
      value,
      point: Object.fromEntries(
        r.items.flatMap((_, i) => [
          [`y${i}`, y[i]!],
          [`x${i}`, x[i]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

export const indicatorRecipe = fc.record({
  items: fc.array(fc.record({ bonus: int(0, 30), unit: int(0, 5), level: int(1, 10), room: int(0, 12), offMeansZero: fc.boolean() }), {
    minLength: 1,
    maxLength: 5,
  }),
  resource: int(0, 30),
  atLeast: int(0, 2),
  M: bigM,
});

// ---------------------------------------------------------------- semi-continuous

export interface SemiContinuousRecipe {
  units: { fixed: number; unit: number; minimum: number; maximum: number | null }[];
  demand: number;
  exact: boolean;
  M: number;
}

/**
 * x_j = 0 or L_j ≤ x_j ≤ U_j (U_j = M when uncapped): rows x_j − U_j·y_j ≤ 0 and x_j − L_j·y_j ≥ 0.
 * min Σ f_j y_j + c_j x_j with Σx = D (or ≥ D). Per y: the box [L·y, U·y] and one sum row, filled cheapest
 * first from the lower bounds (U = M is used as it is: the fill never goes past D ≤ 20).
 */
export function semiContinuous(r: SemiContinuousRecipe): Base {
  const n = r.units.length;
  const upper = r.units.map((u) => u.maximum ?? r.M);
  const problem: ProblemInput = {
    name: "semi-continuous",
    variables: [...r.units.map((_, j): Column => ({ name: `y${j}`, type: "binary" })), ...r.units.map((_, j): Column => ({ name: `x${j}` }))],
    objective: {
      terms: terms(
        r.units.flatMap((u, j): [string, number][] => [
          [`y${j}`, u.fixed],
          [`x${j}`, u.unit],
        ]),
      ),
    },
    constraints: [
      ...r.units.flatMap((u, j): Row[] => [
        {
          name: `upper${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -upper[j]!],
          ]),
          ub: 0,
        },
        {
          name: `lower${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -u.minimum],
          ]),
          lb: 0,
        },
      ]),
      { name: "demand", terms: terms(r.units.map((_, j) => [`x${j}`, 1])), lb: r.demand, ub: r.exact ? r.demand : null },
    ],
  };
  const candidates = [...assignments(n)].map((y) => {
    const x = fillCheapest({
      cost: r.units.map((u) => u.unit),
      lo: r.units.map((u, j) => u.minimum * y[j]!),
      hi: upper.map((u, j) => u * y[j]!),
      need: r.demand,
      exact: r.exact,
    });
    if (!x) return null;
    const value = sum(r.units.map((u, j) => u.fixed * y[j]! + u.unit * x[j]!));
    return {
      value,
      point: Object.fromEntries(
        r.units.flatMap((_, j) => [
          [`y${j}`, y[j]!],
          [`x${j}`, x[j]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

export const semiContinuousRecipe = fc.record({
  units: fc.array(fc.record({ fixed: int(0, 10), unit: int(0, 5), minimum: int(1, 8), maximum: fc.option(int(1, 15), { nil: null }) }), {
    minLength: 1,
    maxLength: 5,
  }),
  demand: int(1, 20),
  exact: fc.boolean(),
  M: bigM,
});
