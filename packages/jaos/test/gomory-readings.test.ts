/**
 * Gomory cuts and the two MIR readings of a tableau row (cuts.ts, used when a row's Gomory cut is too
 * dense to keep): on random small general-integer models with equations, ≤, ≥ and ranged rows and
 * columns at either bound, no cut found at the LP optimum removes a mixed-integer feasible point (every
 * integer assignment enumerated, the continuous part minimised by an LP). A failing model is shrunk
 * before it is reported.
 */
import { describe, expect, it } from "vitest";
import { gomoryCuts } from "../src/cuts.js";
import { LpEngine } from "../src/lp.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { minimumLhs, type Problem, type ProblemInput, problem, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

function randomMixedInteger(seed: number): Problem {
  const g = seededGenerator(seed);
  const ints = g.int(2, 4);
  const conts = g.int(1, 3);
  const variables: ProblemInput["variables"] = [];
  const objective: { var: string; coef: number }[] = [];
  for (let p = 0; p < ints; p++) {
    variables.push({ name: `n${p}`, lb: g.int(-1, 0), ub: g.int(1, 3), type: "integer" });
    objective.push(term(g.int(-4, 4) / 2, `n${p}`));
  }
  for (let c = 0; c < conts; c++) {
    variables.push({ name: `c${c}`, lb: 0, ub: g.next() < 0.5 ? Infinity : g.int(2, 6), type: "continuous" });
    objective.push(term(g.int(0, 4), `c${c}`));
  }
  const constraints: ProblemInput["constraints"] = [];
  const rows = g.int(2, 4);
  for (let r = 0; r < rows; r++) {
    const terms = variables.filter(() => g.next() < 0.7).map((v) => term(g.int(-3, 4), v.name));
    if (terms.length === 0) continue;
    const side = g.int(-2, 6) + g.int(1, 9) / 10;
    const kind = g.next();
    if (kind < 0.3) constraints.push({ name: `r${r}`, terms, lb: side, ub: side });
    else if (kind < 0.55) constraints.push({ name: `r${r}`, terms, ub: side });
    else if (kind < 0.8) constraints.push({ name: `r${r}`, terms, lb: side });
    else constraints.push({ name: `r${r}`, terms, lb: side - g.int(1, 4), ub: side });
  }
  return problem({ sense: "minimize", variables, objective: { constant: 0, terms: objective }, constraints });
}

function* integerPoints(model: LpModel): Generator<Map<number, number>> {
  const ints = Array.from({ length: model.cols }, (_, j) => j).filter((j) => model.integer[j]);
  const point = new Map<number, number>();
  function* rec(k: number): Generator<Map<number, number>> {
    if (k === ints.length) {
      yield point;
      return;
    }
    const j = ints[k]!;
    for (let v = model.colLower[j]!; v <= model.colUpper[j]!; v++) {
      point.set(j, v);
      yield* rec(k + 1);
    }
  }
  yield* rec(0);
}

interface Checked {
  cuts: number;
  failure: string | null;
}

function checkCuts(p: Problem): Checked {
  const model = modelFromProblem(p).model;
  const engine = new LpEngine(model);
  const lp = engine.solve({ deadline: performance.now() + 5000 });
  if (lp.status !== "optimal") return { cuts: 0, failure: null };
  const found = gomoryCuts(engine, model, lp.x!, 20, true);
  for (const cut of found) {
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

describe("jaos Gomory cuts and their tableau-row readings", () => {
  it("keep every mixed-integer point of random small models", () => {
    let cuts = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const p = randomMixedInteger(seed);
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
});
