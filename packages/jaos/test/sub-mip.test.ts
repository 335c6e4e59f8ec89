/**
 * The root sub-MIP heuristic (sub-mip.ts, mip.ts): its neighbourhoods (RINS around an incumbent, RENS
 * around the LP point), a sub-MIP's node and iteration limits (counted, not timed), what a sub-MIP finds
 * feasible for the original model (knapsacks against enumeration), and whole searches with it on still at
 * the optimum of the search without it (random MILPs with general integers and a continuous column; the
 * knapsacks here close at the root, before any sub-MIP).
 */
import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { solveMip } from "../src/mip.js";
import { modelFromProblem } from "../src/model.js";
import { noPresolve, presolve } from "../src/presolve.js";
import {
  RENS_MIN_FIXED_SHARE,
  RINS_MIN_FIXED_SHARE,
  SUB_MIP_FULL_GAP,
  SUB_MIP_ITERATION_SHARE,
  SUB_MIP_MIN_ITERATIONS,
  subMipIterationBudget,
  subMipNeighbourhood,
  subMipSpent,
} from "../src/sub-mip.js";
import { expectObjective, pointViolations, problem, seededGenerator, solveChecked, seededMilp } from "./support.js";

const f64 = (v: number[]) => Float64Array.from(v);
const ITEMS = 14;

interface Knapsack {
  values: number[];
  weights: number[][];
  capacities: number[];
}

/** A two-row binary knapsack with seeded values and weights (capacities 45 % of each row's weight). */
function randomKnapsack(next: () => number): Knapsack {
  const values = Array.from({ length: ITEMS }, () => 10 + Math.floor(next() * 90));
  const weights = [0, 1].map(() => Array.from({ length: ITEMS }, () => 5 + Math.floor(next() * 45)));
  const capacities = weights.map((w) => Math.floor(0.45 * w.reduce((a, b) => a + b, 0)));
  return { values, weights, capacities };
}

function bruteForce(k: Knapsack): number {
  let best = 0;
  for (let mask = 0; mask < 1 << ITEMS; mask++) {
    let fits = true;
    for (let r = 0; r < k.weights.length && fits; r++) {
      let used = 0;
      for (let i = 0; i < ITEMS; i++) if (mask & (1 << i)) used += k.weights[r]![i]!;
      fits = used <= k.capacities[r]!;
    }
    if (!fits) continue;
    let value = 0;
    for (let i = 0; i < ITEMS; i++) if (mask & (1 << i)) value += k.values[i]!;
    if (value > best) best = value;
  }
  return best;
}

/** A random MILP: binaries, small general integers and a bounded continuous column; rows of both signs (the default shape). */
const randomMilp = (seed: number) => seededMilp(seed);

function knapsackProblem(k: Knapsack) {
  return problem({
    sense: "maximize",
    variables: k.values.map((_, i) => ({ name: `x${i}`, lb: 0, ub: 1, type: "binary" as const })),
    objective: { constant: 0, terms: k.values.map((c, i) => ({ var: `x${i}`, coef: c })) },
    constraints: k.weights.map((w, r) => ({ name: `cap${r}`, terms: w.map((c, i) => ({ var: `x${i}`, coef: c })), ub: k.capacities[r]! })),
  });
}

/**
 * Eight seeded knapsacks, each with its root LP's RENS neighbourhood (those without one skipped): the
 * setup both sub-MIP searches below start from.
 */
function* knapsackNeighbourhoods(seed: number) {
  const { next } = seededGenerator(seed);
  for (let n = 0; n < 8; n++) {
    const k = randomKnapsack(next);
    const p = knapsackProblem(k);
    const { model, colNames } = modelFromProblem(p);
    const lp = new LpEngine(model).solve({ deadline: Infinity });
    expect(lp.status).toBe("optimal");
    const hood = subMipNeighbourhood(model.integer, model.colLower, model.colUpper, lp.x!, null);
    if (hood) yield { k, p, model, colNames, hood };
  }
}

describe("subMipNeighbourhood", () => {
  it("RINS fixes the integer columns on which the LP point and the incumbent agree, and nothing else", () => {
    const integer = Uint8Array.from([1, 1, 1, 0, 1]);
    const lower = f64([0, 0, 0, 0, 0]);
    const upper = f64([1, 1, 5, 10, 1]);
    const hood = subMipNeighbourhood(integer, lower, upper, f64([1, 0.5, 3 + 1e-8, 2.5, 0]), f64([1, 1, 3, 7, 1]))!;
    expect(hood.kind).toBe("rins");
    expect([hood.free, hood.fixed]).toEqual([4, 2]);
    expect(Array.from(hood.colLower)).toEqual([1, 0, 3, 0, 0]);
    expect(Array.from(hood.colUpper)).toEqual([1, 1, 3, 10, 1]);
    expect(Array.from(lower)).toEqual([0, 0, 0, 0, 0]); // inputs untouched
  });

  it("RENS fixes the integral LP values and keeps each fractional column between its roundings", () => {
    const integer = Uint8Array.from([1, 1, 1, 1, 0]);
    const lower = f64([0, 0, 0, 0, 0]);
    const upper = f64([1, 9, 9, 1, 9]);
    const hood = subMipNeighbourhood(integer, lower, upper, f64([1, 4, 2.5, 0, 3.3]), null)!;
    expect(hood.kind).toBe("rens");
    expect([hood.free, hood.fixed]).toEqual([4, 3]);
    expect(Array.from(hood.colLower)).toEqual([1, 4, 2, 0, 0]);
    expect(Array.from(hood.colUpper)).toEqual([1, 4, 3, 0, 9]);
  });

  it("gives no neighbourhood below each kind's minimum share fixed, nor when everything would be fixed", () => {
    const n = 10;
    const integer = new Uint8Array(n).fill(1);
    const lower = new Float64Array(n);
    const upper = new Float64Array(n).fill(1);
    const incumbent = new Float64Array(n).fill(1);
    for (const [seed, share] of [
      [incumbent, RINS_MIN_FIXED_SHARE],
      [null, RENS_MIN_FIXED_SHARE],
    ] as const) {
      const agreeing = Math.ceil(share * n) - 1;
      const lp = new Float64Array(n).fill(0.5);
      for (let j = 0; j < agreeing; j++) lp[j] = 1;
      expect(subMipNeighbourhood(integer, lower, upper, lp, seed)).toBeNull();
      lp[agreeing] = 1;
      expect(subMipNeighbourhood(integer, lower, upper, lp, seed)?.fixed).toBe(agreeing + 1);
    }
    expect(subMipNeighbourhood(integer, lower, upper, incumbent, incumbent)).toBeNull();
  });

  it("stops a sub-MIP at its limits, except a fresh one's root", () => {
    const limit = { nodeLimit: 5, iterationLimit: 100 };
    expect(subMipSpent(undefined, 1e9, 1e9)).toBe(false);
    expect(subMipSpent(limit, 0, 100)).toBe(true);
    expect(subMipSpent(limit, 5, 0)).toBe(true);
    expect(subMipSpent(limit, 4, 99)).toBe(false);
    expect(subMipSpent({ ...limit, fresh: true }, 0, 1e9)).toBe(false);
    expect(subMipSpent({ ...limit, fresh: true }, 1, 100)).toBe(true);
  });

  it("budgets a share of the root's iterations, with a floor", () => {
    expect(subMipIterationBudget(0)).toBe(SUB_MIP_MIN_ITERATIONS);
    expect(subMipIterationBudget(100_000)).toBe(Math.ceil(SUB_MIP_ITERATION_SHARE * 100_000));
  });

  it("scales the budget down with the root gap, the whole share at and above SUB_MIP_FULL_GAP", () => {
    const full = Math.ceil(SUB_MIP_ITERATION_SHARE * 100_000);
    expect(subMipIterationBudget(100_000, Infinity)).toBe(full);
    expect(subMipIterationBudget(100_000, SUB_MIP_FULL_GAP)).toBe(full);
    expect(subMipIterationBudget(100_000, 4 * SUB_MIP_FULL_GAP)).toBe(full);
    expect(subMipIterationBudget(100_000, SUB_MIP_FULL_GAP / 4)).toBe(Math.ceil(full / 4));
    expect(subMipIterationBudget(100_000, 0)).toBe(0);
    expect(subMipIterationBudget(100_000, -1e-9)).toBe(0);
    // the floor holds for a short root with the whole gap, not for one the gap scaled below it
    expect(subMipIterationBudget(10, Infinity)).toBe(SUB_MIP_MIN_ITERATIONS);
    expect(subMipIterationBudget(1000, SUB_MIP_FULL_GAP / 20)).toBe(0);
  });
});

describe("jaos MILP: the root sub-MIP", () => {
  it("a sub-MIP stops between nodes at its node and iteration limits, and what it finds is feasible for the original model", () => {
    let found = 0;
    for (const { k, p, model, colNames, hood } of knapsackNeighbourhoods(20261129)) {
      const sub = { ...model, colLower: hood.colLower, colUpper: hood.colUpper };
      // the original model checks what the sub-MIP (the neighbourhood's bounds) finds
      const search = (nodeLimit: number, iterationLimit: number) =>
        solveMip(model, noPresolve(sub), { deadline: Infinity, gapTolerance: 1e-9, subMip: { nodeLimit, iterationLimit } });
      // no iterations left after the root LP: not even the root node is processed
      expect(search(50, 0).nodes).toBe(0);
      for (const nodeLimit of [1, 5, 50]) {
        const out = search(nodeLimit, 10_000);
        expect(out.nodes).toBeLessThanOrEqual(nodeLimit);
        if (!out.incumbent) continue;
        found++;
        const point = Object.fromEntries(colNames.map((name, j) => [name, out.incumbent![j]!]));
        const value = colNames.reduce((s, name, j) => s + k.values[j]! * point[name]!, 0);
        expect(pointViolations(p, point, value)).toEqual([]);
        expect(value).toBeLessThanOrEqual(bruteForce(k) + 1e-9);
      }
    }
    expect(found).toBeGreaterThan(0);
  });

  it("a fresh sub-MIP (the neighbourhood presolved into a model of its own) finds only points of the original model, none better than its optimum", () => {
    let found = 0;
    for (const { k, p, model, colNames, hood } of knapsackNeighbourhoods(20261130)) {
      const pre = presolve({ ...model, colLower: hood.colLower, colUpper: hood.colUpper });
      if (pre.status !== "reduced") continue;
      // its root LP and cut loop run whatever the limits; the nodes after it stop at the node limit
      for (const [nodeLimit, iterationLimit] of [
        [1, 0],
        [3, 10_000],
        [500, 100_000],
      ] as const) {
        const out = solveMip(model, pre, { deadline: Infinity, gapTolerance: 1e-9, subMip: { nodeLimit, iterationLimit, fresh: true } });
        expect(out.nodes).toBeLessThanOrEqual(Math.max(1, nodeLimit));
        if (!out.incumbent) continue;
        found++;
        // postsolved through the neighbourhood's presolve onto the original model's columns
        const point = Object.fromEntries(colNames.map((name, j) => [name, out.incumbent![j]!]));
        const value = colNames.reduce((s, name, j) => s + k.values[j]! * point[name]!, 0);
        expect(pointViolations(p, point, value)).toEqual([]);
        expect(value).toBeLessThanOrEqual(bruteForce(k) + 1e-9);
        for (let j = 0; j < model.cols; j++) {
          expect(out.incumbent[j]!).toBeGreaterThanOrEqual(hood.colLower[j]!);
          expect(out.incumbent[j]!).toBeLessThanOrEqual(hood.colUpper[j]!);
        }
      }
    }
    expect(found).toBeGreaterThan(0);
  });

  it("whole searches with it on end at the optimum of the search without it on random MILPs with general integers", () => {
    let improved = 0;
    let ran = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const p = randomMilp(seed * 89);
      const off = solveChecked(p, { gapTolerance: 0 });
      const on = solveChecked(p, { gapTolerance: 0, rootSubMip: true });
      expect(on.solver_status, `seed ${seed}`).toBe(off.solver_status);
      // both stop within the absolute gap of 1e-6 the pruning level keeps (incumbent.ts)
      if (off.solver_status === "optimal") expectObjective(on, off.objective_value!, 2e-6);
      improved += on.stats.mip?.subMip.solutions ?? 0;
      ran += (on.stats.mip?.subMip.rins ?? 0) + (on.stats.mip?.subMip.rens ?? 0);
    }
    expect(ran).toBeGreaterThan(improved);
    // the sub-MIPs improved the root's incumbent on some of them (most close at the root)
    expect(improved).toBeGreaterThan(2);
  }, 300_000);
});
