/**
 * Lifted cover cuts of the mixed-binary knapsack Σ a_j z_j ≤ b + s: on random small knapsacks, every
 * cover's lifted cut holds at every binary point with the least s it needs (checked by enumeration).
 */
import { describe, expect, it } from "vitest";
import { coverCut, liftedKnapsackCover } from "../src/flow-cover.js";
import { seededGenerator } from "./support.js";

/** The largest Σ coef·z − s − rhs over the knapsack's points (s at its least: s only lowers the left side). */
function worstExcess(a: number[], b: number, coef: Float64Array, rhs: number): number {
  const n = a.length;
  let worst = -Infinity;
  for (let mask = 0; mask < 1 << n; mask++) {
    let used = 0;
    let lhs = 0;
    for (let j = 0; j < n; j++) {
      if (mask & (1 << j)) {
        used += a[j]!;
        lhs += coef[j]!;
      }
    }
    worst = Math.max(worst, lhs - Math.max(0, used - b) - rhs);
  }
  return worst;
}

function randomKnapsack(seed: number): { a: number[]; b: number } {
  const g = seededGenerator(seed);
  const n = g.int(2, 7);
  // integer and fractional weights, some far larger than the others (as capacities beside demands)
  const a = Array.from({ length: n }, () => (g.next() < 0.3 ? g.int(20, 60) : g.int(1, 15)) + (g.next() < 0.4 ? g.int(1, 9) / 10 : 0));
  const total = a.reduce((p, q) => p + q, 0);
  const b = Math.max(0.5, Math.round(total * (0.2 + 0.6 * g.next()) * 10) / 10);
  return { a, b };
}

describe("jaos lifted knapsack cover cuts", () => {
  it("hold at every binary point for every cover of random mixed-binary knapsacks", () => {
    let covers = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { a, b } = randomKnapsack(seed);
      const n = a.length;
      const zero = new Float64Array(n);
      for (let mask = 1; mask < 1 << n; mask++) {
        const inCover = Uint8Array.from(a, (_, j) => ((mask >> j) & 1) as number);
        const cut = coverCut(a, zero, b, 0, inCover);
        if (!cut) continue;
        covers++;
        expect(worstExcess(a, b, cut.coef, cut.rhs), `seed ${seed} cover ${mask}`).toBeLessThanOrEqual(1e-9 * Math.max(1, b));
      }
    }
    expect(covers).toBeGreaterThan(1000);
  });

  it("lifts an item outside the cover (the exact lifting coefficient, not zero)", () => {
    // 10 z1 + 10 z2 + 10 z3 ≤ 15 + s, cover {1, 2} with λ = 5: 5 z1 + 5 z2 + φ(10) z3 − s ≤ 5, φ(10) = 5
    const cut = coverCut([10, 10, 10], new Float64Array(3), 15, 0, Uint8Array.from([1, 1, 0]));
    expect(cut).not.toBeNull();
    expect(Array.from(cut!.coef)).toEqual([5, 5, 5]);
    expect(cut!.rhs).toBe(5);
    // at z = (1, 1, 1) the least s is 15: 15 − 15 ≤ 5; at (1, 1, 0), s = 5: 10 − 5 = 5
    expect(worstExcess([10, 10, 10], 15, cut!.coef, cut!.rhs)).toBe(0);
  });

  it("finds the violated cover at a fractional point and none at an integral one", () => {
    // fixed charge: a demand of 3 from arcs of capacity 100 (z = 0.03 opens 3 units in the LP)
    const fractional = liftedKnapsackCover([100, 100], [0.03, 0], 3 - 100, 0);
    expect(fractional).toBeNull(); // b ≤ 0: no cover of a negative capacity
    const cut = liftedKnapsackCover([100, 100], [0.97, 0.5], 150, 0);
    expect(cut).not.toBeNull();
    expect(cut!.violation).toBeGreaterThan(0);
    expect(liftedKnapsackCover([100, 100], [1, 0], 150, 0)).toBeNull();
  });
});
