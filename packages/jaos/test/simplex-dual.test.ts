import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import type { LpModel } from "../src/model.js";
import { Rng } from "../src/rng.js";
import { runDual } from "../src/simplex-dual.js";
import { AT_LOWER, AT_UPPER, SimplexState } from "../src/simplex-state.js";
import { cscFromTriplets } from "../src/sparse.js";

/** A fit2d-shaped LP: few rows, many boxed columns with negative and positive costs. */
function wideBoxedLp(seed: number, rows: number, cols: number, freeCol = false): LpModel {
  const rng = new Rng(seed);
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < rows; i++) {
      if (rng.next() < 0.6) {
        ri.push(i);
        ci.push(j);
        vv.push(Math.round((rng.next() * 20 - 5) * 100) / 100);
      }
    }
  }
  const colUpper = Float64Array.from({ length: cols }, () => 1 + Math.floor(rng.next() * 10));
  const cost = Float64Array.from({ length: cols }, () => Math.round((rng.next() * 10 - 7) * 100) / 100);
  if (freeCol) {
    // a column bounded below only, with a cost that makes it dual infeasible at its lower bound
    colUpper[0] = Infinity;
    cost[0] = -1;
  }
  return {
    rows,
    cols,
    a: cscFromTriplets(rows, cols, ri, ci, vv),
    cost,
    colLower: new Float64Array(cols),
    colUpper,
    rowLower: new Float64Array(rows).fill(-Infinity),
    rowUpper: Float64Array.from({ length: rows }, () => 20 + rng.next() * 50),
    offset: 0,
    integer: new Uint8Array(cols),
  };
}

/** Worst violation of the optimality conditions of x with row duals y (minimisation, y ≥ 0 on ≤ rows). */
function kktViolation(model: LpModel, x: Float64Array, y: Float64Array): number {
  const { a } = model;
  let worst = 0;
  const activity = new Float64Array(model.rows);
  for (let j = 0; j < model.cols; j++) {
    let d = model.cost[j];
    for (let p = a.start[j]; p < a.start[j + 1]; p++) {
      activity[a.index[p]] += a.value[p] * x[j];
      d -= a.value[p] * y[a.index[p]];
    }
    worst = Math.max(worst, model.colLower[j] - x[j], x[j] - model.colUpper[j]);
    // d > 0 only at the lower bound, d < 0 only at the upper bound
    if (d > 0) worst = Math.max(worst, Math.min(d, x[j] - model.colLower[j]));
    if (d < 0) worst = Math.max(worst, Math.min(-d, model.colUpper[j] - x[j]));
  }
  for (let i = 0; i < model.rows; i++) {
    worst = Math.max(worst, activity[i] - model.rowUpper[i]);
    // y_i is the multiplier of the logical −activity: on a ≤ row it is ≤ 0, and 0 unless the row is active
    worst = Math.max(worst, y[i], Math.min(-y[i], model.rowUpper[i] - activity[i]));
  }
  return worst;
}

describe("jaos dual simplex: boxed columns", () => {
  it("flips the boxed dual-infeasible columns of a cold start to their other bound, and only when all are boxed", () => {
    const st = new SimplexState(wideBoxedLp(1, 4, 60));
    st.setSlackBasis();
    st.refactor();
    st.computeDual();
    const wrong = st.dualInfeasibility().count;
    expect(wrong).toBeGreaterThan(0);
    expect(st.flipBoxedToDualFeasibility()).toBe(wrong);
    st.computeDual();
    expect(st.dualInfeasibility().count).toBe(0);
    expect(Array.from(st.status.slice(0, 60)).some((s) => s === AT_UPPER)).toBe(true);

    const free = new SimplexState(wideBoxedLp(1, 4, 60, true));
    free.setSlackBasis();
    free.refactor();
    free.computeDual();
    expect(free.d[0]).toBeLessThan(0);
    expect(free.flipBoxedToDualFeasibility()).toBe(0);
    expect(Array.from(free.status.slice(0, 60)).every((s) => s === AT_LOWER)).toBe(true);
  });

  for (const seed of [2, 3, 4, 5]) {
    it(`solves a wide boxed LP (seed ${seed}) to a point that meets the optimality conditions, passing many breakpoints per iteration`, () => {
      const model = wideBoxedLp(seed, 6, 800);
      const engine = new LpEngine(model);
      const r = engine.solve({ deadline: performance.now() + 20_000 });
      expect(r.status).toBe("optimal");
      // long steps: far fewer iterations than columns moved off their lower bound
      const moved = Array.from(r.x!).filter((v) => v > 1e-9).length;
      expect(moved).toBeGreaterThan(50);
      expect(r.iterations).toBeLessThan(moved);
      expect(kktViolation(model, r.x!, engine.rowDuals())).toBeLessThan(1e-6);
    });
  }
});

describe("jaos dual simplex: CHUZR's maintained infeasibilities", () => {
  it("after every iteration (flips and primal steps applied only where x changed) equal a full scan of x", () => {
    for (const seed of [6, 7]) {
      const st = new SimplexState(wideBoxedLp(seed, 40, 300));
      st.setSlackBasis();
      st.refactor();
      st.computeDual();
      st.flipBoxedToDualFeasibility();
      st.computePrimal();
      let status = "iteration_limit";
      let iterations = 0;
      while (status === "iteration_limit" && iterations < 500) {
        status = runDual(st, { deadline: performance.now() + 10_000, iterationLimit: 1 }).status;
        iterations++;
        for (let k = 0; k < st.m; k++) {
          const j = st.basicIndex[k];
          const v = st.x[j];
          const inf = v < st.lower[j] - st.tol.primal ? st.lower[j] - v : v > st.upper[j] + st.tol.primal ? v - st.upper[j] : 0;
          expect(st.infeasibilitySquared[k]).toBe(inf * inf);
        }
      }
      expect(status).toBe("optimal");
      expect(iterations).toBeGreaterThan(10);
    }
  });
});
