/**
 * Scaling (scaling.ts): the factors are exact powers of two, geometric scaling undoes row and column
 * factors hidden in a matrix, factors are kept only when they improve it by HiGHS's measure, and a
 * scaled LP reaches the optimum of the unscaled one.
 */
import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import type { LpModel } from "../src/model.js";
import { Rng } from "../src/rng.js";
import { computeScaling, scalingImprovement } from "../src/scaling.js";
import { cscFromTriplets } from "../src/sparse.js";

/** A random sparse LP whose entry (i, j) is v·2^rowExp[i]·2^colExp[j] with v in [1, 2). */
function hiddenScaleLp(rng: Rng, rows: number, cols: number, spread: number): LpModel {
  const rowExp = Array.from({ length: rows }, () => rng.int(2 * spread + 1) - spread);
  const colExp = Array.from({ length: cols }, () => rng.int(2 * spread + 1) - spread);
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < rows; i++) {
      if (rng.next() < 0.3 || i === j % rows) {
        ri.push(i);
        ci.push(j);
        vv.push((1 + rng.next()) * 2 ** (rowExp[i] + colExp[j]) * (rng.next() < 0.5 ? -1 : 1));
      }
    }
  }
  return {
    rows,
    cols,
    a: cscFromTriplets(rows, cols, ri, ci, vv),
    cost: Float64Array.from({ length: cols }, () => rng.next() * 2 - 1),
    colLower: new Float64Array(cols),
    colUpper: Float64Array.from({ length: cols }, () => 1 + rng.int(20)),
    rowLower: new Float64Array(rows).fill(-Infinity),
    rowUpper: Float64Array.from({ length: rows }, (_, i) => 2 ** rowExp[i] * (1 + rng.int(50))),
    offset: 0,
    integer: new Uint8Array(cols),
  };
}

function magnitudeSpread(model: LpModel, row: Float64Array, col: Float64Array): number {
  let lo = Infinity;
  let hi = 0;
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const v = Math.abs(a.value[k]) * row[a.index[k]] * col[j];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return hi / lo;
}

describe("scaling", () => {
  it("uses exact powers of two and undoes hidden row and column factors", () => {
    const rng = new Rng(11);
    for (let t = 0; t < 20; t++) {
      const model = hiddenScaleLp(rng, 8 + rng.int(10), 10 + rng.int(20), 8);
      const s = computeScaling(model);
      for (const f of [...s.row, ...s.col]) expect(2 ** Math.round(Math.log2(f))).toBe(f);
      const ones = (n: number) => new Float64Array(n).fill(1);
      const before = magnitudeSpread(model, ones(model.rows), ones(model.cols));
      const after = magnitudeSpread(model, s.row, s.col);
      expect(before).toBeGreaterThan(1e3);
      // the entries' own spread is below 2; the power-of-two rounding adds at most a factor 2 per side
      expect(after).toBeLessThan(64);
    }
  });

  it("keeps factors only when they improve the matrix by the measure, else solves unscaled", () => {
    const rng = new Rng(23);
    for (let t = 0; t < 40; t++) {
      // spread 0: entries in [1, 2), already nearly balanced, where scaling may not pay
      const model = hiddenScaleLp(rng, 4 + rng.int(12), 6 + rng.int(20), rng.int(3));
      const s = computeScaling(model);
      const unit = [...s.row, ...s.col].every((f) => f === 1);
      if (!unit) expect(scalingImprovement(model, s)).toBeGreaterThanOrEqual(1);
    }
  });

  it("leaves a matrix of ±1 unscaled", () => {
    const model: LpModel = {
      rows: 2,
      cols: 3,
      a: cscFromTriplets(2, 3, [0, 1, 0, 1, 1], [0, 0, 1, 1, 2], [1, -1, -1, 1, 1]),
      cost: new Float64Array([1, 1, 1]),
      colLower: new Float64Array(3),
      colUpper: new Float64Array(3).fill(1),
      rowLower: new Float64Array(2),
      rowUpper: new Float64Array(2).fill(1),
      offset: 0,
      integer: new Uint8Array(3),
    };
    const s = computeScaling(model);
    expect([...s.row, ...s.col]).toEqual([1, 1, 1, 1, 1]);
  });

  it("reaches the unscaled LP's optimum on badly scaled LPs", () => {
    const rng = new Rng(5);
    for (let t = 0; t < 30; t++) {
      const model = hiddenScaleLp(rng, 5 + rng.int(15), 8 + rng.int(25), 6);
      const scaled = new LpEngine(model).solve({ deadline: performance.now() + 10_000 });
      const plain = new LpEngine(model, { scale: false }).solve({ deadline: performance.now() + 10_000 });
      expect(scaled.status).toBe(plain.status);
      if (plain.status === "optimal") expect(Math.abs(scaled.objective - plain.objective)).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(plain.objective)));
    }
  });
});
