/**
 * Bound propagation at a branch-and-bound node, before its LP: from the columns whose bounds changed
 * (the branching bound, inherited reduced-cost fixings, orbitopal fixings), each touched row's least and
 * greatest activity over the node's box limits its integer columns, and a tightened column sends its own
 * rows back to the queue. A row whose activity range misses its sides proves the node holds no feasible
 * point; so does an integer column left no integer value.
 *
 * Unlike activity-domain.ts (the dive's propagation, whose points are verified afterwards), the bounds
 * found here prune nodes and enter the LP whose bound node-bound.ts proves, so they must never cut off a
 * point feasible within the tolerances:
 * - a row's activity bounds are summed afresh from the box each time the row is processed (no running
 *   sums that drift over thousands of nodes), and every test allows the row's feasibility tolerance plus
 *   a rounding allowance proportional to the magnitude of the terms summed;
 * - integer columns are rounded outward by that allowance; continuous ones (when asked for) are relaxed
 *   outward by it and move only by a step worth an LP bound change: the LP and the proven bound
 *   (node-bound.ts) use the box, so it must hold every point feasible within the tolerances.
 * The rows are the presolved model's plus the root's kept cuts: all hold for every point the search must
 * keep (cuts cut off no improving integer point).
 *
 * The work (matrix entries visited) is capped per node; the bounds found before the cap are valid all the
 * same (each is implied by the rows and the box), only fewer.
 */
import { residual } from "./activity-domain.js";
import type { LpModel } from "./model.js";
import type { BoundChange } from "./reduced-cost.js";
import { type CsrMatrix, toRowWise } from "./sparse.js";

/** Row feasibility tolerance, scaled by max(1, |side|) (as activity-domain.ts and the LP's checks). */
const ROW_TOL = 1e-6;
/** Relative rounding allowance on a sum of terms: far above the float error of a few thousand terms. */
const SUM_TOL = 1e-11;
/** A continuous column's bound moves only by more than this share of its magnitude. */
const CONTINUOUS_STEP = 1e-3;
/** Integer bounds beyond this are not tightened (their floor/ceil is no longer exact). */
const MAX_INTEGER_BOUND = 2 ** 52;

export class NodePropagator {
  private readonly byRow: CsrMatrix;
  private readonly queued: Uint8Array;
  private readonly queue: number[] = [];
  /** The objective as one more row (index `model.rows` in the queue): its columns and costs. */
  private readonly objIndex: Int32Array;
  private readonly objValue: Float64Array;
  private readonly hasCost: Uint8Array;
  /** The objective row's upper side during one propagate call (Infinity: no incumbent yet). */
  private objUpper = Infinity;

  constructor(
    private readonly model: LpModel,
    /** Matrix entries visited per node at most. */
    private readonly workLimit: number,
    /** Whether continuous columns are tightened too (relaxed outward by the same allowance). */
    private readonly continuous = false,
  ) {
    this.byRow = toRowWise(model.a);
    this.queued = new Uint8Array(model.rows + 1);
    const withCost: number[] = [];
    for (let j = 0; j < model.cols; j++) if (model.cost[j] !== 0) withCost.push(j);
    this.objIndex = Int32Array.from(withCost);
    this.objValue = Float64Array.from(withCost, (j) => model.cost[j]!);
    this.hasCost = new Uint8Array(model.cols);
    for (const j of withCost) this.hasCost[j] = 1;
  }

  /**
   * Tightens the integer columns of the box `lo`/`up` (changed in place) through the rows of the columns
   * in `seeds`, appending each tightened bound to `out`. False when the box provably holds no feasible
   * point (then `lo`/`up` are partly tightened and must not be used).
   *
   * `objectiveLimit` (the search's prune level: a point at or above it is not wanted) adds the row
   * cᵀx + offset ≤ objectiveLimit: the bounds it implies keep every point the search still looks for, and
   * they stay valid in the subtree because the prune level only falls.
   */
  propagate(lo: Float64Array, up: Float64Array, seeds: Iterable<number>, out: BoundChange[], objectiveLimit = Infinity): boolean {
    const { a } = this.model;
    this.objUpper = objectiveLimit - this.model.offset;
    const objective = this.model.rows;
    for (const j of seeds) {
      for (let k = a.start[j]; k < a.start[j + 1]; k++) this.enqueue(a.index[k]);
      if (this.hasCost[j]) this.enqueue(objective);
    }
    let work = 0;
    let feasible = true;
    while (this.queue.length > 0 && feasible && work <= this.workLimit) {
      const i = this.queue.pop()!;
      this.queued[i] = 0;
      if (i === objective) {
        if (this.objUpper === Infinity) continue;
        work += 2 * this.objIndex.length;
        feasible = this.limit(this.objIndex, this.objValue, 0, this.objIndex.length, -Infinity, this.objUpper, objective, lo, up, out);
        continue;
      }
      work += 2 * (this.byRow.start[i + 1] - this.byRow.start[i]);
      feasible = this.row(i, lo, up, out);
    }
    for (const i of this.queue) this.queued[i] = 0;
    this.queue.length = 0;
    return feasible;
  }

  private enqueue(i: number): void {
    if (this.queued[i]) return;
    this.queued[i] = 1;
    this.queue.push(i);
  }

  /** One row: its activity range over the box checked against its sides, then its integer columns limited. */
  private row(i: number, lo: Float64Array, up: Float64Array, out: BoundChange[]): boolean {
    const { start, index, value } = this.byRow;
    return this.limit(index, value, start[i], start[i + 1], this.model.rowLower[i], this.model.rowUpper[i], i, lo, up, out);
  }

  /** A row given as entries `from`..`to` of `index`/`value` with sides `rl`/`ru` (`self`: its queue index, never requeued by its own tightenings). */
  private limit(
    index: Int32Array,
    value: Float64Array,
    from: number,
    to: number,
    rl: number,
    ru: number,
    self: number,
    lo: Float64Array,
    up: Float64Array,
    out: BoundChange[],
  ): boolean {
    const { integer } = this.model;
    let minAct = 0;
    let maxAct = 0;
    let minInf = 0;
    let maxInf = 0;
    let magnitude = 0;
    for (let k = from; k < to; k++) {
      const j = index[k];
      const c = value[k];
      const least = c > 0 ? lo[j] : up[j];
      const most = c > 0 ? up[j] : lo[j];
      if (Number.isFinite(least)) {
        minAct += c * least;
        magnitude += Math.abs(c * least);
      } else minInf++;
      if (Number.isFinite(most)) {
        maxAct += c * most;
        magnitude += Math.abs(c * most);
      } else maxInf++;
    }
    const sideTol = ROW_TOL * Math.max(1, Number.isFinite(rl) ? Math.abs(rl) : 0, Number.isFinite(ru) ? Math.abs(ru) : 0);
    const tol = sideTol + SUM_TOL * magnitude;
    if (minInf === 0 && minAct > ru + tol) return false;
    if (maxInf === 0 && maxAct < rl - tol) return false;
    const upperRoom = ru < Infinity && minInf <= 1;
    const lowerRoom = rl > -Infinity && maxInf <= 1;
    if (!upperRoom && !lowerRoom) return true;
    for (let k = from; k < to; k++) {
      const j = index[k];
      if ((!integer[j] && !this.continuous) || lo[j] === up[j]) continue;
      const c = value[k];
      // the others' least (greatest) activity: the row's without column j's share
      let newLo = -Infinity;
      let newUp = Infinity;
      if (upperRoom) {
        // an infinite rest (another entry's share infinite) gives an infinite limit: no change
        const rest = residual(minAct, minInf, c * (c > 0 ? lo[j] : up[j]), -Infinity);
        const limit = (ru - rest) / c;
        if (c > 0) newUp = limit;
        else newLo = limit;
      }
      if (lowerRoom) {
        const rest = residual(maxAct, maxInf, c * (c > 0 ? up[j] : lo[j]), Infinity);
        const limit = (rl - rest) / c;
        if (c > 0) newLo = Math.max(newLo, limit);
        else newUp = Math.min(newUp, limit);
      }
      // an integer value within the row's tolerance of the limit stays: the allowance in column units
      const slack = Math.max(ROW_TOL, tol / Math.abs(c));
      let tLo = lo[j];
      let tUp = up[j];
      if (integer[j]) {
        if (newLo > tLo && Math.abs(newLo) < MAX_INTEGER_BOUND) tLo = Math.max(tLo, Math.ceil(newLo - slack));
        if (newUp < tUp && Math.abs(newUp) < MAX_INTEGER_BOUND) tUp = Math.min(tUp, Math.floor(newUp + slack));
      } else {
        // only a step worth an LP bound change (no creep by tiny steps along a cycle of rows)
        // (an infinite bound always moves: its step would be NaN)
        if (newLo > -Infinity && (tLo === -Infinity || newLo - slack > tLo + CONTINUOUS_STEP * Math.max(1, Math.abs(tLo)))) tLo = newLo - slack;
        if (newUp < Infinity && (tUp === Infinity || newUp + slack < tUp - CONTINUOUS_STEP * Math.max(1, Math.abs(tUp)))) tUp = newUp + slack;
      }
      if (tLo === lo[j] && tUp === up[j]) continue;
      if (tLo > tUp) return false;
      lo[j] = tLo;
      up[j] = tUp;
      out.push({ col: j, lower: tLo, upper: tUp });
      // the row's sums still hold column j's old bound: weaker for the columns after it, but valid
      this.requeueRowsOf(j, self);
    }
    return true;
  }

  private requeueRowsOf(j: number, except: number): void {
    const { a } = this.model;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) if (a.index[k] !== except) this.enqueue(a.index[k]);
    if (this.hasCost[j] && except !== this.model.rows && this.objUpper < Infinity) this.enqueue(this.model.rows);
  }
}
