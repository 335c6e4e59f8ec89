/**
 * The incumbent of branch and bound and the pruning rules that depend on it.
 *
 * A candidate point of the presolved model is accepted only with its integer columns rounded to
 * integers exactly: the rounded point is postsolved and must satisfy the original model (rows and
 * bounds to 1e-6 relative to max(1, |side|)) and improve the objective recomputed on the original
 * model. The point as the LP left it is never taken instead: a binary at 3e-7 against a coefficient of
 * 1e7 satisfies its row only because it is not 0 (a big-M "trickle"), and the point reported must be the
 * one the user's model accepts with its integers integral.
 *
 * Pruning level: a node whose bound reaches incumbent − max(gap·|incumbent|, 1e-6) cannot hold a
 * solution worth finding. When the best points of every node have objective offset + k·step
 * (objective-lattice.ts: integral columns with costs that are multiples of step), a bound above the
 * incumbent rounded up to the lattice, minus step, is enough, and bounds can be rounded up to that lattice.
 */
import { DEFAULT_INTEGRALITY_TOLERANCE } from "./integrality.js";
import { objectiveValue, worstViolation, type LpModel } from "./model.js";
import { objectiveLatticeStep } from "./objective-lattice.js";
import type { ColumnPostsolve } from "./root-restart.js";

const FEASIBILITY = 1e-6;
const ABS_GAP = 1e-6;

/** What became of an offered point: the new incumbent, no better than it, or not a point of the model. */
export type OfferVerdict = "accepted" | "worse" | "rejected";

/** Why a point was rejected, in the original model's columns and rows. */
export interface Rejection {
  /** "integrality": an integer column off an integer after postsolve; "column"/"row": a bound or side broken. */
  where: "integrality" | "column" | "row";
  index: number;
  /** The distance from an integer, or the violation relative to max(1, |bound|). */
  amount: number;
  /**
   * The point as offered, its integer columns left where they were, passes (within the integrality
   * tolerance) and would improve on the incumbent: only the rounding broke the model — a trickle, or
   * the LP's own tolerance on a row with large coefficients. The continuous columns re-solved with the
   * integers fixed may make up for it (mip.ts, `repair`).
   */
  roundingOnly: boolean;
}

export class Incumbent {
  /** Best solution in the original column space. */
  x: Float64Array | null = null;
  /** Its objective (minimisation sense, with offset); Infinity before the first. */
  value = Infinity;
  /** Why the last rejected point failed. */
  lastRejection: Rejection | null = null;
  private readonly step: number;
  private readonly integerCosts: boolean;
  private readonly offset: number;

  constructor(
    private readonly original: LpModel,
    private readonly pre: ColumnPostsolve,
    reduced: LpModel,
    private readonly gapTolerance: number,
    /** The absolute integrality tolerance the search uses (for `Rejection.roundingOnly`). */
    private readonly integralityTolerance: number = DEFAULT_INTEGRALITY_TOLERANCE,
  ) {
    this.step = objectiveLatticeStep(reduced);
    this.integerCosts = hasIntegerCosts(reduced);
    this.offset = reduced.offset;
  }

  /**
   * Whether the search's lattice rules apply (mip.ts: plunges kept on the face of the global bound, the
   * up child first): an objective of integer costs on integer columns only, where they were measured.
   * The wider lattice of objective-lattice.ts (rational costs, implied integer columns) prunes and
   * rounds bounds only: with it these rules lost rout's first incumbent (docs/bench/jaos.md, jaosmip3).
   */
  get latticeObjective(): boolean {
    return Number.isFinite(this.step) && this.integerCosts;
  }

  get found(): boolean {
    return this.x !== null;
  }

  /**
   * Takes over another search's incumbent (a root restart, root-restart.ts): its point is in the original
   * column space and was verified there, so it holds for any presolve of the same original model.
   */
  carry(from: Incumbent): void {
    if (!from.x || from.value >= this.value) return;
    this.x = from.x;
    this.value = from.value;
  }

  /** Verifies a point of the presolved model with its integer columns rounded (see the header). */
  offer(xr: Float64Array, reducedInteger: Uint8Array): OfferVerdict {
    const rounded = xr.slice();
    for (let j = 0; j < rounded.length; j++) if (reducedInteger[j]) rounded[j] = Math.round(rounded[j]);
    return this.offerOriginal(this.pre.postsolve(rounded), xr);
  }

  /**
   * Verifies a point of the original model (a caller's start solution, mip.ts): its integer columns
   * must be within 1e-6 of integers (then made exact), its rows and bounds hold, and it must improve.
   * `asOffered` is the presolved point it came from, if any (for `Rejection.roundingOnly`).
   */
  offerOriginal(original: Float64Array, asOffered?: Float64Array): OfferVerdict {
    if (original.length !== this.original.cols) return this.reject({ where: "column", index: original.length, amount: Infinity, roundingOnly: false });
    const x = original.slice();
    // presolve fixes integer columns only at integers, so postsolve gives them back integral; the
    // tolerance here only absorbs the arithmetic of a substitution, and the value is made exact
    for (let j = 0; j < this.original.cols; j++) {
      if (!Number.isFinite(x[j])) return this.reject({ where: "column", index: j, amount: Infinity, roundingOnly: false });
      if (!this.original.integer[j]) continue;
      const nearest = Math.round(x[j]);
      const off = Math.abs(x[j] - nearest);
      if (off > DEFAULT_INTEGRALITY_TOLERANCE) return this.reject({ where: "integrality", index: j, amount: off, roundingOnly: false });
      x[j] = nearest;
    }
    const broken = worstViolation(this.original, x);
    if (broken.amount > FEASIBILITY) {
      return this.reject({ where: broken.where, index: broken.index, amount: broken.amount, roundingOnly: !!asOffered && this.passesAsOffered(asOffered) });
    }
    const value = objectiveValue(this.original, x);
    if (value >= this.value - 1e-9 * Math.max(1, Math.abs(value))) return "worse";
    this.x = x;
    this.value = value;
    return "accepted";
  }

  /**
   * Whether the point, integer columns unrounded, postsolves to one that passes within the integrality
   * tolerance and improves on the incumbent (the point the engine once accepted as it was).
   */
  private passesAsOffered(xr: Float64Array): boolean {
    const x = this.pre.postsolve(xr);
    for (let j = 0; j < this.original.cols; j++) {
      if (this.original.integer[j] && !(Math.abs(x[j] - Math.round(x[j])) <= this.integralityTolerance)) return false;
    }
    if (worstViolation(this.original, x).amount > FEASIBILITY) return false;
    const value = objectiveValue(this.original, x);
    return value < this.value - 1e-9 * Math.max(1, Math.abs(value));
  }

  private reject(why: Rejection): OfferVerdict {
    this.lastRejection = why;
    return "rejected";
  }

  /** Nodes with a lower bound at or above this cannot hold a better solution worth finding. */
  pruneLevel(): number {
    if (!this.x) return Infinity;
    const ub = this.value;
    let level = ub - Math.max(this.gapTolerance * Math.abs(ub), ABS_GAP);
    // an incumbent off the lattice (a column pushed by its cost left short of its integral value,
    // objective-lattice.ts) still has every better point at or below the lattice value under it
    if (Number.isFinite(this.step)) level = Math.min(level, this.roundBound(ub) - this.step + ABS_GAP * Math.max(1, Math.abs(ub)));
    return level;
  }

  /** A bound rounded up to the objective's lattice when the objective is integral. */
  roundBound(b: number): number {
    if (!Number.isFinite(this.step) || !Number.isFinite(b)) return b;
    return this.offset + this.step * Math.ceil((b - this.offset) / this.step - 1e-6);
  }
}

/** Every column with a cost is an integer column and every cost an integer. */
function hasIntegerCosts(model: LpModel): boolean {
  for (let j = 0; j < model.cols; j++) {
    const c = model.cost[j];
    if (c !== 0 && (!model.integer[j] || Math.abs(c - Math.round(c)) > 1e-9)) return false;
  }
  return true;
}
