/**
 * c-MIR cuts on general-integer models (mir.ts: both readings of equations, the complementation
 * search): on random small models whose integers range over a few values, no cut found at the LP
 * optimum removes a mixed-integer feasible point (every integer assignment enumerated, the continuous
 * part minimised by an LP). A failing model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import type { Cut } from "../src/cuts.js";
import { LpEngine } from "../src/lp.js";
import { MirSeparator } from "../src/mir.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { integerPoints, type Problem, problem, retailShapedProblem, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/**
 * Demand rows over general integers with small coefficients, an under and an over column per row
 * (the retail shape), plus a random ≤ row and an integer with a variable-bounded flow.
 */
const randomGeneralInteger = (seed: number): Problem =>
  retailShapedProblem(seed, {
    rows: [1, 3],
    underUpper: [2, 6],
    integerInRow: { chance: 0.8, coef: [1, 4] },
    demand: [2, 9],
    extras: (g, { variables, objective, constraints }) => {
      if (g.next() < 0.5) {
        variables.push({ name: "f", lb: 0, ub: 20, type: "continuous" });
        objective.push(term(-1, "f"));
        constraints.push({ name: "vub", terms: [term(1, "f"), term(-g.int(2, 5), "n0")], ub: 0 });
        constraints.push({ name: "cap", terms: [term(1, "f"), term(g.int(1, 3), "n1")], ub: g.int(4, 9) + 0.5 });
      }
      if (g.next() < 0.6) {
        // a ≥ row and a ranged row
        const cover = variables.filter((v) => v.type === "integer" && g.next() < 0.7).map((v) => term(g.int(1, 3), v.name));
        if (cover.length > 0) constraints.push({ name: "atLeast", terms: cover, lb: g.int(2, 6) + 0.5 });
        const mixed = variables.filter(() => g.next() < 0.5).map((v) => term(g.int(-2, 3), v.name));
        if (mixed.length > 0) constraints.push({ name: "ranged", terms: mixed, lb: -g.int(1, 4) - 0.25, ub: g.int(3, 8) + 0.5 });
      }
    },
  });

/** Smallest left-hand side of the cut over the model's points with the integers fixed; null if none. */
function minimumLhs(model: LpModel, cut: Cut, fixed: Map<number, number>): number | null {
  const cost = new Float64Array(model.cols);
  cut.index.forEach((j, k) => {
    cost[j] = cut.value[k]!;
  });
  const engine = new LpEngine({ ...model, cost, offset: 0 });
  for (const [j, v] of fixed) engine.setColumnBounds(j, v, v);
  const r = engine.solve({ deadline: performance.now() + 5000 });
  if (r.status === "infeasible") return null;
  if (r.status === "unbounded") return -Infinity;
  return r.objective;
}

interface Checked {
  cuts: number;
  failure: string | null;
}

/** The c-MIR cuts at the LP optimum of p, each checked against every integer point. */
function checkCuts(p: Problem): Checked {
  const model = modelFromProblem(p).model;
  const engine = new LpEngine(model);
  const lp = engine.solve({ deadline: performance.now() + 5000 });
  if (lp.status !== "optimal") return { cuts: 0, failure: null };
  const found = new MirSeparator(model).separate(lp.x!, 20, performance.now() + 5000);
  for (const { cut } of found) {
    let at = 0;
    cut.index.forEach((j, k) => {
      at += cut.value[k]! * lp.x![j]!;
    });
    if (!(at < cut.lower)) return { cuts: found.length, failure: "a cut does not cut off the LP point" };
    for (const point of integerPoints(model)) {
      const min = minimumLhs(model, cut, point);
      if (min !== null && min < cut.lower - 1e-7 * Math.max(1, Math.abs(cut.lower))) {
        return { cuts: found.length, failure: `a cut removes ${JSON.stringify([...point])}: ${min} < ${cut.lower}` };
      }
    }
  }
  return { cuts: found.length, failure: null };
}

describe("jaos c-MIR cuts on general-integer models", () => {
  it("keep every mixed-integer point of random general-integer models", () => {
    let cuts = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const p = randomGeneralInteger(seed);
      const checked = checkCuts(p);
      if (checked.failure) {
        const small = shrinkProblem(p, (q) => checkCuts(q).failure);
        expect.fail(`seed ${seed}: ${checkCuts(small).failure}\n${JSON.stringify(small)}`);
      }
      cuts += checked.cuts;
    }
    // the generator must exercise the separator
    expect(cuts).toBeGreaterThan(50);
  });

  it("round a demand row with divisor 1 when no coefficient is 1 (the row's own MIR facet)", () => {
    // 4·n0 + 5·n1 + 3·n2 + u − o = 18.087 met by fractional n0, n1, n2 (a point of retail3's root LP):
    // the coefficient divisors are 4, 5, 3 and their halves, while the facet
    // 4·n0 + 5·n1 + 3·n2 + u/0.087 ≥ 19 comes from divisor 1 only
    const d = 18.087;
    const p = problem({
      sense: "minimize",
      variables: [
        { name: "n0", lb: 0, ub: 1000, type: "integer" },
        { name: "n1", lb: 0, ub: 1000, type: "integer" },
        { name: "n2", lb: 0, ub: 1000, type: "integer" },
        { name: "u", lb: 0, ub: d, type: "continuous" },
        { name: "o", lb: 0, ub: Infinity, type: "continuous" },
      ],
      objective: { constant: 0, terms: [term(1, "n0"), term(1.5, "n1"), term(0.5, "n2"), term(6, "u"), term(1, "o")] },
      constraints: [{ name: "demand", terms: [term(4, "n0"), term(5, "n1"), term(3, "n2"), term(1, "u"), term(-1, "o")], lb: d, ub: d }],
    });
    const model = modelFromProblem(p).model;
    const x = Float64Array.from([0.847, 2.4637, (d - 4 * 0.847 - 5 * 2.4637) / 3, 0, 0]);
    const f0 = d - Math.floor(d);
    const facet = [4, 5, 3, 1 / f0, 0];
    const at = facet.reduce((s, a, j) => s + a * x[j]!, 0);
    const facetEfficacy = (Math.ceil(d) - at) / Math.hypot(...facet);
    expect(facetEfficacy).toBeGreaterThan(0.05);
    const found = new MirSeparator(model).separate(x, 10, performance.now() + 5000);
    expect(Math.max(0, ...found.map((c) => c.efficacy))).toBeGreaterThanOrEqual(facetEfficacy * (1 - 1e-6));
  });
});
