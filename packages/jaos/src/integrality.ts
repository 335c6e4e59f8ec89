/**
 * When an integer column's LP value counts as integral, and what to branch on when it only seemed to.
 *
 * The test is the plain one — the distance from the nearest integer within the integrality tolerance
 * (1e-6, or the caller's) — on the value clamped into the column's bounds. It is a filter, not the
 * verdict: on a big-M row x − 1e7·y ≤ 0, y = 3e-7 passes it, yet rounding y to 0 moves the row by 3.
 * The verdict is the incumbent check (incumbent.ts): every integer column rounded exactly, every row of
 * the original model checked. A node whose rounded point fails is first repaired (the LP again with the
 * integers fixed, mip.ts); if that does not close it, it branches on `trickleColumn`, the integer whose
 * rounding moves its rows most.
 *
 * A per-column tolerance shrunk by the coefficients (min(1e-6, 1e-6·max(1, |b_i|)/|a_ij|)) was tried
 * first and dropped: it ignores a row's slack, so it branched where rounding was harmless — gt2 went
 * from 3,206 to 8,034 nodes, with a floor of 1e-9 or 1e-7 alike — and below 1e-9 it branched on the
 * LP's roundoff (khb05250: 3 nodes to 15,000 at its time limit). docs/decisions.md, "jaos on big-M".
 */
import type { LpModel } from "./model.js";

/** The default integrality tolerance (absolute distance from the nearest integer). */
export const DEFAULT_INTEGRALITY_TOLERANCE = 1e-6;

export class IntegralityRule {
  /** The largest distance from an integer that still counts as integral. */
  readonly tolerance: number;
  /** Per column: max over its rows of |a_ij| / max(1, |b_i|), how far rounding it moves its rows. */
  private readonly weight: Float64Array;

  /**
   * @param model the model branch and bound works on (its rows weigh the columns; cut rows added later
   *   are valid inequalities, not the user's rows, and do not count)
   * @param integralityTolerance the absolute tolerance (absent, negative or not finite: the default)
   */
  constructor(
    private readonly model: LpModel,
    integralityTolerance?: number,
  ) {
    this.tolerance = validTolerance(integralityTolerance);
    const { rows, cols, a } = model;
    // a row's side b is held to 1e-6·max(1, |b|) (the incumbent check): the smaller finite side counts
    const rowScale = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      const lo = model.rowLower[i]!;
      const up = model.rowUpper[i]!;
      const side = Math.min(Number.isFinite(lo) ? Math.abs(lo) : Infinity, Number.isFinite(up) ? Math.abs(up) : Infinity);
      rowScale[i] = Number.isFinite(side) ? Math.max(1, side) : Infinity;
    }
    this.weight = new Float64Array(cols);
    for (let j = 0; j < cols; j++) {
      let w = 0;
      for (let k = a.start[j]; k < a.start[j + 1]; k++) w = Math.max(w, Math.abs(a.value[k]) / rowScale[a.index[k]]!);
      this.weight[j] = w;
    }
  }

  /**
   * Whether integer column j at value v is fractional (continuous columns never are), v first clamped
   * into the column's current bounds: an LP leaves a basic column up to its feasibility tolerance
   * outside them, and −1e-7 on [0, 1] is 0, not a value to branch on (its down child would be empty and
   * its up child the node itself).
   */
  fractional(j: number, v: number, lower: ArrayLike<number>, upper: ArrayLike<number>): boolean {
    return this.model.integer[j] === 1 && integerDistance(v, lower[j]!, upper[j]!) > this.tolerance;
  }

  /**
   * The integer column whose rounding moves its rows most (distance × |a_ij| / max(1, |b_i|)) among
   * those not exactly integral; −1 when every integer column is. Branching on it takes the trickle away:
   * its down and up children hold it at integers.
   */
  trickleColumn(x: ArrayLike<number>, lower: ArrayLike<number>, upper: ArrayLike<number>): number {
    let best = -1;
    let bestMove = -1;
    for (let j = 0; j < this.model.cols; j++) {
      if (!this.model.integer[j]) continue;
      const distance = integerDistance(x[j]!, lower[j]!, upper[j]!);
      if (distance === 0) continue;
      const move = distance * this.weight[j]!;
      if (move > bestMove) {
        bestMove = move;
        best = j;
      }
    }
    return best;
  }
}

/** The distance of v, clamped into [lower, upper], from the nearest integer. */
export function integerDistance(v: number, lower: number, upper: number): number {
  const clamped = Math.min(Math.max(v, lower), upper);
  return Math.abs(clamped - Math.round(clamped));
}

/** A usable absolute tolerance: the given one when it is a finite number ≥ 0, else the default. */
export function validTolerance(tolerance: number | undefined): number {
  return tolerance !== undefined && Number.isFinite(tolerance) && tolerance >= 0 ? tolerance : DEFAULT_INTEGRALITY_TOLERANCE;
}
