/**
 * Column bounds under propagation through the rows' activity bounds (bound tightening): a row whose
 * other columns' least (greatest) activity leaves a column less room tightens that column's bound, and
 * a tightened bound propagates on through its own rows. Changes are trailed so that a search can undo
 * them. Used by the primal heuristics only: a point they build from it is verified on the original
 * model, so floating-point drift in the running activities costs at most a failed candidate. Root
 * probing (probing.ts) keeps what it proves: a conflict there needs a row broken beyond the tolerance
 * below, and a spent work budget is told apart from a conflict by `exhausted`.
 */
import type { LpModel } from "./model.js";
import { type CscMatrix, type CsrMatrix, toRowWise } from "./sparse.js";

/** A row is violated beyond this (scaled by its right-hand side's magnitude). */
const FEASIBILITY_TOL = 1e-6;
/** A continuous column's bound moves only by more than this share of its magnitude (no endless creep). */
const CONTINUOUS_STEP = 1e-3;

/**
 * Column bounds with each row's least and greatest activity over them (finite parts plus counts of
 * infinite contributions), kept up to date as bounds change, and a trail to undo changes.
 */
export class ActivityDomain {
  readonly lo: Float64Array;
  readonly up: Float64Array;
  private readonly minAct: Float64Array;
  private readonly maxAct: Float64Array;
  private readonly minInf: Int32Array;
  private readonly maxInf: Int32Array;
  private readonly rowsOf: CscMatrix;
  private readonly byRow: CsrMatrix;
  private readonly trailCol: number[] = [];
  private readonly trailLo: number[] = [];
  private readonly trailUp: number[] = [];
  private readonly queued: Uint8Array;
  private queue: number[] = [];
  private work = 0;

  constructor(
    private readonly model: LpModel,
    lower: Float64Array,
    upper: Float64Array,
    private readonly workLimit: number,
  ) {
    this.rowsOf = model.a;
    this.byRow = toRowWise(model.a);
    this.lo = lower.slice();
    this.up = upper.slice();
    this.minAct = new Float64Array(model.rows);
    this.maxAct = new Float64Array(model.rows);
    this.minInf = new Int32Array(model.rows);
    this.maxInf = new Int32Array(model.rows);
    this.queued = new Uint8Array(model.rows);
    for (let j = 0; j < model.cols; j++) this.contribute(j, 1);
  }

  mark(): number {
    return this.trailCol.length;
  }

  exhausted(): boolean {
    return this.work > this.workLimit;
  }

  /** Fixes column j at v and propagates; false on a conflict (the caller undoes to its mark). */
  fix(j: number, v: number): boolean {
    this.setBounds(j, v, v);
    return this.propagate();
  }

  /** Narrows column j to [lo, up] (within its bounds) and propagates; false on a conflict. */
  restrict(j: number, lo: number, up: number): boolean {
    this.setBounds(j, Math.max(lo, this.lo[j]), Math.min(up, this.up[j]));
    return this.propagate();
  }

  /** The columns whose bounds changed since `mark` (with repeats). */
  changedSince(mark: number): number[] {
    return this.trailCol.slice(mark);
  }

  /** Matrix entries visited by propagation so far. */
  workDone(): number {
    return this.work;
  }

  propagateAll(): boolean {
    for (let i = 0; i < this.model.rows; i++) this.enqueue(i);
    return this.propagate();
  }

  undo(mark: number): void {
    while (this.trailCol.length > mark) {
      const j = this.trailCol.pop()!;
      this.contribute(j, -1);
      this.lo[j] = this.trailLo.pop()!;
      this.up[j] = this.trailUp.pop()!;
      this.contribute(j, 1);
    }
    for (const i of this.queue) this.queued[i] = 0;
    this.queue = [];
  }

  private setBounds(j: number, lo: number, up: number): void {
    this.trailCol.push(j);
    this.trailLo.push(this.lo[j]);
    this.trailUp.push(this.up[j]);
    this.contribute(j, -1);
    this.lo[j] = lo;
    this.up[j] = up;
    this.contribute(j, 1);
    const { start, index } = this.rowsOf;
    for (let k = start[j]; k < start[j + 1]; k++) this.enqueue(index[k]);
  }

  private enqueue(i: number): void {
    if (this.queued[i]) return;
    this.queued[i] = 1;
    this.queue.push(i);
  }

  /** Adds (sign 1) or removes (sign −1) column j's share of its rows' activity bounds. */
  private contribute(j: number, sign: 1 | -1): void {
    const { start, index, value } = this.rowsOf;
    const lo = this.lo[j];
    const up = this.up[j];
    for (let k = start[j]; k < start[j + 1]; k++) {
      const i = index[k];
      const a = value[k];
      const least = a > 0 ? lo : up;
      const most = a > 0 ? up : lo;
      if (Number.isFinite(least)) this.minAct[i] += sign * a * least;
      else this.minInf[i] += sign;
      if (Number.isFinite(most)) this.maxAct[i] += sign * a * most;
      else this.maxInf[i] += sign;
    }
  }

  private propagate(): boolean {
    const { rowLower, rowUpper, integer } = this.model;
    const { start, index, value } = this.byRow;
    while (this.queue.length > 0) {
      const i = this.queue.pop()!;
      this.queued[i] = 0;
      const rl = rowLower[i];
      const ru = rowUpper[i];
      const tol = FEASIBILITY_TOL * Math.max(1, Math.abs(rl) < Infinity ? Math.abs(rl) : 0, Math.abs(ru) < Infinity ? Math.abs(ru) : 0);
      if (this.minInf[i] === 0 && this.minAct[i] > ru + tol) return false;
      if (this.maxInf[i] === 0 && this.maxAct[i] < rl - tol) return false;
      this.work += start[i + 1] - start[i];
      if (this.work > this.workLimit) return false;
      for (let k = start[i]; k < start[i + 1]; k++) {
        const j = index[k];
        const a = value[k];
        const lo = this.lo[j];
        const up = this.up[j];
        if (lo === up) continue;
        let newLo = -Infinity;
        let newUp = Infinity;
        // the room the row leaves column j: its bound against the others' least (greatest) activity
        if (ru < Infinity) {
          const rest = residual(this.minAct[i], this.minInf[i], a * (a > 0 ? lo : up), -Infinity);
          if (rest > -Infinity) {
            const limit = (ru - rest) / a;
            if (a > 0) newUp = limit;
            else newLo = limit;
          }
        }
        if (rl > -Infinity) {
          const rest = residual(this.maxAct[i], this.maxInf[i], a * (a > 0 ? up : lo), Infinity);
          if (rest < Infinity) {
            const limit = (rl - rest) / a;
            if (a > 0) newLo = Math.max(newLo, limit);
            else newUp = Math.min(newUp, limit);
          }
        }
        let tLo = lo;
        let tUp = up;
        if (integer[j]) {
          if (newLo > lo) tLo = Math.ceil(newLo - FEASIBILITY_TOL);
          if (newUp < up) tUp = Math.floor(newUp + FEASIBILITY_TOL);
        } else {
          if (newLo > lo + CONTINUOUS_STEP * Math.max(1, Math.abs(lo))) tLo = newLo;
          if (newUp < up - CONTINUOUS_STEP * Math.max(1, Math.abs(up))) tUp = newUp;
        }
        if (tLo === lo && tUp === up) continue;
        if (tLo > tUp + FEASIBILITY_TOL * Math.max(1, Math.abs(tUp))) return false;
        if (tLo > tUp) tLo = tUp;
        this.setBounds(j, tLo, tUp);
      }
    }
    return true;
  }
}

/**
 * A row's activity bound without one entry's share: `none` (−∞ for the least activity, +∞ for the
 * greatest) when another entry's share is infinite.
 */
export function residual(act: number, infinite: number, share: number, none: number): number {
  if (Number.isFinite(share)) return infinite === 0 ? act - share : none;
  return infinite === 1 ? act : none;
}
