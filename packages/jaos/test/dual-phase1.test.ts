import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { maxViolation, objectiveValue, type LpModel } from "../src/model.js";
import { Rng } from "../src/rng.js";
import { cscFromTriplets } from "../src/sparse.js";

/**
 * A packing LP that needs dual phase 1 and is dual degenerate: columns bounded below only, with
 * negative costs (so the slack basis is dual infeasible and no flip repairs it), small integer
 * coefficients and costs (many equal ratios), ≤ rows with integer right-hand sides. Every column has a
 * positive entry in some row, so the LP is bounded.
 */
function degeneratePackingLp(seed: number, rows: number, cols: number): LpModel {
  const rng = new Rng(seed);
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  for (let j = 0; j < cols; j++) {
    const home = Math.floor(rng.next() * rows);
    for (let i = 0; i < rows; i++) {
      if (i !== home && rng.next() >= 0.15) continue;
      ri.push(i);
      ci.push(j);
      vv.push(1 + Math.floor(rng.next() * 3));
    }
  }
  return {
    rows,
    cols,
    a: cscFromTriplets(rows, cols, ri, ci, vv),
    cost: Float64Array.from({ length: cols }, () => -(1 + Math.floor(rng.next() * 3))),
    colLower: new Float64Array(cols),
    colUpper: new Float64Array(cols).fill(Infinity),
    rowLower: new Float64Array(rows).fill(-Infinity),
    rowUpper: Float64Array.from({ length: rows }, () => 4 + Math.floor(rng.next() * 8)),
    offset: 0,
    integer: new Uint8Array(cols),
  };
}

describe("jaos LP driver: cost perturbation before dual phase 1", () => {
  it("runs dual phase 1 on perturbed costs (stopped after one iteration, the working costs are altered)", () => {
    const model = degeneratePackingLp(11, 30, 120);
    const engine = new LpEngine(model);
    const r = engine.solve({ deadline: performance.now() + 10_000, iterationLimit: 1 });
    expect(r.status).toBe("iteration_limit");
    expect(engine.state.costsAltered).toBe(true);
    // no bound is claimed from perturbed costs
    expect(r.bound).toBeUndefined();
  });

  for (const seed of [12, 13, 14, 15, 16]) {
    it(`reaches the same verified optimum with and without perturbation (seed ${seed})`, () => {
      const model = degeneratePackingLp(seed, 40, 200);
      const perturbed = new LpEngine(model).solve({ deadline: performance.now() + 20_000 });
      const plain = new LpEngine(model).solve({ deadline: performance.now() + 20_000, perturb: false });
      expect(perturbed.status).toBe("optimal");
      expect(plain.status).toBe("optimal");
      expect(maxViolation(model, perturbed.x!)).toBeLessThan(1e-6);
      expect(perturbed.objective).toBeCloseTo(objectiveValue(model, perturbed.x!), 9);
      expect(Math.abs(perturbed.objective - plain.objective)).toBeLessThan(1e-7 * (1 + Math.abs(plain.objective)));
    });
  }
});
