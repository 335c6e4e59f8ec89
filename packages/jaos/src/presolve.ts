/**
 * Basic presolve with primal postsolve.
 *
 * Reductions, repeated until a pass changes nothing:
 *  - fixed columns (lb = ub) are substituted into the rows and the objective constant;
 *  - empty rows are dropped (or prove infeasibility); empty columns are fixed at their best bound
 *    (a column whose cost pushes it to an infinite bound is kept, for the simplex to certify);
 *  - singleton rows become column bounds;
 *  - rows whose activity bounds lie within the row bounds are dropped; rows whose activity bounds meet
 *    a row bound force all their columns to the corresponding bounds (forcing rows);
 *  - integer columns get the bounds implied by the rows, rounded inward (`roundingTolerance`: a bound
 *    within 1e-9 of the row's scale of an integer, in the row's units, counts as that integer); a row
 *    over integer columns with integer coefficients gets its sides rounded to multiples of the
 *    coefficients' gcd;
 *  - a continuous zero-cost column singleton is a slack: it is removed and its range moved to the
 *    row bounds;
 *  - a continuous column singleton in an equality row whose bounds are implied by the row (implied
 *    free) is substituted out together with the row;
 *  - dual fixing puts a column at a bound; on LPs only (`mip`), doubleton equations and implied-free
 *    columns in equations are substituted out (the implied-free test one row deeper:
 *    presolve-implied-free.ts), dominated columns put at a bound, parallel rows merged and inequality
 *    singletons substituted (presolve-substitution.ts), of two parallel columns the
 *    dominated one fixed (presolve-parallel-columns.ts), equations that are linear combinations of
 *    others removed (presolve-dependent-rows.ts); the matrix is edited in place (presolve-matrix.ts).
 *
 * Postsolve restores primal values, replaying the reductions in reverse, and maps an optimal basis
 * of the reduced problem to a basis of the original one (from which the duals are re-derived).
 * Decisions use a tolerance of 1e-9 relative; a reported infeasibility is an activity argument on one
 * row (or one column's domain) under these tolerances.
 */
import type { LpModel } from "./model.js";
import { postsolve, postsolveBasis, postsolveRay, type Reduction } from "./postsolve.js";
import { LpEngine } from "./lp.js";
import { PresolveMatrix } from "./presolve-matrix.js";
import { dependentEquations } from "./presolve-dependent-rows.js";
import { parallelColumns } from "./presolve-parallel-columns.js";
import { IMPLIED_FREE_BUDGET, ImpliedFreeVerdicts } from "./presolve-implied-free.js";
import { dominatedColumns, doubletonEquation, dualFixing, freeColumnSubstitution, parallelRows } from "./presolve-substitution.js";

const TOL = 1e-9;
const INT_TOL = 1e-6;

/** Decision tolerance for a bound value: relative to it, and zero for an infinite bound. */
function tolOf(v: number): number {
  return Number.isFinite(v) ? TOL * Math.max(1, Math.abs(v)) : 0;
}

/**
 * How far a bound b/a that a row implies for an integer column may lie past an integer k and still be
 * rounded to k: the row misses its side at x = k by |a|·distance, which must stay within the row's own
 * decision tolerance, 1e-9·scale (scale: max(1, |side|, |the rest of the row's activity|, the largest
 * term the side was computed from), the size of the roundoff the side can carry); never more than 1e-6. An absolute 1e-6 alone turned y − 1e7·x ≤ 0 with y ≥ 5 into x ≥ 5e-7, rounded it to x ≥ 0
 * and dropped the row, whose postsolved point then broke it by 5.
 */
export function roundingTolerance(coefficient: number, scale: number): number {
  return Math.min(INT_TOL, (TOL * Math.max(1, Math.abs(scale))) / Math.abs(coefficient));
}

export interface PresolveStats {
  rowsRemoved: number;
  colsRemoved: number;
  boundsTightened: number;
}

export interface Presolved {
  status: "reduced" | "infeasible";
  /** Why presolve found the problem infeasible. */
  reason?: string;
  reduced: LpModel;
  /** reduced column → original column, reduced row → original row */
  colMap: Int32Array;
  rowMap: Int32Array;
  stats: PresolveStats;
  /** The reductions made, in order (postsolve replays them in reverse). */
  reductions: readonly Reduction[];
  /** Original column values from reduced ones. */
  postsolve(x: ArrayLike<number>): Float64Array;
  /**
   * The same map without its constant part, for directions: a ray of the reduced problem becomes a
   * direction of the original (fixed columns 0, substituted and slack columns following their row).
   */
  postsolveRay(d: ArrayLike<number>): Float64Array;
  /**
   * A basis of the original model (column statuses, then row logicals) from a basis of the reduced one
   * and the postsolved x (postsolve.ts, `postsolveBasis`); `reducedDuals` are the reduced LP's row duals
   * at that basis (computed here, at the cost of one more factorisation, when not given).
   */
  postsolveBasis(reducedBasis: Int8Array, x: Float64Array, reducedDuals?: Float64Array): Int8Array;
}

export class Presolver {
  readonly m: number;
  readonly n: number;
  readonly mat: PresolveMatrix;
  readonly colLower: Float64Array;
  readonly colUpper: Float64Array;
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  readonly cost: Float64Array;
  readonly integer: Uint8Array;
  /**
   * The reductions added for the LPs of issue 17 (doubleton equations, free column substitution,
   * parallel rows, dominated columns, singletons in inequality rows) run on LPs only: on MILPs they
   * reshape the rows the cut separators read (fixnet6: one substitution, 2.6 s → 14.4 s, 22k → 196k
   * iterations), and their gain was measured on LPs alone.
   */
  readonly mip: boolean;
  offset: number;
  /**
   * Per row, the largest magnitude its sides have been computed from (the original sides and every
   * term moved into them since): the scale of the roundoff they carry, for `roundingTolerance`.
   */
  readonly rowMagnitude: Float64Array;
  readonly rowActive: Uint8Array;
  readonly colActive: Uint8Array;
  readonly rowCount: Int32Array;
  readonly colCount: Int32Array;
  readonly stack: Reduction[] = [];
  infeasible: string | null = null;
  tightened = 0;
  /**
   * Work left, in entries visited, for the deeper implied-free test (presolve-implied-free.ts) over the
   * whole presolve: a count, so the outcome does not depend on the machine, and bounded, since the test
   * runs again in every pass (d6cube: 23).
   */
  readonly budget = { impliedFree: IMPLIED_FREE_BUDGET };
  /** Implied-free verdicts kept across free column substitution's sweeps; every edit below reports to it. */
  readonly verdicts: ImpliedFreeVerdicts;

  constructor(model: LpModel) {
    this.m = model.rows;
    this.n = model.cols;
    this.mat = new PresolveMatrix(model.rows, model.a);
    this.colLower = model.colLower.slice();
    this.colUpper = model.colUpper.slice();
    this.rowLower = model.rowLower.slice();
    this.rowUpper = model.rowUpper.slice();
    this.cost = model.cost.slice();
    this.integer = model.integer;
    this.mip = model.integer.includes(1);
    this.offset = model.offset;
    this.rowMagnitude = new Float64Array(this.m);
    for (let i = 0; i < this.m; i++) this.noteMagnitude(i, this.rowLower[i], this.rowUpper[i]);
    this.rowActive = new Uint8Array(this.m).fill(1);
    this.colActive = new Uint8Array(this.n).fill(1);
    this.rowCount = new Int32Array(this.m);
    this.colCount = new Int32Array(this.n);
    for (let i = 0; i < this.m; i++) this.rowCount[i] = this.mat.rowIdx[i].length;
    for (let j = 0; j < this.n; j++) this.colCount[j] = this.mat.colIdx[j].length;
    this.verdicts = new ImpliedFreeVerdicts(this.mat, this.rowActive);
  }

  run(): void {
    const progress = () => this.stack.length + this.tightened + this.removedRows();
    // the reductions that look at a whole row or column (dominated columns, free column substitution)
    // run only once the one-row/one-column ones have nothing left; the search for dependent equations,
    // the costliest, once only, when nothing else is left
    let dependentSearched = false;
    for (let pass = 0; pass < 40 && !this.infeasible; pass++) {
      const before = progress();
      this.localPass();
      if (this.infeasible || progress() !== before) continue;
      if (!this.mip) {
        dominatedColumns(this);
        parallelRows(this);
        parallelColumns(this);
        if (!this.infeasible) freeColumnSubstitution(this);
        if (!this.infeasible && progress() === before && !dependentSearched) {
          dependentSearched = true;
          dependentEquations(this);
        }
      }
      if (progress() === before) break;
    }
  }

  private localPass(): void {
    for (let j = 0; j < this.n && !this.infeasible; j++) {
      if (!this.colActive[j]) continue;
      if (this.colLower[j] > this.colUpper[j] + tolOf(this.colLower[j])) {
        this.infeasible = `column ${j} has an empty domain [${this.colLower[j]}, ${this.colUpper[j]}]`;
      } else if (this.colUpper[j] - this.colLower[j] <= tolOf(this.colLower[j])) this.fixColumn(j, this.colLower[j]);
      else if (this.colCount[j] === 0) this.emptyColumn(j);
    }
    for (let i = 0; i < this.m && !this.infeasible; i++) {
      if (!this.rowActive[i]) continue;
      if (this.rowCount[i] === 0) this.emptyRow(i);
      else if (this.rowCount[i] === 1) this.singletonRow(i);
      else {
        this.activityChecks(i);
        if (this.rowActive[i] && !this.infeasible && !this.mip) doubletonEquation(this, i);
      }
    }
    for (let j = 0; j < this.n && !this.infeasible; j++) {
      if (!this.colActive[j] || this.colCount[j] === 0 || dualFixing(this, j)) continue;
      if (this.colCount[j] === 1 && !this.integer[j]) this.singletonColumn(j);
    }
  }

  /** Row i's sides now carry terms of these magnitudes (infinite ones carry nothing). */
  private noteMagnitude(i: number, ...terms: number[]): void {
    for (const t of terms) if (Number.isFinite(t) && Math.abs(t) > this.rowMagnitude[i]) this.rowMagnitude[i] = Math.abs(t);
  }

  private removedRows(): number {
    let r = 0;
    for (let i = 0; i < this.m; i++) if (!this.rowActive[i]) r++;
    return r;
  }

  fixColumn(j: number, value: number): void {
    const ci = this.mat.colIdx[j];
    const cv = this.mat.colVal[j];
    for (let k = 0; k < ci.length; k++) {
      const i = ci[k];
      if (!this.rowActive[i]) continue;
      const t = cv[k] * value;
      this.rowLower[i] -= t;
      this.rowUpper[i] -= t;
      this.noteMagnitude(i, t);
      this.rowCount[i]--;
    }
    this.offset += this.cost[j] * value;
    this.colActive[j] = 0;
    this.verdicts.column(j);
    this.stack.push({ kind: "fix", col: j, value });
  }

  private emptyColumn(j: number): void {
    const c = this.cost[j];
    const lo = this.colLower[j];
    const up = this.colUpper[j];
    let v: number;
    if (c > 0) v = lo;
    else if (c < 0) v = up;
    else v = lo > 0 ? lo : up < 0 ? up : Math.max(lo, Math.min(up, 0));
    if (!Number.isFinite(v)) return; // unbounded direction: left for the simplex to certify
    this.fixColumn(j, v);
  }

  removeRow(i: number): void {
    const ri = this.mat.rowIdx[i];
    for (let k = 0; k < ri.length; k++) {
      const j = ri[k];
      if (this.colActive[j]) this.colCount[j]--;
    }
    this.rowActive[i] = 0;
    this.verdicts.row(i);
  }

  private emptyRow(i: number): void {
    const lo = this.rowLower[i];
    const up = this.rowUpper[i];
    if (lo > tolOf(lo) || up < -tolOf(up)) {
      this.infeasible = `row ${i} has no columns left but needs activity in [${lo}, ${up}]`;
      return;
    }
    this.removeRow(i);
  }

  private singletonRow(i: number): void {
    let j = -1;
    let a = 0;
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length; k++) {
      if (this.colActive[ri[k]]) {
        j = ri[k];
        a = rv[k];
      }
    }
    const loSide = a > 0 ? this.rowLower[i] : this.rowUpper[i];
    const upSide = a > 0 ? this.rowUpper[i] : this.rowLower[i];
    const scale = this.rowMagnitude[i];
    this.tightenColumn(j, loSide / a, upSide / a, `row ${i}`, {
      lower: roundingTolerance(a, Math.max(scale, Math.abs(loSide))),
      upper: roundingTolerance(a, Math.max(scale, Math.abs(upSide))),
    });
    this.stack.push({ kind: "rowBound", col: j, row: i });
    this.removeRow(i);
  }

  /**
   * Intersects column j's bounds with [lo, up], rounded inward for integers: a bound within `rounding`
   * of an integer counts as that integer (`roundingTolerance`; 1e-6 when not given).
   */
  tightenColumn(j: number, lo: number, up: number, why: string, rounding: { lower: number; upper: number } = { lower: INT_TOL, upper: INT_TOL }): void {
    if (this.integer[j]) {
      lo = Math.ceil(lo - rounding.lower);
      up = Math.floor(up + rounding.upper);
    }
    this.verdicts.column(j);
    if (lo > this.colLower[j]) {
      this.colLower[j] = lo;
      this.tightened++;
    }
    if (up < this.colUpper[j]) {
      this.colUpper[j] = up;
      this.tightened++;
    }
    const gap = this.colLower[j] - this.colUpper[j];
    if (gap > tolOf(this.colUpper[j])) {
      this.infeasible = `${why} leaves column ${j} the empty domain [${this.colLower[j]}, ${this.colUpper[j]}]`;
    } else if (gap > 0) this.colLower[j] = this.colUpper[j];
  }

  /** Activity bounds of row i over active columns: finite parts and counts of infinite contributions. */
  activity(i: number): { min: number; max: number; minInf: number; maxInf: number } {
    let min = 0;
    let max = 0;
    let minInf = 0;
    let maxInf = 0;
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length; k++) {
      const j = ri[k];
      if (!this.colActive[j]) continue;
      const a = rv[k];
      const lo = a > 0 ? this.colLower[j] : this.colUpper[j];
      const up = a > 0 ? this.colUpper[j] : this.colLower[j];
      if (Number.isFinite(lo)) min += a * lo;
      else minInf++;
      if (Number.isFinite(up)) max += a * up;
      else maxInf++;
    }
    return { min, max, minInf, maxInf };
  }

  private activityChecks(i: number): void {
    const act = this.activity(i);
    const lo = this.rowLower[i];
    const up = this.rowUpper[i];
    const minAct = act.minInf > 0 ? -Infinity : act.min;
    const maxAct = act.maxInf > 0 ? Infinity : act.max;
    const tolLo = tolOf(lo);
    const tolUp = tolOf(up);
    if (minAct > up + tolUp || maxAct < lo - tolLo) {
      this.infeasible = `row ${i}: activity range [${minAct}, ${maxAct}] misses [${lo}, ${up}]`;
      return;
    }
    if (minAct >= lo - tolLo && maxAct <= up + tolUp) {
      this.removeRow(i);
      return;
    }
    if (this.integerRowRounding(i)) return;
    if (Number.isFinite(minAct) && minAct >= up - tolUp) return this.forceRow(i, true);
    if (Number.isFinite(maxAct) && maxAct <= lo + tolLo) return this.forceRow(i, false);
    this.impliedIntegerBounds(i, act);
  }

  /**
   * A row over integer columns with integer coefficients takes only multiples of their gcd g: its
   * sides round inward to multiples of g (an equality whose side is not one is infeasible).
   * Returns true when it proved infeasibility.
   */
  private integerRowRounding(i: number): boolean {
    let g = 0;
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length; k++) {
      const j = ri[k];
      if (!this.colActive[j]) continue;
      const a = rv[k];
      if (!this.integer[j] || Math.abs(a - Math.round(a)) > 1e-12 || Math.abs(a) > 1e9) return false;
      g = gcd(g, Math.abs(Math.round(a)));
    }
    if (g === 0) return false;
    const lo = this.rowLower[i];
    const up = this.rowUpper[i];
    const newLo = Number.isFinite(lo) ? g * Math.ceil(lo / g - 1e-9) : lo;
    const newUp = Number.isFinite(up) ? g * Math.floor(up / g + 1e-9) : up;
    if (newLo > newUp) {
      this.infeasible = `row ${i}: integer activity (multiples of ${g}) cannot lie in [${lo}, ${up}]`;
      return true;
    }
    if (newLo > lo + tolOf(lo) || newUp < up - tolOf(up)) this.tightened++;
    this.rowLower[i] = newLo;
    this.rowUpper[i] = newUp;
    this.verdicts.row(i);
    return false;
  }

  /** All columns of row i to the bounds that minimise (atMin) or maximise its activity. */
  private forceRow(i: number, atMin: boolean): void {
    const cols: number[] = [];
    const coefs: number[] = [];
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length; k++) {
      const j = ri[k];
      if (!this.colActive[j]) continue;
      const a = rv[k];
      const v = a > 0 === atMin ? this.colLower[j] : this.colUpper[j];
      cols.push(j);
      coefs.push(a);
      this.fixColumn(j, v);
    }
    this.stack.push({ kind: "forcing", row: i, atMin, cols, coefs });
    this.removeRow(i);
  }

  /** Bounds on integer columns implied by row i, rounded inward. */
  private impliedIntegerBounds(i: number, act: { min: number; max: number; minInf: number; maxInf: number }): void {
    const lo = this.rowLower[i];
    const up = this.rowUpper[i];
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length && !this.infeasible; k++) {
      const j = ri[k];
      if (!this.colActive[j] || !this.integer[j]) continue;
      const a = rv[k];
      const restMin = this.restActivityMin(act, a, j);
      const restMax = this.restActivityMax(act, a, j);
      // a·x_j ∈ [lo − restMax, up − restMin]
      const hiA = up - restMin;
      const loA = lo - restMax;
      let newLo = -Infinity;
      let newUp = Infinity;
      if (a > 0) {
        newLo = loA / a;
        newUp = hiA / a;
      } else {
        newLo = hiA / a;
        newUp = loA / a;
      }
      if (Math.abs(newLo) > 1e9) newLo = -Infinity;
      if (Math.abs(newUp) > 1e9) newUp = Infinity;
      // the tolerances in the row's units: its side, what the side was computed from and the rest of
      // its activity set the scale
      const loScale = Math.max(this.rowMagnitude[i], Math.abs(a > 0 ? lo : up), Math.abs(a > 0 ? restMax : restMin));
      const upScale = Math.max(this.rowMagnitude[i], Math.abs(a > 0 ? up : lo), Math.abs(a > 0 ? restMin : restMax));
      const rounding = { lower: roundingTolerance(a, loScale), upper: roundingTolerance(a, upScale) };
      if (newLo > this.colLower[j] + 0.5 || newUp < this.colUpper[j] - 0.5) this.tightenColumn(j, newLo, newUp, `row ${i}`, rounding);
    }
  }

  /**
   * Activity bounds of the row without column j's own contribution, lower and upper: two calls rather
   * than one returning a pair, since a pair is an allocation per call in presolve's hottest loops.
   */
  restActivityMin(act: { min: number; minInf: number }, a: number, j: number): number {
    const lo = a > 0 ? this.colLower[j] : this.colUpper[j];
    if (Number.isFinite(lo)) return act.minInf > 0 ? -Infinity : act.min - a * lo;
    return act.minInf > 1 ? -Infinity : act.min;
  }

  restActivityMax(act: { max: number; maxInf: number }, a: number, j: number): number {
    const up = a > 0 ? this.colUpper[j] : this.colLower[j];
    if (Number.isFinite(up)) return act.maxInf > 0 ? Infinity : act.max - a * up;
    return act.maxInf > 1 ? Infinity : act.max;
  }

  private singletonColumn(j: number): void {
    let i = -1;
    let a = 0;
    const ci = this.mat.colIdx[j];
    const cv = this.mat.colVal[j];
    for (let k = 0; k < ci.length; k++) {
      if (this.rowActive[ci[k]]) {
        i = ci[k];
        a = cv[k];
      }
    }
    if (i < 0 || this.rowCount[i] < 2) return;
    const slack = this.cost[j] === 0;
    // With its bounds implied by the row, x_j is free in effect, so its reduced cost c_j − a·y_i is 0
    // at an optimum: y_i = c_j/a ≠ 0 holds an inequality row at the side that sign names, which makes
    // the row an equality there (a side that is infinite means no such optimum; left alone).
    const b = this.rowLower[i] === this.rowUpper[i] || this.cost[j] / a > 0 ? this.rowLower[i] : this.rowUpper[i];
    if (!slack && !Number.isFinite(b)) return;
    if (this.mip && !slack && this.rowLower[i] !== this.rowUpper[i]) return;
    // the row's other active columns, recorded for postsolve
    const cols: number[] = [];
    const coefs: number[] = [];
    const ri = this.mat.rowIdx[i];
    const rv = this.mat.rowVal[i];
    for (let k = 0; k < ri.length; k++) {
      const c = ri[k];
      if (c !== j && this.colActive[c]) {
        cols.push(c);
        coefs.push(rv[k]);
      }
    }
    const lo = this.colLower[j];
    const up = this.colUpper[j];
    if (slack) {
      // slack: rest ∈ [rowLower − max(a·x_j), rowUpper − min(a·x_j)]
      const aMin = a > 0 ? a * lo : a * up;
      const aMax = a > 0 ? a * up : a * lo;
      this.stack.push({ kind: "slack", col: j, row: i, coef: a, lower: lo, upper: up, rowLower: this.rowLower[i], rowUpper: this.rowUpper[i], cols, coefs });
      this.rowLower[i] = this.rowLower[i] - aMax;
      this.rowUpper[i] = this.rowUpper[i] - aMin;
      this.noteMagnitude(i, aMax, aMin);
      if (Number.isNaN(this.rowLower[i])) this.rowLower[i] = -Infinity;
      if (Number.isNaN(this.rowUpper[i])) this.rowUpper[i] = Infinity;
      this.colActive[j] = 0;
      this.verdicts.column(j);
      this.rowCount[i]--;
      if (this.rowLower[i] === -Infinity && this.rowUpper[i] === Infinity) this.removeRow(i);
      return;
    }
    // implied free: x_j = (b − rest)/a stays within [lo, up] for every rest in its activity range
    const act = this.activity(i);
    const restMin = this.restActivityMin(act, a, j);
    const restMax = this.restActivityMax(act, a, j);
    const v1 = (b - restMin) / a;
    const v2 = (b - restMax) / a;
    const impliedLo = Math.min(v1, v2);
    const impliedUp = Math.max(v1, v2);
    if (!(impliedLo >= lo - tolOf(lo) && impliedUp <= up + tolOf(up))) return;
    const c = this.cost[j];
    for (let t = 0; t < cols.length; t++) this.cost[cols[t]] -= (c * coefs[t]) / a;
    this.offset += (c * b) / a;
    this.stack.push({ kind: "substitute", col: j, row: i, coef: a, rhs: b, cols, coefs });
    this.colActive[j] = 0;
    this.verdicts.column(j);
    this.rowCount[i]--;
    this.removeRow(i);
  }

  result(model: LpModel): Presolved {
    const colMap: number[] = [];
    const rowMap: number[] = [];
    const newCol = new Int32Array(this.n).fill(-1);
    const newRow = new Int32Array(this.m).fill(-1);
    for (let j = 0; j < this.n; j++) if (this.colActive[j]) newCol[j] = colMap.push(j) - 1;
    for (let i = 0; i < this.m; i++) if (this.rowActive[i]) newRow[i] = rowMap.push(i) - 1;
    const matrix = this.mat.compressed(colMap, newRow, rowMap.length);
    const pick = (src: Float64Array, map: number[]) => Float64Array.from(map, (k) => src[k]);
    // No closure made here may mention `this`: the postsolve closures below share this call's context,
    // and a `this` in it would keep the presolver (its row and column lists, tens of MB on the
    // Kennington LPs) alive through the whole LP solve, marked again by every major GC.
    const integer = this.integer;
    const reduced: LpModel = {
      rows: rowMap.length,
      cols: colMap.length,
      a: matrix,
      cost: pick(this.cost, colMap),
      colLower: pick(this.colLower, colMap),
      colUpper: pick(this.colUpper, colMap),
      rowLower: pick(this.rowLower, rowMap),
      rowUpper: pick(this.rowUpper, rowMap),
      offset: this.offset,
      integer: Uint8Array.from(colMap, (j) => integer[j]),
    };
    const stack = this.stack.slice();
    const n = model.cols;
    const colMapArr = Int32Array.from(colMap);
    const rowMapArr = Int32Array.from(rowMap);
    return {
      status: this.infeasible ? "infeasible" : "reduced",
      reason: this.infeasible ?? undefined,
      reduced,
      colMap: colMapArr,
      rowMap: rowMapArr,
      stats: { rowsRemoved: model.rows - rowMap.length, colsRemoved: model.cols - colMap.length, boundsTightened: this.tightened },
      reductions: stack,
      postsolve: (xr) => postsolve(n, colMapArr, stack, xr),
      postsolveRay: (dr) => postsolveRay(n, colMapArr, stack, dr),
      postsolveBasis: (basis, x, duals) => postsolveBasis(model, colMapArr, rowMapArr, stack, basis, x, duals ?? reducedDuals(reduced, basis)),
    };
  }
}

/** The row duals of the reduced LP at its final basis (the basis postsolve rebuilds the removed rows' from them). */
function reducedDuals(reduced: LpModel, basis: Int8Array): Float64Array {
  if (reduced.rows === 0) return new Float64Array(0);
  const engine = new LpEngine(reduced);
  engine.setBasis(basis);
  return engine.rowDuals();
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

export function presolve(model: LpModel): Presolved {
  const p = new Presolver(model);
  p.run();
  return p.result(model);
}

/** The identity "presolve": no reductions (used when presolve is switched off). */
export function noPresolve(model: LpModel): Presolved {
  const colMap = Int32Array.from({ length: model.cols }, (_, j) => j);
  return {
    status: "reduced",
    reduced: model,
    colMap,
    rowMap: Int32Array.from({ length: model.rows }, (_, i) => i),
    stats: { rowsRemoved: 0, colsRemoved: 0, boundsTightened: 0 },
    reductions: [],
    postsolve: (x) => Float64Array.from(x),
    postsolveRay: (d) => Float64Array.from(d),
    postsolveBasis: (basis) => basis.slice(),
  };
}
