/**
 * The incumbent of branch and bound and the pruning rules that depend on it.
 *
 * A candidate point of the presolved model is accepted only if, with its integer columns rounded (or
 * as it is, when rounding breaks a row), it postsolves to a point that satisfies the original model
 * (rows and bounds to 1e-6 relative, integrality to 1e-6) and improves the objective recomputed on the
 * original model.
 *
 * Pruning level: a node whose bound reaches incumbent − max(gap·|incumbent|, 1e-6) cannot hold a
 * solution worth finding. When the objective only takes values offset + k·step (every column with a
 * cost is integer and the costs are integer multiples of step), a bound above incumbent − step is
 * enough, and bounds can be rounded up to that lattice.
 */
import { INTEGRALITY_TOL } from "./heuristics.js";
import { maxViolation, objectiveValue, type LpModel } from "./model.js";
import type { Presolved } from "./presolve.js";

const FEASIBILITY = 1e-6;
const ABS_GAP = 1e-6;

export class Incumbent {
  /** Best solution in the original column space. */
  x: Float64Array | null = null;
  /** Its objective (minimisation sense, with offset); Infinity before the first. */
  value = Infinity;
  private readonly step: number;
  private readonly offset: number;

  constructor(
    private readonly original: LpModel,
    private readonly pre: Presolved,
    reduced: LpModel,
    private readonly gapTolerance: number,
  ) {
    this.step = integralObjectiveStep(reduced);
    this.offset = reduced.offset;
  }

  /** Whether the objective only takes values offset + k·step. */
  get latticeObjective(): boolean {
    return Number.isFinite(this.step);
  }

  get found(): boolean {
    return this.x !== null;
  }

  /** Verifies a point of the presolved model; returns true when it became the incumbent. */
  offer(xr: Float64Array, reducedInteger: Uint8Array): boolean {
    const rounded = xr.slice();
    for (let j = 0; j < rounded.length; j++) if (reducedInteger[j]) rounded[j] = Math.round(rounded[j]);
    for (const candidate of [rounded, xr]) {
      const x = this.pre.postsolve(candidate);
      if (maxViolation(this.original, x) > FEASIBILITY) continue;
      let integral = true;
      for (let j = 0; j < this.original.cols && integral; j++) {
        if (this.original.integer[j] && Math.abs(x[j] - Math.round(x[j])) > INTEGRALITY_TOL) integral = false;
      }
      if (!integral) continue;
      const value = objectiveValue(this.original, x);
      if (value >= this.value - 1e-9 * Math.max(1, Math.abs(value))) return false;
      this.x = x;
      this.value = value;
      return true;
    }
    return false;
  }

  /** Nodes with a lower bound at or above this cannot hold a better solution worth finding. */
  pruneLevel(): number {
    if (!this.x) return Infinity;
    const ub = this.value;
    let level = ub - Math.max(this.gapTolerance * Math.abs(ub), ABS_GAP);
    if (Number.isFinite(this.step)) level = Math.min(level, ub - this.step + ABS_GAP * Math.max(1, Math.abs(ub)));
    return level;
  }

  /** A bound rounded up to the objective's lattice when the objective is integral. */
  roundBound(b: number): number {
    if (!Number.isFinite(this.step) || !Number.isFinite(b)) return b;
    return this.offset + this.step * Math.ceil((b - this.offset) / this.step - 1e-6);
  }
}

/**
 * When every column with a nonzero cost is integer and the costs are integer multiples of a common
 * step, the objective only takes values offset + k·step. Returns that step, or Infinity otherwise.
 */
function integralObjectiveStep(model: LpModel): number {
  let g = 0;
  for (let j = 0; j < model.cols; j++) {
    const c = model.cost[j];
    if (c === 0) continue;
    if (!model.integer[j] || Math.abs(c - Math.round(c)) > 1e-9 || Math.abs(c) > 1e9) return Infinity;
    g = gcd(g, Math.abs(Math.round(c)));
  }
  return g > 0 ? g : Infinity;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
