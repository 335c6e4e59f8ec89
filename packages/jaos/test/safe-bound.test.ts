import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { modelFromProblem, type LpModel } from "../src/model.js";
import { impliedColumnBounds, lagrangianBound } from "../src/safe-bound.js";
import { cscFromTriplets } from "../src/sparse.js";
import { problem, seededGenerator, TEXTBOOK_LP } from "./support.js";

const far = () => performance.now() + 10_000;
const rel = (v: number) => 1e-9 * Math.max(1, Math.abs(v));

/**
 * A random feasible LP: rows built around a random point x0 inside the column box, each an upper
 * side, a lower side, an equality or a range; columns boxed, or with `openSides` also one-sided or
 * (a few) free.
 */
function randomLp(seed: number, m: number, n: number, openSides: boolean): LpModel {
  const g = seededGenerator(seed);
  const colLower = new Float64Array(n);
  const colUpper = new Float64Array(n);
  const x0 = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const kind = openSides ? g.int(0, 9) : 0;
    const lo = g.int(-5, 0);
    const up = lo + g.int(1, 10);
    colLower[j] = kind === 9 ? -Infinity : lo;
    colUpper[j] = kind >= 7 ? Infinity : up;
    x0[j] = lo + g.next() * (up - lo);
  }
  const ri: number[] = [];
  const ci: number[] = [];
  const vals: number[] = [];
  const act = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      if (g.next() > 0.4) continue;
      const a = (g.int(1, 20) / 4) * (g.next() < 0.5 ? -1 : 1);
      ri.push(i);
      ci.push(j);
      vals.push(a);
      act[i] += a * x0[j]!;
    }
  }
  const rowLower = new Float64Array(m);
  const rowUpper = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const kind = g.int(0, 3);
    const room = 1 + g.next() * 3;
    rowLower[i] = kind === 0 ? -Infinity : kind === 2 ? act[i]! : act[i]! - room;
    rowUpper[i] = kind === 1 ? Infinity : kind === 2 ? act[i]! : act[i]! + room;
  }
  const cost = new Float64Array(n);
  // costs that keep the LP bounded: pointing toward the finite bound of one-sided columns
  for (let j = 0; j < n; j++) {
    const c = g.int(-10, 10) / 2;
    if (colLower[j] === -Infinity && colUpper[j] === Infinity) cost[j] = 0;
    else if (colUpper[j] === Infinity) cost[j] = Math.abs(c) + 0.5;
    else if (colLower[j] === -Infinity) cost[j] = -(Math.abs(c) + 0.5);
    else cost[j] = c;
  }
  const a = cscFromTriplets(m, n, ri, ci, vals);
  return { rows: m, cols: n, a, cost, colLower, colUpper, rowLower, rowUpper, offset: g.int(-3, 3), integer: new Uint8Array(n) };
}

function solved(model: LpModel): { objective: number; y: Float64Array } {
  const engine = new LpEngine(model);
  const r = engine.solve({ deadline: far() });
  expect(r.status).toBe("optimal");
  return { objective: r.objective, y: engine.rowDuals() };
}

describe("jaos safe bound: the Lagrangian bound of any row multipliers", () => {
  it("never exceeds the LP optimum for random multipliers and meets it at the optimal duals", () => {
    let finiteRandom = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const model = randomLp(seed, 8 + (seed % 5), 12 + (seed % 7), false);
      const { objective, y } = solved(model);
      const implied = impliedColumnBounds(model, model.colLower, model.colUpper);
      const atOptimum = lagrangianBound(model, y, implied);
      expect(Math.abs(atOptimum.value - objective), `seed ${seed}`).toBeLessThanOrEqual(rel(objective));
      expect(atOptimum.value).toBeLessThanOrEqual(objective + rel(objective));
      const g = seededGenerator(1000 + seed);
      for (let draw = 0; draw < 25; draw++) {
        // perturbations of the optimal duals, and multipliers unrelated to them
        const random = y.map((v) => (draw % 2 === 0 ? v + (g.next() - 0.5) * 0.2 * (1 + Math.abs(v)) : (g.next() - 0.5) * 10));
        const b = lagrangianBound(model, random, implied);
        if (b.value > -Infinity) finiteRandom++;
        expect(b.value, `seed ${seed} draw ${draw}`).toBeLessThanOrEqual(objective + rel(objective));
      }
    }
    // the comparison above must have had finite bounds to compare
    expect(finiteRandom).toBeGreaterThan(100);
  });

  it("stays below the optimum with one-sided and free columns, finite where the rows imply a box", () => {
    let finiteAtOptimum = 0;
    for (let seed = 21; seed <= 40; seed++) {
      const model = randomLp(seed, 8 + (seed % 5), 12 + (seed % 7), true);
      const { objective, y } = solved(model);
      const implied = impliedColumnBounds(model, model.colLower, model.colUpper);
      const boxed = implied.lower.every(Number.isFinite) && implied.upper.every(Number.isFinite);
      const atOptimum = lagrangianBound(model, y, implied).value;
      expect(atOptimum, `seed ${seed}`).toBeLessThanOrEqual(objective + rel(objective));
      if (boxed) {
        expect(Math.abs(atOptimum - objective), `seed ${seed}`).toBeLessThanOrEqual(rel(objective));
        finiteAtOptimum++;
      }
      const g = seededGenerator(2000 + seed);
      for (let draw = 0; draw < 10; draw++) {
        const random = y.map((v) => v + (g.next() - 0.5) * (1 + Math.abs(v)));
        expect(lagrangianBound(model, random, implied).value, `seed ${seed} draw ${draw}`).toBeLessThanOrEqual(objective + rel(objective));
      }
    }
    expect(finiteAtOptimum).toBeGreaterThan(3);
  });

  it("takes a d_j within 1e-9 of 0 against an infinite bound as 0, and bounds the rest by the implied box", () => {
    const model = modelFromProblem(TEXTBOOK_LP).model;
    const { objective, y } = solved(model);
    expect(objective).toBeCloseTo(-36, 12);
    // x and y are basic, d = 0 up to rounding, and have no upper bound
    const open = lagrangianBound(model, y);
    expect(open.zeroedColumns).toBe(2);
    expect(open.value).toBeCloseTo(-36, 12);
    expect(open.value).toBeLessThanOrEqual(-36);
    // the rows imply x ≤ 4 and y ≤ 6: the same bound with every term proved
    const implied = impliedColumnBounds(model, model.colLower, model.colUpper);
    const boxed0 = lagrangianBound(model, y, implied);
    expect(boxed0.zeroedColumns).toBe(0);
    expect(boxed0.value).toBeCloseTo(-36, 12);
    expect(boxed0.value).toBeLessThanOrEqual(-36);
    // y = 0 leaves d = c < 0 against x, y ≤ ∞: nothing is proved without the box
    const none = lagrangianBound(model, new Float64Array(3));
    expect(none.value).toBe(-Infinity);
    expect(none.unboundedColumns).toBe(2);
    // y = 0: min −3x − 5y over the implied box is −3·4 − 5·6 = −42 (less the loosening of the box)
    expect(implied.upper[0]).toBeGreaterThanOrEqual(4);
    expect(implied.upper[0]).toBeLessThan(4.001);
    expect(implied.upper[1]).toBeGreaterThanOrEqual(6);
    const boxed = lagrangianBound(model, new Float64Array(3), implied);
    expect(boxed.value).toBeLessThanOrEqual(-42);
    expect(boxed.value).toBeGreaterThan(-42.01);
  });

  it("takes a tiny d_j as 0 where the only bound is one a big-M row implies (1e9), instead of losing 1e9·d_j", () => {
    // min x + y, x − M·y ≤ 0, x ≥ 1, y ∈ [0, 1]: the LP sets y = 1/M, value 1 + 1/M; x has no upper bound
    // of its own, the rows imply x ≤ M
    for (const bigM of [1e3, 1e6, 1e9]) {
      const model = modelFromProblem(
        problem({
          sense: "minimize",
          variables: [
            { name: "x", lb: 0, ub: null },
            { name: "y", lb: 0, ub: 1 },
          ],
          objective: {
            constant: 0,
            terms: [
              { var: "x", coef: 1 },
              { var: "y", coef: 1 },
            ],
          },
          constraints: [
            {
              name: "link",
              terms: [
                { var: "x", coef: 1 },
                { var: "y", coef: -bigM },
              ],
              lb: null,
              ub: 0,
            },
            { name: "need", terms: [{ var: "x", coef: 1 }], lb: 1, ub: null },
          ],
        }),
      ).model;
      const { objective, y } = solved(model);
      const implied = impliedColumnBounds(model, model.colLower, model.colUpper);
      expect(implied.upper[0]).toBeGreaterThanOrEqual(bigM);
      const b = lagrangianBound(model, y, implied).value;
      expect(b).toBeLessThanOrEqual(objective);
      expect(objective - b, `M = ${bigM}`).toBeLessThan(1e-9);
    }
  });

  it("drops a multiplier whose row side is infinite instead of giving up", () => {
    // min x s.t. x ≥ 1 (row), 0 ≤ x ≤ 10: the optimal dual is 1; a negative multiplier on a row
    // without an upper side counts as 0, so the bound is min x over the box = 0
    const model = modelFromProblem(
      problem({
        sense: "minimize",
        variables: [{ name: "x", lb: 0, ub: 10 }],
        objective: { constant: 0, terms: [{ var: "x", coef: 1 }] },
        constraints: [{ name: "r", terms: [{ var: "x", coef: 1 }], lb: 1, ub: null }],
      }),
    ).model;
    expect(lagrangianBound(model, Float64Array.of(1)).value).toBeCloseTo(1, 12);
    expect(lagrangianBound(model, Float64Array.of(-3)).value).toBeCloseTo(0, 12);
    expect(lagrangianBound(model, Float64Array.of(0.5)).value).toBeCloseTo(0.5, 12);
    expect(lagrangianBound(model, Float64Array.of(Number.NaN)).value).toBe(-Infinity);
  });

  it("keeps a rounding allowance: the bound sits at or below exact arithmetic's", () => {
    // 0.1·x over x = 3 (fixed): 0.1·3 rounds up in binary (0.30000000000000004 > 0.3)
    const model = modelFromProblem(
      problem({
        sense: "minimize",
        variables: [{ name: "x", lb: 3, ub: 3 }],
        objective: { constant: 0, terms: [{ var: "x", coef: 0.1 }] },
        constraints: [],
      }),
    ).model;
    const b = lagrangianBound(model, new Float64Array(0)).value;
    expect(b).toBeLessThan(0.1 * 3);
    expect(0.3 - b).toBeLessThan(1e-15);
  });
});
