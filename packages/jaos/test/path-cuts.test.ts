/**
 * (l,S) cuts of lot-sizing paths: the separator recognises stock-balance chains (in either sign, with
 * or without an entering and a final stock) and every cut it returns, at LP optima and at random
 * points, keeps every mixed-integer point of small random lot-sizing models (checked by fixing each
 * setup assignment and minimising the cut's left-hand side over the continuous part with an LP).
 */
import { describe, expect, it } from "vitest";
import type { ProblemInput } from "./support.js";
import { LpEngine } from "../src/lp.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { PathSeparator } from "../src/path-cuts.js";
import { minimumLhs, problem, seededGenerator } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** T periods of one item, an optional initial stock, a shared capacity row with overtime. */
function randomLotSizing(seed: number): { model: LpModel; periods: number } {
  const g = seededGenerator(seed);
  const periods = g.int(2, 4);
  const initial = g.next() < 0.4;
  const finalStock = g.next() < 0.4;
  const variables: ProblemInput["variables"] = [];
  const constraints: ProblemInput["constraints"] = [];
  const objective: { var: string; coef: number }[] = [];
  if (initial) variables.push({ name: "s0", lb: 0, ub: g.int(0, 4), type: "continuous" });
  for (let t = 1; t <= periods; t++) {
    variables.push({ name: `x${t}`, lb: 0, ub: g.int(8, 30), type: "continuous" });
    variables.push({ name: `y${t}`, lb: 0, ub: 1, type: "binary" });
    if (t < periods || finalStock) variables.push({ name: `s${t}`, lb: 0, ub: g.next() < 0.5 ? g.int(3, 20) : undefined, type: "continuous" });
    constraints.push({ name: `vub${t}`, terms: [term(1, `x${t}`), term(-g.int(6, 25), `y${t}`)], ub: 0 });
    const demand = g.int(0, 9) + (g.next() < 0.3 ? 0.5 : 0);
    const flip = g.next() < 0.5 ? -1 : 1;
    const terms = [term(flip, `x${t}`)];
    if (t > 1 || initial) terms.push(term(flip, `s${t - 1}`));
    if (t < periods || finalStock) terms.push(term(-flip, `s${t}`));
    constraints.push({ name: `balance${t}`, terms, lb: flip * demand, ub: flip * demand });
    objective.push(term(g.int(1, 4), `x${t}`), term(g.int(10, 60), `y${t}`));
    if (t < periods || finalStock) objective.push(term(g.int(1, 3), `s${t}`));
  }
  variables.push({ name: "overtime", lb: 0, type: "continuous" });
  constraints.push({
    name: "capacity",
    terms: [...Array.from({ length: periods }, (_, t) => term(1, `x${t + 1}`)), term(-1, "overtime")],
    ub: g.int(5, 20),
  });
  objective.push(term(5, "overtime"));
  const p = problem({ sense: "minimize", variables, objective: { constant: 0, terms: objective }, constraints });
  return { model: modelFromProblem(p).model, periods };
}

function* setupPoints(model: LpModel): Generator<Map<number, number>> {
  const ints = Array.from({ length: model.cols }, (_, j) => j).filter((j) => model.integer[j]);
  for (let mask = 0; mask < 1 << ints.length; mask++) yield new Map(ints.map((j, k) => [j, (mask >> k) & 1]));
}

describe("jaos (l,S) path cuts", () => {
  it("recognise every random lot-sizing chain as one path of all its periods", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { model, periods } = randomLotSizing(seed);
      const separator = new PathSeparator(model);
      expect(
        separator.paths.map((p) => p.length),
        `seed ${seed}`,
      ).toEqual([periods]);
    }
  });

  it("cut off the point they are separated at and keep every mixed-integer point", () => {
    let checked = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { model } = randomLotSizing(seed);
      const separator = new PathSeparator(model);
      const g = seededGenerator(1000 + seed);
      const lp = new LpEngine(model).solve({ deadline: performance.now() + 5000 });
      const points = lp.status === "optimal" ? [lp.x!] : [];
      // random points exercise more sets S than the LP optimum alone
      for (let k = 0; k < 3; k++) points.push(Float64Array.from({ length: model.cols }, (_, j) => (model.integer[j] ? g.next() : 12 * g.next())));
      for (const x of points) {
        for (const { cut, efficacy } of separator.separate(x, 50)) {
          expect(efficacy).toBeGreaterThan(0);
          for (const point of setupPoints(model)) {
            const min = minimumLhs(model, cut, point);
            if (min !== null) expect(min, `seed ${seed}`).toBeGreaterThanOrEqual(cut.lower - 1e-7);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("close the uncapacitated two-period gap: the LP's fractional setup is cut off", () => {
    // x1 + x2 meets demands 5, 5 with x_t ≤ 100·y_t; the LP sets y1 = 0.1 and carries stock
    const p = problem({
      sense: "minimize",
      variables: [
        { name: "x1", lb: 0, type: "continuous" },
        { name: "x2", lb: 0, type: "continuous" },
        { name: "s1", lb: 0, type: "continuous" },
        { name: "y1", lb: 0, ub: 1, type: "binary" },
        { name: "y2", lb: 0, ub: 1, type: "binary" },
      ],
      objective: { constant: 0, terms: [term(1, "x1"), term(1, "x2"), term(1, "s1"), term(50, "y1"), term(50, "y2")] },
      constraints: [
        { name: "b1", terms: [term(1, "x1"), term(-1, "s1")], lb: 5, ub: 5 },
        { name: "b2", terms: [term(1, "x2"), term(1, "s1")], lb: 5, ub: 5 },
        { name: "v1", terms: [term(1, "x1"), term(-100, "y1")], ub: 0 },
        { name: "v2", terms: [term(1, "x2"), term(-100, "y2")], ub: 0 },
      ],
    });
    const model = modelFromProblem(p).model;
    const lp = new LpEngine(model).solve({ deadline: performance.now() + 5000 });
    expect(lp.status).toBe("optimal");
    const cuts = new PathSeparator(model).separate(lp.x!, 10);
    expect(cuts.length).toBeGreaterThan(0);
    // x1 ≤ 10·y1 + … : y1 = 0.1 cannot carry 10 units any more
    expect(cuts.some((c) => c.cut.index.length >= 2)).toBe(true);
  });
});
