/**
 * Lifted flow covers in the root cut loop: on random small fixed-charge transportation models (supplies
 * Σ_j x_ij ≤ s_i, demands Σ_i x_ij = d_j, arcs x_ij ≤ u_ij·y_ij with y binary), the loop with the
 * covers never raises the root bound above the optimum found by enumerating every y (the flows minimised
 * by an LP), and the whole solve returns that optimum. A failing model is shrunk first.
 */
import { describe, expect, it } from "vitest";

import { LpEngine } from "../src/lp.js";
import { modelFromProblem } from "../src/model.js";
import { rootCutLoop } from "../src/root-cuts.js";
import { solveJaos } from "../src/solve.js";
import { integerPoints, type Problem, problem, type ProblemInput, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

function randomTransportation(seed: number): Problem {
  const g = seededGenerator(seed);
  const sources = g.int(2, 3);
  const sinks = g.int(2, sources === 3 ? 2 : 3);
  const supply = Array.from({ length: sources }, () => g.int(4, 20));
  const total = supply.reduce((s, v) => s + v, 0);
  // demands that the supplies can meet, with some slack or none
  const demand = Array.from({ length: sinks }, () => g.int(1, Math.max(1, Math.floor(total / sinks))));
  const variables: ProblemInput["variables"] = [];
  const constraints: ProblemInput["constraints"] = [];
  const objective: { var: string; coef: number }[] = [];
  for (let i = 0; i < sources; i++) {
    for (let j = 0; j < sinks; j++) {
      const x = `x${i}_${j}`;
      const y = `y${i}_${j}`;
      // the arc's capacity: min(s_i, d_j) as in the fctp models, sometimes less
      const cap = Math.max(1, Math.min(supply[i]!, demand[j]!) - (g.next() < 0.3 ? g.int(0, 3) : 0));
      variables.push({ name: x, lb: 0, ub: null, type: "continuous" }, { name: y, lb: 0, ub: 1, type: "binary" });
      constraints.push({ name: `vub${i}_${j}`, terms: [term(1, x), term(-cap, y)], ub: 0 });
      objective.push(term(g.int(1, 6), x), term(g.int(5, 60), y));
    }
  }
  for (let i = 0; i < sources; i++) {
    constraints.push({ name: `s${i}`, terms: Array.from({ length: sinks }, (_, j) => term(1, `x${i}_${j}`)), ub: supply[i]! });
  }
  for (let j = 0; j < sinks; j++) {
    const terms = Array.from({ length: sources }, (_, i) => term(1, `x${i}_${j}`));
    constraints.push({ name: `d${j}`, terms, lb: demand[j]!, ub: demand[j]! });
  }
  return problem({ sense: "minimize", variables, objective: { constant: 0, terms: objective }, constraints });
}

/** The optimum by enumeration (minimisation sense of the model, with offset), or null if infeasible. */
function enumeratedOptimum(p: Problem): number | null {
  const { model } = modelFromProblem(p);
  let best: number | null = null;
  for (const point of integerPoints(model)) {
    const engine = new LpEngine(model);
    for (const [j, v] of point) engine.setColumnBounds(j, v, v);
    const r = engine.solve({ deadline: performance.now() + 5000 });
    if (r.status === "optimal" && (best === null || r.objective + model.offset < best)) best = r.objective + model.offset;
  }
  return best;
}

/** What is wrong with the covers on this model, or null; `count` is told how many covers the loop added. */
function loopFailure(p: Problem, count: (n: number) => void = () => {}): string | null {
  const optimum = enumeratedOptimum(p);
  if (optimum === null) return null;
  const tol = 1e-6 * Math.max(1, Math.abs(optimum));
  const { model } = modelFromProblem(p);
  const engine = new LpEngine(model);
  const lp = engine.solve({ deadline: performance.now() + 5000 });
  if (lp.status !== "optimal") return `the LP is ${lp.status} where the optimum is ${optimum}`;
  const root = rootCutLoop(model, engine, lp, performance.now() + 5000, { flowCovers: true });
  count(root.byKind.flowCover);
  if (root.root.objective + model.offset > optimum + tol) return `root bound ${root.root.objective + model.offset} above the optimum ${optimum}`;
  const solved = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0 });
  if (solved.solver_status !== "optimal") return `the solve ends ${solved.solver_status} where the optimum is ${optimum}`;
  if (!(Math.abs(solved.objective_value! - optimum) <= tol)) return `the solve's optimum ${solved.objective_value}, by enumeration ${optimum}`;
  return null;
}

describe("jaos lifted flow covers in the root loop", () => {
  it("keep the root bound at most the optimum and the solve's optimum that of enumeration on random fixed-charge transportation models", () => {
    let covers = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const p = randomTransportation(seed);
      const failure = loopFailure(p, (n) => {
        covers += n;
      });
      if (failure) {
        const small = shrinkProblem(p, (q) => loopFailure(q));
        expect.fail(`seed ${seed}: ${failure}; shrunk to ${JSON.stringify(small)}`);
      }
    }
    // the generator must actually exercise the covers
    expect(covers).toBeGreaterThan(10);
  });
});
