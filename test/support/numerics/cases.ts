import fc from "fast-check";
import type { ProblemInput } from "../../../functions/core/problem/schema.js";
import { fixedCharge, fixedChargeRecipe, indicator, indicatorRecipe, semiContinuous, semiContinuousRecipe } from "./big-m.js";
import { disjunctive, disjunctiveRecipe } from "./disjunctive.js";
import { nearIntegral, nearIntegralRecipe } from "./near-integral.js";
import { type Base, int, type NumericsCase, type NumericsFamily, type Widening } from "./shared.js";

export { disjunctive } from "./disjunctive.js";
export { fixedCharge, indicator, semiContinuous } from "./big-m.js";
export { nearIntegral } from "./near-integral.js";
export { FAMILIES, type NumericsCase, type NumericsFamily, type Widening } from "./shared.js";

/**
 * Small MILPs of the kind every operations model contains — a big-M link between a continuous and a binary
 * variable — whose optimum (or infeasibility) is known by construction, for the numerics suite (issue 24).
 * Each family is a fast-check arbitrary over a recipe of small integers mapped to a problem, so a failure
 * shrinks to a small recipe. The data are integers (M too), so every reference is computed exactly.
 *
 * The reference: every family, once its binaries (and, for near-integral, its integers) are fixed, leaves
 * an LP whose optimum has a closed form — a box with at most one sum row (fractional knapsack: fill the
 * cheapest first), or a chain of difference constraints (the earliest-start schedule). Each builder
 * enumerates the integer assignments (at most 64) and takes the best, and returns that optimum's point
 * (`witness`). Why each closed form is the LP optimum is said at the family; the big M never binds at any
 * point the enumeration uses, because all data other than M are below 100 and M ≥ 1000.
 * test/unit/test/support/numerics/cases.test.ts re-derives every reference independently: it enumerates
 * the integer columns of the problem as written and solves each remaining LP by vertex enumeration.
 *
 * Families:
 *  - fixed-charge: open facility j (y_j) at cost f_j, ship x_j ≤ M·y_j at c_j each, Σx ≥ D.
 *  - indicator: y_i = 1 ⇒ x_i ≥ L_i written x_i − M·y_i ≥ L_i − M (a bonus for reaching a level), and
 *    optionally y_i = 0 ⇒ x_i = 0, a shared resource Σx ≤ R and Σy ≥ K.
 *  - disjunctive: jobs on one machine, either order of each pair by a big-M pair of rows, release and due
 *    dates, weighted completion plus a makespan weight.
 *  - semi-continuous: x_j = 0 or L_j ≤ x_j ≤ U_j (U_j = M where uncapped), demand Σx = D or ≥ D.
 *  - near-integral: A·x + z ≥ r with A = 10⁷…10⁹ and r/A ≤ 1e-7, so the LP relaxation sits within 1e-7
 *    of an integer that is not the answer (and the mirrored ≤ form).
 * Any case may be widened (`widen`): rows ×10⁰…10³, continuous columns substituted x = 10^-k·x′ (k ≤ 2)
 * and the objective ×10⁻²…10³, for coefficient ranges up to M·10⁵.
 *
 * Infeasible cases are infeasible by a margin of at least 1 with every integer at an integer (a due date
 * missed by a whole time unit, a demand short by a whole unit, a count of bonuses not reachable). Note that
 * a tolerance relative to a row's side does not see such margins where M sits on the side
 * (x − M·y ≥ L − M at y = 1 allows x = L − 1e-6·M, i.e. L − 1000 at M = 1e9): the suite judges by the
 * known verdict and optimum, never by a tolerance alone.
 */

// ---------------------------------------------------------------- wide coefficient ranges

/**
 * The same model with wider coefficient ranges. Rows are scaled by 10^k ≥ 1 and columns substituted with
 * 10^-k ≤ 1, so a tolerance met by the widened model is met by the original one (the widening never
 * loosens what a solver must satisfy); the feasible set maps one to one, the optimum scales with the objective.
 */
export function widen(base: Base, w: Widening): Base {
  const p = base.problem;
  const continuous = (p.variables ?? []).filter((v) => (v.type ?? "continuous") === "continuous").map((v) => v.name);
  const columnScale = new Map(continuous.map((name, j) => [name, 10 ** -w.columns[j % w.columns.length]!]));
  const scaleOf = (name: string) => columnScale.get(name) ?? 1;
  const times = (v: number | null | undefined, s: number) => (v === null || v === undefined ? v : v * s);
  const objectiveScale = 10 ** w.objective;
  const problem: ProblemInput = {
    ...p,
    variables: p.variables.map((v) => ({ ...v, lb: times(v.lb, 1 / scaleOf(v.name)), ub: times(v.ub, 1 / scaleOf(v.name)) })),
    objective: {
      constant: (p.objective?.constant ?? 0) * objectiveScale,
      terms: (p.objective?.terms ?? []).map((t) => ({ var: t.var, coef: t.coef * scaleOf(t.var) * objectiveScale })),
    },
    constraints: (p.constraints ?? []).map((row, i) => {
      const s = 10 ** w.rows[i % w.rows.length]!;
      return { ...row, terms: row.terms.map((t) => ({ var: t.var, coef: t.coef * scaleOf(t.var) * s })), lb: times(row.lb, s), ub: times(row.ub, s) };
    }),
  };
  const witness = base.witness && Object.fromEntries(Object.entries(base.witness).map(([name, v]) => [name, v / scaleOf(name)]));
  return { ...base, problem, witness, optimum: base.optimum === null ? null : base.optimum * objectiveScale };
}

const widening: fc.Arbitrary<Widening | null> = fc.option(
  fc.record({
    rows: fc.array(int(0, 3), { minLength: 1, maxLength: 6 }),
    columns: fc.array(int(0, 2), { minLength: 1, maxLength: 6 }),
    objective: int(-2, 3),
  }),
  { nil: null, freq: 2 },
);

// ---------------------------------------------------------------- all families

const withFamily = <R>(family: NumericsFamily, { recipe, build, bigM }: { recipe: fc.Arbitrary<R>; build: (r: R) => Base; bigM: (r: R) => number }) =>
  fc.tuple(recipe, widening).map(([r, w]): NumericsCase => {
    const base = build(r);
    return { family, bigM: bigM(r), widening: w, ...(w ? widen(base, w) : base) };
  });

export const fixedChargeCase = withFamily("fixed-charge", { recipe: fixedChargeRecipe, build: fixedCharge, bigM: (r) => r.M });
export const indicatorCase = withFamily("indicator", { recipe: indicatorRecipe, build: indicator, bigM: (r) => r.M });
export const disjunctiveCase = withFamily("disjunctive", { recipe: disjunctiveRecipe, build: disjunctive, bigM: (r) => r.M });
export const semiContinuousCase = withFamily("semi-continuous", { recipe: semiContinuousRecipe, build: semiContinuous, bigM: (r) => r.M });
export const nearIntegralCase = withFamily("near-integral", {
  recipe: nearIntegralRecipe,
  build: nearIntegral,
  bigM: (r) => Math.max(...r.blocks.map((b) => 10 ** b.exponent)),
});

/** Every family, about equally often. */
export const numericsCase: fc.Arbitrary<NumericsCase> = fc.oneof(fixedChargeCase, indicatorCase, disjunctiveCase, semiContinuousCase, nearIntegralCase);

/**
 * The models of issue 24 as filed, run first in every pass: eight fixed charges of 10 + 1·x with M = 1e7
 * and demand 3 (optimum 13: one facility at 10 + 3), and min 100x + y, y − 1e7·x ≤ 0, y ≥ 5, x binary
 * (optimum 105: x = 0 forces y ≤ 0 < 5, and x = 1 leaves min 100 + y over y ≥ 5); and the smallest
 * fixed charge CBC calls infeasible at M ≥ 1e8 (the suite's shrunk counterexample): min y, x ≤ 1e8·y, x ≥ 1
 * (optimum 1 at y = 1).
 */
export const ISSUE_CASES: NumericsCase[] = [
  {
    family: "fixed-charge",
    bigM: 1e7,
    widening: null,
    ...fixedCharge({ facilities: Array.from({ length: 8 }, () => ({ fixed: 10, unit: 1, cap: null })), demand: 3, M: 1e7 }),
  },
  {
    family: "fixed-charge",
    bigM: 1e7,
    widening: null,
    expected: "optimal",
    optimum: 105,
    witness: { x: 1, y: 5 },
    problem: {
      name: "issue 24, second model",
      variables: [
        { name: "x", type: "binary" },
        { name: "y", lb: 5 },
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
            { var: "x", coef: -1e7 },
          ],
          ub: 0,
        },
      ],
    },
  },
  { family: "fixed-charge", bigM: 1e8, widening: null, ...fixedCharge({ facilities: [{ fixed: 1, unit: 0, cap: null }], demand: 1, M: 1e8 }) },
];
