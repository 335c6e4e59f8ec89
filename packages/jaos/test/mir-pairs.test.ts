/**
 * c-MIR cuts of two rows joined through a shared integer column (mir.ts, pairCuts): on random small
 * models of the retail shape (several demand equations over the same few general integers, each with
 * its own under and over column, sometimes a ≤ row over the integers) no cut found at the LP optimum
 * removes a mixed-integer feasible point (every integer assignment enumerated, the continuous part
 * minimised by an LP). The same holds for the separator built on the model extended by a round of
 * Gomory cuts, as the root loop builds it each round (its cut rows summed into the model's rows). A
 * failing model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import { gomoryCuts, withRows } from "../src/cuts.js";
import { LpEngine } from "../src/lp.js";
import { MirSeparator } from "../src/mir.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { cutLhs, integerPoints, minimumLhs, type Problem, type ProblemInput, problem, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** 2-4 demand rows Σ a_rp n_p + u_r − o_r = d_r over 2-3 shared integers, and perhaps a ≤ row. */
function randomStore(seed: number): Problem {
  const g = seededGenerator(seed);
  const ints = g.int(2, 3);
  const rows = g.int(2, 4);
  const variables: ProblemInput["variables"] = [];
  const objective: { var: string; coef: number }[] = [];
  const constraints: ProblemInput["constraints"] = [];
  for (let p = 0; p < ints; p++) {
    variables.push({ name: `n${p}`, lb: g.int(-1, 0), ub: g.int(2, 4), type: "integer" });
    objective.push(term(g.int(1, 4) / 2, `n${p}`));
  }
  for (let r = 0; r < rows; r++) {
    variables.push({ name: `u${r}`, lb: 0, ub: g.next() < 0.5 ? Infinity : g.int(3, 9), type: "continuous" });
    variables.push({ name: `o${r}`, lb: 0, ub: Infinity, type: "continuous" });
    objective.push(term(g.int(2, 6), `u${r}`), term(1, `o${r}`));
    const terms = [term(1, `u${r}`), term(-1, `o${r}`)];
    for (let p = 0; p < ints; p++) if (g.next() < 0.85) terms.push(term(g.int(-1, 5), `n${p}`));
    const demand = g.int(2, 12) + g.int(1, 9) / 10;
    constraints.push({ name: `demand${r}`, terms, lb: demand, ub: demand });
  }
  if (g.next() < 0.4) {
    const budget = variables.filter((v) => v.type === "integer").map((v) => term(g.int(1, 3), v.name));
    constraints.push({ name: "budget", terms: budget, ub: g.int(4, 9) + 0.5 });
  }
  return problem({ sense: "minimize", variables, objective: { constant: 0, terms: objective }, constraints });
}

interface Checked {
  cuts: number;
  /** Cuts with deviation columns of two demand rows: only a sum of rows gives those here. */
  joined: number;
  failure: string | null;
}

/**
 * The c-MIR cuts at the LP optimum of p (with `afterGomory`, of p extended by the Gomory cuts of its
 * LP optimum, at the extended LP's optimum), each checked against every integer point of p.
 */
function checkCuts(p: Problem, afterGomory = false): Checked {
  const model = modelFromProblem(p).model;
  const engine = new LpEngine(model);
  let lp = engine.solve({ deadline: performance.now() + 5000 });
  if (lp.status !== "optimal") return { cuts: 0, joined: 0, failure: null };
  let separated: LpModel = model;
  if (afterGomory) {
    const gomory = gomoryCuts(engine, model, lp.x!, 10);
    if (gomory.length === 0) return { cuts: 0, joined: 0, failure: null };
    separated = withRows(model, gomory);
    lp = new LpEngine(separated).solve({ deadline: performance.now() + 5000 });
    if (lp.status !== "optimal") return { cuts: 0, joined: 0, failure: null };
  }
  // as the root loop does: the cut rows are summed into the model's rows but start no aggregation
  const found = new MirSeparator(separated, false, model.rows).separate(lp.x!, 40, performance.now() + 5000);
  const rowOf = (j: number) => /^[uo](\d+)$/.exec(p.variables[j]!.name)?.[1];
  let joined = 0;
  for (const { cut } of found) {
    if (!(cutLhs(cut, lp.x!) < cut.lower)) return { cuts: found.length, joined, failure: "a cut does not cut off the LP point" };
    if (new Set(Array.from(cut.index, rowOf).filter((r) => r !== undefined)).size >= 2) joined++;
    for (const point of integerPoints(model)) {
      const min = minimumLhs(model, cut, point);
      if (min !== null && min < cut.lower - 1e-7 * Math.max(1, Math.abs(cut.lower))) {
        return { cuts: found.length, joined, failure: `a cut removes ${JSON.stringify([...point])}: ${min} < ${cut.lower}` };
      }
    }
  }
  return { cuts: found.length, joined, failure: null };
}

describe("jaos c-MIR cuts of row pairs sharing integer columns", () => {
  it("keep every mixed-integer point of random multi-row demand models", () => {
    let cuts = 0;
    let joined = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const p = randomStore(seed);
      const checked = checkCuts(p);
      if (checked.failure) {
        const small = shrinkProblem(p, (q) => checkCuts(q).failure);
        expect.fail(`seed ${seed}: ${checkCuts(small).failure}\n${JSON.stringify(small)}`);
      }
      cuts += checked.cuts;
      joined += checked.joined;
    }
    // the generator must exercise the pairs, not only the single rows
    expect(cuts).toBeGreaterThan(50);
    expect(joined).toBeGreaterThan(20);
  });

  it("keep every mixed-integer point when the rows aggregated include Gomory cuts", () => {
    let cuts = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const p = randomStore(seed);
      const checked = checkCuts(p, true);
      if (checked.failure) {
        const small = shrinkProblem(p, (q) => checkCuts(q, true).failure);
        expect.fail(`seed ${seed}: ${checkCuts(small, true).failure}\n${JSON.stringify(small)}`);
      }
      cuts += checked.cuts;
    }
    expect(cuts).toBeGreaterThan(30);
  });
});
