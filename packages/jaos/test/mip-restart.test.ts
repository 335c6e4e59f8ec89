/**
 * RINS sub-MILPs and the root restart (mip.ts, rins.ts) on seeded two-row binary knapsacks (14 items):
 * every answer equals the exhaustive optimum, and the set exercises both rules (a RINS
 * sub-MILP that ran, a restart after the root fixed many columns).
 */
import { describe, expect, it } from "vitest";
import { expectObjective, problem, seededGenerator, solveChecked } from "./support.js";

const ITEMS = 14;

interface Knapsack {
  values: number[];
  weights: number[][];
  capacities: number[];
}

function randomKnapsack(next: () => number): Knapsack {
  const values = Array.from({ length: ITEMS }, () => 10 + Math.floor(next() * 90));
  const weights = [0, 1].map(() => Array.from({ length: ITEMS }, () => 5 + Math.floor(next() * 45)));
  const capacities = weights.map((w) => Math.floor(0.45 * w.reduce((a, b) => a + b, 0)));
  return { values, weights, capacities };
}

function bruteForce(k: Knapsack): number {
  let best = 0;
  for (let mask = 0; mask < 1 << ITEMS; mask++) {
    let value = 0;
    let fits = true;
    for (let r = 0; r < k.weights.length && fits; r++) {
      let used = 0;
      for (let i = 0; i < ITEMS; i++) if (mask & (1 << i)) used += k.weights[r]![i]!;
      fits = used <= k.capacities[r]!;
    }
    if (!fits) continue;
    for (let i = 0; i < ITEMS; i++) if (mask & (1 << i)) value += k.values[i]!;
    if (value > best) best = value;
  }
  return best;
}

function model(k: Knapsack) {
  return problem({
    sense: "maximize",
    variables: k.values.map((_, i) => ({ name: `x${i}`, lb: 0, ub: 1, type: "binary" as const })),
    objective: { constant: 0, terms: k.values.map((c, i) => ({ var: `x${i}`, coef: c })) },
    constraints: k.weights.map((w, r) => ({ name: `cap${r}`, terms: w.map((c, i) => ({ var: `x${i}`, coef: c })), ub: k.capacities[r]! })),
  });
}

describe("jaos MILP: RINS and the root restart", () => {
  it("keep every answer at the exhaustive optimum, and both rules run on the set", () => {
    const { next } = seededGenerator(20261128);
    let rinsRuns = 0;
    let restarts = 0;
    for (let n = 0; n < 12; n++) {
      const k = randomKnapsack(next);
      const r = solveChecked(model(k), { presolve: false });
      expect(r.solver_status).toBe("optimal");
      expectObjective(r, bruteForce(k));
      rinsRuns += r.stats.mip!.rins.runs;
      restarts += r.stats.mip!.restarts;
    }
    expect(rinsRuns).toBeGreaterThan(0);
    expect(restarts).toBeGreaterThan(0);
  });
});
