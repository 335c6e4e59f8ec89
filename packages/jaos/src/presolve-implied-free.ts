/**
 * The implied-free test of free column substitution (presolve-substitution.ts), one level deeper
 * than activity over the columns' own bounds. A column k without a finite bound of its own (or with a
 * weak one) often has one that another row s implies over its columns' own bounds; a row r through
 * column j may then bound x_j once k's implied bound stands in for k's own. Dropping x_j's bounds on
 * that ground is valid when the chain does not lean on x_j itself: s must not hold column j (nor be r,
 * whose activity is what is being bounded). Each implied bound used is recomputed from its row at the
 * time of the test (the substitutions before it edit rows), so a stale one is never trusted.
 *
 * The work is bounded per presolve (`IMPLIED_FREE_BUDGET` entries visited, a count, the search for the
 * implying rows included): past it the test is the one-level one.
 *
 * Row activities are computed once per row and kept (`RowActivities`) until the caller edits the row:
 * the one-level test recomputing them for every row of every candidate column was 65 % of pcb3000's
 * presolve (its long rows visited once per candidate column).
 */
import type { Presolver } from "./presolve.js";
import type { PresolveMatrix } from "./presolve-matrix.js";

/** Entries the deeper test (with the implying rows' search) may visit over one presolve (`Presolver.budget`), at most. */
export const IMPLIED_FREE_BUDGET = 4_000_000;

type Activity = ReturnType<Presolver["activity"]>;

/**
 * `Presolver.activity` per row, kept until `forget` (the caller forgets every row it edits: entries,
 * sides do not enter, column bounds or columns removed); the same numbers as computing them afresh.
 */
export class RowActivities {
  private readonly kept: (Activity | undefined)[];
  /** Rows forgotten at least once (edited since this object was made). */
  readonly edited: Uint8Array;

  constructor(private readonly p: Presolver) {
    this.kept = new Array<Activity | undefined>(p.m);
    this.edited = new Uint8Array(p.m);
  }

  of(r: number): Activity {
    let act = this.kept[r];
    if (act === undefined) {
      act = this.p.activity(r);
      this.kept[r] = act;
    }
    return act;
  }

  forget(r: number): void {
    this.kept[r] = undefined;
    this.edited[r] = 1;
  }
}

/**
 * Columns the one-level test found not implied free, kept while nothing it read has changed: the
 * verdict reads the column's bounds and, per active row through it, the row's sides, entries and
 * activity (its columns' bounds and activity). The presolver reports every change of these, and a
 * change forgets the verdicts it may touch: `row` (sides, entries or activity changed, or the row
 * removed) those of the row's columns, `column` (bounds changed, or the column removed, which changes
 * its rows' activities and maybe their sides) those of every column sharing an active row with it.
 * A column that lost a row (cancellation) keeps its verdict: a lost row cannot make it implied free.
 * Only "not free" is kept: the deeper test finds more, so its "not free" is the one-level one's too.
 * Nothing is forgotten before the first verdict. Free column substitution repeats its sweep in every
 * presolve pass with few changes between (pds-20: 8 sweeps, 1.03 million tests, 22,150 implied free,
 * 772,000 answered by a standing verdict).
 */
export class ImpliedFreeVerdicts {
  private readonly notFree: Uint8Array;
  private any = false;

  constructor(
    private readonly mat: PresolveMatrix,
    private readonly rowActive: Uint8Array,
  ) {
    this.notFree = new Uint8Array(mat.colIdx.length);
  }

  /** Row i's sides, entries or activity changed, or it was removed. */
  row(i: number): void {
    if (!this.any) return;
    const ri = this.mat.rowIdx[i];
    for (let t = 0; t < ri.length; t++) this.notFree[ri[t]] = 0;
  }

  /** Column j's bounds changed or it was removed: so did the activity (and maybe the sides) of its rows. */
  column(j: number): void {
    if (!this.any) return;
    this.notFree[j] = 0;
    const ci = this.mat.colIdx[j];
    for (let t = 0; t < ci.length; t++) if (this.rowActive[ci[t]]) this.row(ci[t]);
  }

  found(j: number): void {
    this.notFree[j] = 1;
    this.any = true;
  }

  /** Whether the one-level test would find column j not implied free now, by a verdict still standing. */
  knownNotFree(j: number): boolean {
    return this.notFree[j] === 1;
  }
}

/** Per column the row that implies its tightest lower (upper) bound over the other columns' own bounds; −1 for none. */
export interface ImpliedBoundRows {
  lowerRow: Int32Array;
  upperRow: Int32Array;
  /** The coefficient of column k in lowerRow[k] (upperRow[k]) when it was found; valid while that row is unedited. */
  lowerCoef: Float64Array;
  upperCoef: Float64Array;
  /** rowMark[s] === markStamp: row s holds the column under test (the implying rows must not). */
  rowMark: Int32Array;
  markStamp: number;
  /** entries visited by the deeper test so far, and the most it may visit */
  spent: number;
  budget: number;
  activities: RowActivities;
  /** Per column the bound lowerRow[k] (upperRow[k]) last implied for it and the activity object of that row it came from. */
  lowerNow: Float64Array;
  upperNow: Float64Array;
  lowerFrom: (Activity | undefined)[];
  upperFrom: (Activity | undefined)[];
}

export function impliedBoundRows(p: Presolver, budget: number, activities: RowActivities): ImpliedBoundRows {
  const lower = new Float64Array(p.n).fill(-Infinity);
  const upper = new Float64Array(p.n).fill(Infinity);
  const lowerRow = new Int32Array(p.n).fill(-1);
  const upperRow = new Int32Array(p.n).fill(-1);
  const lowerCoef = new Float64Array(p.n);
  const upperCoef = new Float64Array(p.n);
  let spent = 0;
  for (let r = 0; r < p.m && spent < budget; r++) {
    if (!p.rowActive[r] || p.rowCount[r] < 2) continue;
    const act = activities.of(r);
    const ri = p.mat.rowIdx[r];
    spent += 2 * ri.length;
    // a side with two infinite terms (or none itself) bounds no column: rows with neither are passed over
    if ((act.minInf > 1 || p.rowUpper[r] === Infinity) && (act.maxInf > 1 || p.rowLower[r] === -Infinity)) continue;
    const rv = p.mat.rowVal[r];
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (!p.colActive[k]) continue;
      boundsFrom(p, r, k, rv[t], act);
      const lo = implied[0];
      const up = implied[1];
      if (lo > lower[k]) {
        lower[k] = lo;
        lowerRow[k] = r;
        lowerCoef[k] = rv[t];
      }
      if (up < upper[k]) {
        upper[k] = up;
        upperRow[k] = r;
        upperCoef[k] = rv[t];
      }
    }
  }
  const lowerNow = new Float64Array(p.n);
  const upperNow = new Float64Array(p.n);
  const lowerFrom = new Array<Activity | undefined>(p.n).fill(undefined);
  const upperFrom = new Array<Activity | undefined>(p.n).fill(undefined);
  return {
    lowerRow,
    upperRow,
    lowerCoef,
    upperCoef,
    rowMark: new Int32Array(p.m),
    markStamp: 0,
    spent,
    budget,
    activities,
    lowerNow,
    upperNow,
    lowerFrom,
    upperFrom,
  };
}

/**
 * Where boundsFrom and deeperBounds leave the bounds they find (lower, upper): read at once
 * by the caller, before the next call. An out-parameter, not a returned pair, which was an allocation
 * per call (pds-20: most of presolve's 400 MB).
 */
const implied = new Float64Array(2);

/** implied := the bounds row r implies for column k (coefficient a) over the other columns' own bounds. */
function boundsFrom(p: Presolver, r: number, k: number, a: number, act: Activity): void {
  const restMin = p.restActivityMin(act, a, k);
  const restMax = p.restActivityMax(act, a, k);
  // a·x_k ∈ [rowLower − restMax, rowUpper − restMin]
  const low = p.rowLower[r] - restMax;
  const high = p.rowUpper[r] - restMin;
  const lo = a > 0 ? low / a : high / a;
  const up = a > 0 ? high / a : low / a;
  implied[0] = Number.isNaN(lo) ? -Infinity : lo;
  implied[1] = Number.isNaN(up) ? Infinity : up;
}

const near = (v: number) => 1e-9 * Math.max(1, Math.abs(v));

/**
 * Whether each of column j's finite bounds is implied by some row's activity over the other columns,
 * each of them within its own bounds or, where tighter, within those another row implies for it
 * (a row without column j). `rows` null: the one-level test only.
 */
export function impliedFree(p: Presolver, j: number, rows: ImpliedBoundRows | null, activities: RowActivities): boolean {
  const lo = p.colLower[j];
  const up = p.colUpper[j];
  let loImplied = lo === -Infinity;
  let upImplied = up === Infinity;
  const ci = p.mat.colIdx[j];
  const cv = p.mat.colVal[j];
  // the cheap test first: over the columns' own bounds
  for (let t = 0; t < ci.length && !(loImplied && upImplied); t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    boundsFrom(p, r, j, cv[t], activities.of(r));
    const xLo = implied[0];
    const xUp = implied[1];
    if (!loImplied && xLo >= lo - near(lo)) loImplied = true;
    if (!upImplied && xUp <= up + near(up)) upImplied = true;
  }
  if (!(loImplied && upImplied) && rows && rows.spent < rows.budget) {
    const stamp = ++rows.markStamp;
    for (let t = 0; t < ci.length; t++) rows.rowMark[ci[t]] = stamp;
  }
  for (let t = 0; t < ci.length && !(loImplied && upImplied) && rows && rows.spent < rows.budget; t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    deeperBounds(p, r, j, cv[t], rows, !loImplied, !upImplied);
    const xLo = implied[0];
    const xUp = implied[1];
    if (!loImplied && xLo >= lo - near(lo)) loImplied = true;
    if (!upImplied && xUp <= up + near(up)) upImplied = true;
  }
  return loImplied && upImplied;
}

/**
 * implied := column j's bounds from row r, the other columns within their own or their implied bounds
 * (see the file's comment); only the sides asked for (`wantLo`, `wantUp`), the others left infinite.
 * x_j's lower bound takes one of the rest's two activity sums and its upper bound the other (which,
 * by a's sign), and each sum one bound of every other column, so a test with one side left computes
 * one sum and one implied bound per column, and none when the row side it needs is infinite (the
 * result could not bound x_j). The sums are the full computation's, term by term in the same order,
 * and the entries counted (`spent`, which decides where the budget ends) are the same.
 */
function deeperBounds(p: Presolver, r: number, j: number, a: number, rows: ImpliedBoundRows, wantLo: boolean, wantUp: boolean): void {
  // x_j ≥ (a > 0 ? rowLower − restMax : rowUpper − restMin)/a, x_j ≤ (a > 0 ? rowUpper − restMin : rowLower − restMax)/a
  const wantMin = (a > 0 ? wantUp : wantLo) || a === 0;
  const wantMax = (a > 0 ? wantLo : wantUp) || a === 0;
  const useMin = wantMin && p.rowUpper[r] !== Infinity;
  const useMax = wantMax && p.rowLower[r] !== -Infinity;
  let min = 0;
  let max = 0;
  let minInf = 0;
  let maxInf = 0;
  const ri = p.mat.rowIdx[r];
  const rv = p.mat.rowVal[r];
  rows.spent += ri.length;
  if (useMin && useMax) {
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (k === j || !p.colActive[k]) continue;
      let kLo = p.colLower[k];
      let kUp = p.colUpper[k];
      const sLo = rows.lowerRow[k];
      const sUp = rows.upperRow[k];
      if (sLo >= 0 && sLo !== r) {
        kLo = Math.max(kLo, impliedBy(p, sLo, k, rows, LOWER));
      }
      if (sUp >= 0 && sUp !== r) {
        kUp = Math.min(kUp, impliedBy(p, sUp, k, rows, UPPER));
      }
      const c = rv[t];
      const low = c > 0 ? kLo : kUp;
      const high = c > 0 ? kUp : kLo;
      if (Number.isFinite(low)) min += c * low;
      else minInf++;
      if (Number.isFinite(high)) max += c * high;
      else maxInf++;
    }
  } else if (useMin || useMax) {
    // one sum: per column the one bound it takes (its lower one where c > 0 for the minimum); once
    // the sum is infinite, only the count goes on
    let sum = 0;
    let infinite = false;
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (k === j || !p.colActive[k]) continue;
      const sLo = rows.lowerRow[k];
      const sUp = rows.upperRow[k];
      const takesLower = rv[t] > 0 === useMin;
      if (infinite) {
        if (sLo >= 0 && sLo !== r) chargeImpliedBy(p, sLo, rows);
        if (sUp >= 0 && sUp !== r) chargeImpliedBy(p, sUp, rows);
        continue;
      }
      let bound: number;
      if (takesLower) {
        bound = p.colLower[k];
        if (sLo >= 0 && sLo !== r) {
          bound = Math.max(bound, impliedBy(p, sLo, k, rows, LOWER));
        }
        if (sUp >= 0 && sUp !== r) chargeImpliedBy(p, sUp, rows);
      } else {
        bound = p.colUpper[k];
        if (sLo >= 0 && sLo !== r) chargeImpliedBy(p, sLo, rows);
        if (sUp >= 0 && sUp !== r) {
          bound = Math.min(bound, impliedBy(p, sUp, k, rows, UPPER));
        }
      }
      if (Number.isFinite(bound)) sum += rv[t] * bound;
      else infinite = true;
    }
    if (useMin) {
      min = sum;
      minInf = +infinite;
      maxInf = 1;
    } else {
      max = sum;
      maxInf = +infinite;
      minInf = 1;
    }
  } else {
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (k === j || !p.colActive[k]) continue;
      const sLo = rows.lowerRow[k];
      const sUp = rows.upperRow[k];
      if (sLo >= 0 && sLo !== r) chargeImpliedBy(p, sLo, rows);
      if (sUp >= 0 && sUp !== r) chargeImpliedBy(p, sUp, rows);
    }
    minInf = 1;
    maxInf = 1;
  }
  const restMin = minInf > 0 ? -Infinity : min;
  const restMax = maxInf > 0 ? Infinity : max;
  const low = p.rowLower[r] - restMax;
  const high = p.rowUpper[r] - restMin;
  const lo = a > 0 ? low / a : high / a;
  const up = a > 0 ? high / a : low / a;
  implied[0] = Number.isNaN(lo) ? -Infinity : lo;
  implied[1] = Number.isNaN(up) ? Infinity : up;
}

/** The entries `impliedBy` counts for row s, without its bounds (a side the test does not need). */
function chargeImpliedBy(p: Presolver, s: number, rows: ImpliedBoundRows): void {
  if (p.rowActive[s]) rows.spent += 2 * p.mat.rowIdx[s].length;
}

/** A side of a column's bounds: the index of `implied` it is in, and of ImpliedBoundRows' lower/upper pairs. */
const LOWER = 0;
const UPPER = 1;
type Side = typeof LOWER | typeof UPPER;

/**
 * The lower (`side` LOWER) or upper (UPPER) bound row s = lowerRow[k] (upperRow[k]) implies for column
 * k now, if s may stand in for k's bounds in the test of column j (whose rows `impliedFree` marked):
 * active, still holding k, and without column j; else −∞ (+∞). The coefficient is the one kept when s
 * was chosen, looked up again only if s has been edited since. The bound is kept per column with the
 * activity object it was computed from: the same object means s is unedited since (an edit of its
 * entries or sides forgets it, and a new object is made), so the bound is the one a recomputation would
 * give; the many tests through a column's rows compute it once.
 */
function impliedBy(p: Presolver, s: number, k: number, rows: ImpliedBoundRows, side: Side): number {
  const none = side === LOWER ? -Infinity : Infinity;
  if (!p.rowActive[s]) return none;
  // the count charged is the scan of s this test once made (kept: the budget decides outcomes)
  rows.spent += 2 * p.mat.rowIdx[s].length;
  if (rows.rowMark[s] === rows.markStamp) return none;
  const act = rows.activities.of(s);
  const from = side === LOWER ? rows.lowerFrom : rows.upperFrom;
  const now = side === LOWER ? rows.lowerNow : rows.upperNow;
  if (from[k] === act) return now[k];
  const a = rows.activities.edited[s] ? p.mat.get(s, k) : (side === LOWER ? rows.lowerCoef : rows.upperCoef)[k];
  let bound = none;
  if (a !== 0) {
    boundsFrom(p, s, k, a, act);
    bound = implied[side];
  }
  from[k] = act;
  now[k] = bound;
  return bound;
}
