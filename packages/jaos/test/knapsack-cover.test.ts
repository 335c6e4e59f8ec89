/**
 * Lifted cover cuts on the model's knapsack rows: on random small models (binary knapsack rows with
 * coefficients of both signs, ≤, ≥ and ranged, beside a general integer and a continuous column), every
 * cut found at the LP optimum cuts that point off and keeps every feasible point (each integer
 * assignment enumerated, the continuous part minimised by an LP). A failing model is shrunk first.
 */
import { describe, expect, it } from "vitest";

import { chooseCover, KnapsackCoverSeparator } from "../src/knapsack-cover.js";
import { LpEngine } from "../src/lp.js";
import { modelFromProblem } from "../src/model.js";
import { rootCutLoop } from "../src/root-cuts.js";
import { solveJaos } from "../src/solve.js";
import { cutLhs, integerPoints, minimumLhs, type Problem, problem, type ProblemInput, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** `large`: 15 to 25 binaries over 3 to 6 rows, beyond enumeration but where the root loop runs rounds. */
function randomKnapsackModel(seed: number, large = false): Problem {
  const g = seededGenerator(seed);
  const binaries = large ? g.int(15, 25) : g.int(4, 8);
  const variables: ProblemInput["variables"] = [];
  for (let k = 0; k < binaries; k++) variables.push({ name: `b${k}`, lb: 0, ub: 1, type: "binary" });
  variables.push({ name: "n", lb: g.int(-1, 0), ub: g.int(1, 2), type: "integer" });
  variables.push({ name: "c", lb: 0, ub: g.int(1, 6), type: "continuous" });
  const names = variables.map((v) => v.name);
  const constraints: ProblemInput["constraints"] = [];
  const largeRows = large ? g.int(3, 6) : 0;
  for (let r = 0; r < (large ? largeRows : g.int(1, 3)); r++) {
    const terms = names.filter((nm) => nm.startsWith("b") || g.next() < 0.4).map((nm) => term(g.int(-3, 12) || 1, nm));
    const total = terms.reduce((s, t) => s + Math.abs(t.coef), 0);
    const ub = g.int(Math.floor(total / 4), Math.floor(total / 2));
    const kind = g.int(0, 2);
    if (kind === 0) constraints.push({ name: `k${r}`, terms, ub });
    else if (kind === 1) constraints.push({ name: `k${r}`, terms: terms.map((t) => term(-t.coef, t.var)), lb: -ub });
    else constraints.push({ name: `k${r}`, terms, lb: -total, ub });
  }
  const objective = { constant: 0, terms: names.map((nm) => term(g.int(1, 20), nm)) };
  return problem({ sense: "maximize", variables, objective, constraints });
}

/** What is wrong with the covers of this model, or null; `count` is told how many cuts were checked. */
function coverFailure(p: Problem, count: (n: number) => void = () => {}): string | null {
  const { model } = modelFromProblem(p);
  const lp = new LpEngine(model).solve({ deadline: performance.now() + 5000 });
  if (lp.status !== "optimal") return null;
  const cuts = new KnapsackCoverSeparator(model).separate(lp.x!, 20);
  count(cuts.length);
  for (const { cut } of cuts) {
    if (!(cutLhs(cut, lp.x!) < cut.lower)) return "a cut does not cut off the LP point";
    for (const point of integerPoints(model)) {
      const min = minimumLhs(model, cut, point);
      if (min !== null && min < cut.lower - 1e-7 * Math.max(1, Math.abs(cut.lower))) {
        return `the cut cuts off the point ${JSON.stringify([...point])} (${min} < ${cut.lower})`;
      }
    }
  }
  return null;
}

describe("jaos lifted cover cuts on knapsack rows", () => {
  it("cut off the LP point and keep every integer point of random knapsack models", () => {
    let checked = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const p = randomKnapsackModel(seed);
      const failure = coverFailure(p, (n) => {
        checked += n;
      });
      if (failure) {
        const small = shrinkProblem(p, (q) => coverFailure(q));
        expect.fail(`seed ${seed}: ${failure}; shrunk to ${JSON.stringify(small)}`);
      }
    }
    // the generator must actually exercise the separator
    expect(checked).toBeGreaterThan(30);
  });

  it("leave the root loop's bound at most the optimum, in either schedule", () => {
    const covers = { everyRound: 0, afterStall: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const p = randomKnapsackModel(seed, true);
      const { model, sign } = modelFromProblem(p);
      const engine = new LpEngine(model);
      const lp = engine.solve({ deadline: performance.now() + 5000 });
      if (lp.status !== "optimal") continue;
      // the optimum of the search without covers (they are off in the solver), in the model's sense
      const solved = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0 });
      expect(solved.solver_status).toBe("optimal");
      const optimum = sign * solved.objective_value!;
      for (const schedule of ["everyRound", "afterStall"] as const) {
        const root = rootCutLoop(model, new LpEngine(model), lp, performance.now() + 5000, { knapsackCovers: schedule });
        covers[schedule] += root.byKind.cover;
        expect(root.root.objective, `seed ${seed}, ${schedule}`).toBeLessThanOrEqual(optimum + 1e-6 * Math.max(1, Math.abs(optimum)));
      }
    }
    // both schedules must actually add covers here
    expect(covers.everyRound).toBeGreaterThan(10);
    expect(covers.afterStall).toBeGreaterThan(5);
  });

  it("chooses a minimal cover from the items the LP point uses", () => {
    // 5z0 + 5z1 + 5z2 ≤ 9 at z = (1, 0.8, 0): {0, 1} covers (10 > 9); z2 = 0 is not a candidate
    const cover = chooseCover([5, 5, 5], [1, 0.8, 0], 9);
    expect(Array.from(cover!)).toEqual([1, 1, 0]);
    // the items used cannot cover: no cover inequality is violated
    expect(chooseCover([5, 5, 5], [0.9, 0, 0], 9)).toBeNull();
  });

  it("gives the cover inequality of a two-item cover, complemented columns mapped back", () => {
    // 6x0 − 6x1 ≤ 0 with x1 complemented: 6x0 + 6(1 − x1) ≤ 6, cover {0, 1}: x0 − x1 ≤ 0
    const model = modelFromProblem(
      problem({
        sense: "maximize",
        variables: [
          { name: "x0", lb: 0, ub: 1, type: "binary" },
          { name: "x1", lb: 0, ub: 1, type: "binary" },
        ],
        objective: { constant: 0, terms: [term(3, "x0"), term(-1, "x1")] },
        constraints: [{ name: "k", terms: [term(6, "x0"), term(-6, "x1")], ub: 0 }],
      }),
    ).model;
    const x = Float64Array.from([1, 0.5]);
    const cuts = new KnapsackCoverSeparator(model).separate(x, 5);
    expect(cuts).toHaveLength(1);
    const { cut } = cuts[0]!;
    // −x0 + x1 ≥ 0 (up to the safety margin on the right-hand side)
    expect(Array.from(cut.index)).toEqual([0, 1]);
    expect(Array.from(cut.value)).toEqual([-1, 1]);
    expect(cut.lower).toBeCloseTo(0, 6);
  });
});
