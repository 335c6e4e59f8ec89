/**
 * Primal heuristics for branch and bound.
 *
 * Simple rounding (every node): a fractional column whose rounding down cannot violate any row (no
 * "down-locks") is rounded down, otherwise up if it has no up-locks; if some column is locked both
 * ways the heuristic gives up. Cheap, and exact on covering/packing-like rows.
 *
 * Fractional diving (root, then periodically): repeatedly bound the least fractional column to its
 * nearest integer side and re-solve the LP with the warm dual simplex, until the LP solution is
 * integral (a candidate) or infeasible/cut off (one backtrack to the other side, then stop). The LP
 * bounds and basis are restored afterwards.
 *
 * Candidates are only proposed: the caller verifies them on the original problem.
 */
import type { IntegralityRule } from "./integrality.js";
import type { LpEngine } from "./lp.js";
import type { LpModel } from "./model.js";

export const INTEGRALITY_TOL = 1e-6;

/** Off an integer by more than the plain tolerance (the cut separators' test; branching uses integrality.ts). */
export function isFractional(v: number): boolean {
  return Math.abs(v - Math.round(v)) > INTEGRALITY_TOL;
}

/** Per column, the number of rows that rounding down (resp. up) could violate. */
export interface Locks {
  down: Int32Array;
  up: Int32Array;
}

export function computeLocks(model: LpModel): Locks {
  const down = new Int32Array(model.cols);
  const up = new Int32Array(model.cols);
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const i = a.index[k];
      const v = a.value[k];
      const hasLo = model.rowLower[i] > -Infinity;
      const hasUp = model.rowUpper[i] < Infinity;
      if ((v > 0 && hasLo) || (v < 0 && hasUp)) down[j]++;
      if ((v > 0 && hasUp) || (v < 0 && hasLo)) up[j]++;
    }
  }
  return { down, up };
}

export function simpleRounding(model: LpModel, locks: Locks, integrality: IntegralityRule, x: Float64Array): Float64Array | null {
  const out = x.slice();
  for (let j = 0; j < model.cols; j++) {
    if (!integrality.fractional(j, x[j], model.colLower, model.colUpper)) continue;
    if (locks.down[j] === 0) out[j] = Math.floor(x[j]);
    else if (locks.up[j] === 0) out[j] = Math.ceil(x[j]);
    else return null;
  }
  return out;
}

/**
 * The column the rule calls fractional whose value is nearest an integer (the first such on a tie), or
 * -1 when none is: the dives fix it first, the cheapest move toward an integral point.
 */
export function leastFractional(integrality: IntegralityRule, x: ArrayLike<number>, model: Pick<LpModel, "cols" | "colLower" | "colUpper">): number {
  let pick = -1;
  let bestFrac = Infinity;
  for (let j = 0; j < model.cols; j++) {
    if (!integrality.fractional(j, x[j], model.colLower, model.colUpper)) continue;
    const f = Math.abs(x[j] - Math.round(x[j]));
    if (f < bestFrac) {
      bestFrac = f;
      pick = j;
    }
  }
  return pick;
}

export interface DiveHost {
  engine: LpEngine;
  model: LpModel;
  /** Which columns are fractional (the branching rule's). */
  integrality: IntegralityRule;
  deadline: number;
  /** Current pruning level (incumbent-based); dives stop when the LP bound reaches it. */
  cutoff(): number;
  /** Offers an integral LP solution; returns true when it became the incumbent. */
  offer(x: Float64Array): boolean;
}

export interface DiveResult {
  found: boolean;
  iterations: number;
}

/**
 * Fractional diving from the currently loaded bounds and basis (an optimal node LP). Restores the
 * column bounds and the basis before returning.
 */
export function fractionalDive(host: DiveHost, x0: Float64Array, iterationBudget: number): DiveResult {
  const { engine, model, integrality } = host;
  const savedLower = engine.model.colLower.slice();
  const savedUpper = engine.model.colUpper.slice();
  const savedBasis = engine.getBasis();
  let iterations = 0;
  let found = false;
  let x = x0;
  let backtracked = false;
  try {
    for (let depth = 0; depth < model.cols + 1; depth++) {
      const pick = leastFractional(integrality, x, engine.model);
      if (pick < 0) {
        found = host.offer(x);
        break;
      }
      const target = Math.round(x[pick]);
      const lo = engine.model.colLower[pick];
      const up = engine.model.colUpper[pick];
      const goUp = target > x[pick];
      const tryBounds = (upSide: boolean) => {
        if (upSide) engine.setColumnBounds(pick, Math.ceil(x[pick]), up);
        else engine.setColumnBounds(pick, lo, Math.floor(x[pick]));
        const r = engine.solve({ deadline: host.deadline, iterationLimit: Math.max(0, iterationBudget - iterations), cutoff: host.cutoff(), perturb: false });
        iterations += r.iterations;
        return r;
      };
      let r = tryBounds(goUp);
      if ((r.status === "infeasible" || r.status === "cutoff") && !backtracked) {
        backtracked = true;
        engine.setColumnBounds(pick, lo, up);
        r = tryBounds(!goUp);
      }
      if (r.status !== "optimal" || r.objective >= host.cutoff()) break;
      x = r.x!;
      if (performance.now() > host.deadline || iterations >= iterationBudget) break;
    }
  } finally {
    for (let j = 0; j < model.cols; j++) {
      if (engine.model.colLower[j] !== savedLower[j] || engine.model.colUpper[j] !== savedUpper[j]) engine.setColumnBounds(j, savedLower[j], savedUpper[j]);
    }
    engine.setBasis(savedBasis);
  }
  return { found, iterations };
}
