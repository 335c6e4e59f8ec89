import { describe, expect, it } from "vitest";
import { LeavingRows } from "../src/leaving-rows.js";
import { Rng } from "../src/rng.js";

/** The reference CHUZR: every position in order, the largest positive inf²/w, the lowest on ties. */
function fullScan(infeasibility: Float64Array, weight: Float64Array): number {
  let r = -1;
  let best = 0;
  for (let k = 0; k < infeasibility.length; k++) {
    if (infeasibility[k] === 0) continue;
    const score = infeasibility[k] / weight[k];
    if (score > best) {
      best = score;
      r = k;
    }
  }
  return r;
}

/**
 * Random rounds in the simplex's pattern: a few positions change their infeasibility or weight, the
 * infeasible ones are listed, the changed ones are reported, and CHUZR must pick the full scan's row.
 * Values come from a small set so that equal scores (ties between far-apart positions) are common;
 * weights include ones that make a score NaN or infinite.
 */
function run(seed: number, m: number, changesPerRound: number, rounds: number): { treeRounds: number } {
  const rng = new Rng(seed);
  const infeasibility = new Float64Array(m);
  const weight = new Float64Array(m).fill(1);
  const rows = new LeavingRows(m);
  const values = [0, 0, 0.25, 1, 4, 9];
  const weights = [0.5, 1, 2, 4, Number.NaN, Number.POSITIVE_INFINITY];
  for (let k = 0; k < m; k++) {
    infeasibility[k] = values[rng.int(values.length)];
    weight[k] = [0.5, 1, 2, 4][rng.int(4)];
    if (infeasibility[k] !== 0) rows.note(k);
  }
  const changed = new Int32Array(changesPerRound);
  let treeRounds = 0;
  for (let round = 0; round < rounds; round++) {
    if (rows.usingTree) treeRounds++;
    const r = rows.choose(infeasibility, weight);
    expect(r).toBe(fullScan(infeasibility, weight));
    for (let c = 0; c < changesPerRound; c++) {
      const k = rng.int(m);
      changed[c] = k;
      if (rng.next() < 0.5) infeasibility[k] = values[rng.int(values.length)];
      else weight[k] = weights[rng.int(weights.length)];
      if (infeasibility[k] !== 0) rows.note(k);
    }
    // the chosen row changes every iteration (it is reported as r)
    const k = Math.max(r, 0);
    infeasibility[k] = values[rng.int(values.length)];
    if (infeasibility[k] !== 0) rows.note(k);
    rows.changed(infeasibility, weight, changed, changesPerRound, changed, 0, k);
    // a refresh now and then: the tree is rebuilt from the arrays
    if (round % 97 === 96) {
      rows.clear();
      for (let j = 0; j < m; j++) if (infeasibility[j] !== 0) rows.note(j);
    }
  }
  return { treeRounds };
}

describe("LeavingRows (CHUZR)", () => {
  it("picks the full scan's row through the tree when few positions change per iteration", () => {
    for (const seed of [1, 2, 3]) {
      const { treeRounds } = run(seed, 2000, 5, 600);
      // the test must exercise the tree, not only the list scan
      expect(treeRounds).toBeGreaterThan(300);
    }
  });

  it("picks the full scan's row through the list when many positions change", () => {
    const { treeRounds } = run(4, 300, 200, 200);
    expect(treeRounds).toBe(0);
  });

  it("handles tiny and non-power-of-two sizes", () => {
    for (const m of [1, 2, 3, 5, 17]) run(10 + m, m, 1, 200);
  });
});
