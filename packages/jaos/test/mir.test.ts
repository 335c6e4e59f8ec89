/**
 * c-MIR and lifted cover cuts: on random small mixed-integer models with variable upper bounds, every cut found at the
 * LP optimum cuts that point off and keeps every mixed-integer feasible point (checked by fixing each
 * integer assignment and minimising the cut's left-hand side over the continuous part with an LP).
 */
import { describe, expect, it } from "vitest";
import type { Cut } from "../src/cuts.js";
import { LpEngine } from "../src/lp.js";
import { MirSeparator } from "../src/mir.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import type { ProblemInput } from "./support.js";
import { cutLhs, integerPoints, minimumLhs, problem, seededGenerator } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/**
 * A small fixed-charge model: flows f_k ≤ cap_k·y_k (y binary or small integer), a few random rows
 * over flows and integers (one a demand equality), minimising fixed plus flow costs.
 */
function randomFixedCharge(seed: number): LpModel {
  const g = seededGenerator(seed);
  const arcs = g.int(2, 4);
  const extra = g.int(0, 2);
  const variables: ProblemInput["variables"] = [];
  const constraints: ProblemInput["constraints"] = [];
  const objective: { var: string; coef: number }[] = [];
  for (let k = 0; k < arcs; k++) {
    variables.push({ name: `f${k}`, lb: 0, ub: g.int(5, 30), type: "continuous" });
    variables.push({ name: `y${k}`, lb: 0, ub: g.int(1, 2), type: "integer" });
    constraints.push({ name: `vub${k}`, terms: [term(1, `f${k}`), term(-g.int(3, 12), `y${k}`)], ub: 0 });
    objective.push(term(g.int(1, 5), `f${k}`), term(g.int(5, 40), `y${k}`));
  }
  for (let e = 0; e < extra; e++) variables.push({ name: `z${e}`, lb: g.int(-2, 0), ub: g.int(1, 3), type: "integer" });
  const demand = g.int(3, 15) + 0.5 * g.int(0, 1);
  constraints.push({ name: "demand", terms: Array.from({ length: arcs }, (_, k) => term(1, `f${k}`)), lb: demand, ub: demand });
  const names = variables.map((v) => v.name);
  for (let r = 0; r < g.int(0, 2); r++) {
    const terms = names.filter(() => g.next() < 0.5).map((name) => term(g.int(-4, 6), name));
    if (terms.length === 0) continue;
    constraints.push({ name: `r${r}`, terms, ub: g.int(5, 25) });
  }
  return modelFromProblem(problem({ sense: "minimize", variables, objective: { constant: 0, terms: objective }, constraints })).model;
}

describe("jaos c-MIR cuts", () => {
  it("cut off the LP point and keep every mixed-integer point of random fixed-charge models (c-MIR and lifted cover cuts)", () => {
    let cutsChecked = 0;
    let coversChecked = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const model = randomFixedCharge(seed);
      const lp = new LpEngine(model).solve({ deadline: performance.now() + 5000 });
      if (lp.status !== "optimal") continue;
      const cuts = new MirSeparator(model, true).separate(lp.x!, 20, performance.now() + 5000);
      for (const { cut, efficacy, kind } of cuts) {
        expect(efficacy).toBeGreaterThan(0);
        expect(cutLhs(cut, lp.x!)).toBeLessThan(cut.lower);
        for (const point of integerPoints(model)) {
          const min = minimumLhs(model, cut, point);
          if (min !== null) expect(min, `seed ${seed}`).toBeGreaterThanOrEqual(cut.lower - 1e-7 * Math.max(1, Math.abs(cut.lower)));
        }
        cutsChecked++;
        if (kind === "cover") coversChecked++;
      }
    }
    // the generator must actually exercise the separator
    expect(cutsChecked).toBeGreaterThan(20);
    expect(coversChecked).toBeGreaterThan(5);
  });

  it("turns variable upper bounds into the cut that a demand needs an open arc", () => {
    // f0 + f1 = 3, f_k ≤ 100·y_k: the LP opens y_k = f_k/100; every solution has y0 + y1 ≥ 1
    const model = modelFromProblem(
      problem({
        sense: "minimize",
        variables: [
          { name: "f0", lb: 0, ub: 100, type: "continuous" },
          { name: "f1", lb: 0, ub: 100, type: "continuous" },
          { name: "y0", lb: 0, ub: 1, type: "binary" },
          { name: "y1", lb: 0, ub: 1, type: "binary" },
        ],
        objective: { constant: 0, terms: [term(1, "f0"), term(2, "f1"), term(50, "y0"), term(40, "y1")] },
        constraints: [
          { name: "demand", terms: [term(1, "f0"), term(1, "f1")], lb: 3, ub: 3 },
          { name: "vub0", terms: [term(1, "f0"), term(-100, "y0")], ub: 0 },
          { name: "vub1", terms: [term(1, "f1"), term(-100, "y1")], ub: 0 },
        ],
      }),
    ).model;
    const lp = new LpEngine(model).solve({ deadline: performance.now() + 5000 });
    expect(lp.status).toBe("optimal");
    const cuts = new MirSeparator(model).separate(lp.x!, 10, performance.now() + 5000);
    expect(cuts.length).toBeGreaterThan(0);
    // the best cut moves the LP bound up to an open arc's fixed cost at least
    const extended = withCutRows(model, [cuts[0]!.cut]);
    const r = new LpEngine(extended).solve({ deadline: performance.now() + 5000 });
    expect(r.status).toBe("optimal");
    expect(r.objective).toBeGreaterThan(lp.objective + 30);
  });

  it("lists an integer column once when its coefficient cancels to 0 before a variable bound adds to it again", () => {
    // −7r − 490y + x ≤ −290 with r ≥ 70 − 70y and x ≤ 350y: substituting r adds +490 to y (sum 0), then
    // x adds 350; counted twice, the row became 700y − 7r' − x' ≤ 200, whose rounding cuts off y = 1
    const model = modelFromProblem(
      problem({
        sense: "minimize",
        variables: [
          { name: "r", lb: 0, ub: null, type: "continuous" },
          { name: "y", lb: 0, ub: 1, type: "binary" },
          { name: "x", lb: 0, ub: 350, type: "continuous" },
        ],
        objective: { constant: 0, terms: [term(1, "r"), term(1, "y")] },
        constraints: [
          { name: "vlb", terms: [term(1, "r"), term(70, "y")], lb: 70 },
          { name: "vub", terms: [term(1, "x"), term(-350, "y")], ub: 0 },
          { name: "start", terms: [term(-7, "r"), term(-490, "y"), term(1, "x")], ub: -290 },
        ],
      }),
    ).model;
    // r on its variable lower bound, x on its variable upper bound, y fractional
    const x = Float64Array.from([35, 0.5, 175]);
    const cuts = new MirSeparator(model).separate(x, 10, performance.now() + 5000);
    expect(cuts.length).toBeGreaterThan(0);
    for (const { cut } of cuts) {
      for (const point of integerPoints(model)) {
        const min = minimumLhs(model, cut, point);
        if (min !== null) expect(min).toBeGreaterThanOrEqual(cut.lower - 1e-7 * Math.max(1, Math.abs(cut.lower)));
      }
    }
  });
});

function withCutRows(model: LpModel, cuts: Cut[]): LpModel {
  // local copy of the row append, so the test does not lean on the code under test
  const triplets: [number, number, number][] = [];
  for (let j = 0; j < model.cols; j++) for (let k = model.a.start[j]!; k < model.a.start[j + 1]!; k++) triplets.push([model.a.index[k]!, j, model.a.value[k]!]);
  cuts.forEach((c, r) => c.index.forEach((j, k) => triplets.push([model.rows + r, j, c.value[k]!])));
  const rows = model.rows + cuts.length;
  const start = new Int32Array(model.cols + 1);
  triplets.sort((p, q) => p[1] - q[1] || p[0] - q[0]);
  for (const [, j] of triplets) start[j + 1]++;
  for (let j = 0; j < model.cols; j++) start[j + 1] += start[j]!;
  const a = { rows, cols: model.cols, start, index: Int32Array.from(triplets.map((t) => t[0])), value: Float64Array.from(triplets.map((t) => t[2])) };
  const rowLower = Float64Array.from([...model.rowLower, ...cuts.map((c) => c.lower)]);
  const rowUpper = Float64Array.from([...model.rowUpper, ...cuts.map(() => Infinity)]);
  return { ...model, rows, a, rowLower, rowUpper };
}
