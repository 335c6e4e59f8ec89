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
import { cutLhs, integerPoints, minimumLhs, type Problem, retailShapedProblem, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** 2-4 demand rows Σ a_rp n_p + u_r − o_r = d_r over 2-3 shared integers, and perhaps a ≤ row. */
const randomStore = (seed: number): Problem =>
  retailShapedProblem(seed, {
    rows: [2, 4],
    underUpper: [3, 9],
    integerInRow: { chance: 0.85, coef: [-1, 5] },
    demand: [2, 12],
    extras: (g, { variables, constraints }) => {
      if (g.next() < 0.4) {
        const budget = variables.filter((v) => v.type === "integer").map((v) => term(g.int(1, 3), v.name));
        constraints.push({ name: "budget", terms: budget, ub: g.int(4, 9) + 0.5 });
      }
    },
  });

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
