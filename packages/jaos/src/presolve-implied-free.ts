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
    const rv = p.mat.rowVal[r];
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (!p.colActive[k]) continue;
      const lo = lowerFrom(p, r, k, rv[t], act);
      const up = upperFrom(p, r, k, rv[t], act);
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
  return { lowerRow, upperRow, lowerCoef, upperCoef, rowMark: new Int32Array(p.m), markStamp: 0, spent, budget, activities };
}

/**
 * The lower (upper) bound row r implies for column k (coefficient a) over the other columns' own
 * bounds: the numbers of `Presolver.restActivity`, one side at a time and without a pair allocated per
 * entry (the test visits millions of entries on some LPs; the pairs were a fifth of presolve in GC).
 */
function lowerFrom(p: Presolver, r: number, k: number, a: number, act: Activity): number {
  // a·x_k ≥ rowLower − restMax (a > 0), a·x_k ≤ rowUpper − restMin (a < 0)
  const lo = a > 0 ? (p.rowLower[r] - restMax(p, act, a, k)) / a : (p.rowUpper[r] - restMin(p, act, a, k)) / a;
  return Number.isNaN(lo) ? -Infinity : lo;
}

function upperFrom(p: Presolver, r: number, k: number, a: number, act: Activity): number {
  const up = a > 0 ? (p.rowUpper[r] - restMin(p, act, a, k)) / a : (p.rowLower[r] - restMax(p, act, a, k)) / a;
  return Number.isNaN(up) ? Infinity : up;
}

/** `Presolver.restActivity(act, a, k)[0]`: the row's least activity without column k. */
function restMin(p: Presolver, act: Activity, a: number, k: number): number {
  const lo = a > 0 ? p.colLower[k] : p.colUpper[k];
  if (Number.isFinite(lo)) return act.minInf > 0 ? -Infinity : act.min - a * lo;
  return act.minInf > 1 ? -Infinity : act.min;
}

/** `Presolver.restActivity(act, a, k)[1]`: the row's greatest activity without column k. */
function restMax(p: Presolver, act: Activity, a: number, k: number): number {
  const up = a > 0 ? p.colUpper[k] : p.colLower[k];
  if (Number.isFinite(up)) return act.maxInf > 0 ? Infinity : act.max - a * up;
  return act.maxInf > 1 ? Infinity : act.max;
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
    const act = activities.of(r);
    if (!loImplied && lowerFrom(p, r, j, cv[t], act) >= lo - near(lo)) loImplied = true;
    if (!upImplied && upperFrom(p, r, j, cv[t], act) <= up + near(up)) upImplied = true;
  }
  if (!(loImplied && upImplied) && rows && rows.spent < rows.budget) {
    const stamp = ++rows.markStamp;
    for (let t = 0; t < ci.length; t++) rows.rowMark[ci[t]] = stamp;
  }
  for (let t = 0; t < ci.length && !(loImplied && upImplied) && rows && rows.spent < rows.budget; t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    deeperBounds(p, r, j, cv[t], rows);
    if (!loImplied && deeper.lower >= lo - near(lo)) loImplied = true;
    if (!upImplied && deeper.upper <= up + near(up)) upImplied = true;
  }
  return loImplied && upImplied;
}

/** `deeperBounds`' answer, kept here rather than returned as a pair (one per row tested). */
const deeper = { lower: -Infinity, upper: Infinity };

/** Column j's bounds from row r, the other columns within their own or their implied bounds (see the file's comment), into `deeper`. */
function deeperBounds(p: Presolver, r: number, j: number, a: number, rows: ImpliedBoundRows): void {
  let min = 0;
  let max = 0;
  let minInf = 0;
  let maxInf = 0;
  const ri = p.mat.rowIdx[r];
  const rv = p.mat.rowVal[r];
  rows.spent += ri.length;
  for (let t = 0; t < ri.length; t++) {
    const k = ri[t];
    if (k === j || !p.colActive[k]) continue;
    let kLo = p.colLower[k];
    let kUp = p.colUpper[k];
    const sLo = rows.lowerRow[k];
    const sUp = rows.upperRow[k];
    if (sLo >= 0 && sLo !== r) kLo = Math.max(kLo, impliedBy(p, sLo, k, rows.lowerCoef[k], rows, true));
    if (sUp >= 0 && sUp !== r) kUp = Math.min(kUp, impliedBy(p, sUp, k, rows.upperCoef[k], rows, false));
    const c = rv[t];
    const low = c > 0 ? kLo : kUp;
    const high = c > 0 ? kUp : kLo;
    if (Number.isFinite(low)) min += c * low;
    else minInf++;
    if (Number.isFinite(high)) max += c * high;
    else maxInf++;
  }
  const restMin = minInf > 0 ? -Infinity : min;
  const restMax = maxInf > 0 ? Infinity : max;
  const low = p.rowLower[r] - restMax;
  const high = p.rowUpper[r] - restMin;
  const lo = a > 0 ? low / a : high / a;
  const up = a > 0 ? high / a : low / a;
  deeper.lower = Number.isNaN(lo) ? -Infinity : lo;
  deeper.upper = Number.isNaN(up) ? Infinity : up;
}

/**
 * The lower (`lower`) or upper bound row s implies for column k now, if s may stand in for k's bounds
 * in the test of column j (whose rows `impliedFree` marked): active, still holding k, and without
 * column j; else none (−∞ or +∞).
 * `coef` is k's coefficient in s when s was chosen, looked up again only if s has been edited since.
 */
function impliedBy(p: Presolver, s: number, k: number, coef: number, rows: ImpliedBoundRows, lower: boolean): number {
  const none = lower ? -Infinity : Infinity;
  if (!p.rowActive[s]) return none;
  // the count charged is the scan of s this test once made (kept: the budget decides outcomes)
  rows.spent += 2 * p.mat.rowIdx[s].length;
  if (rows.rowMark[s] === rows.markStamp) return none;
  const a = rows.activities.edited[s] ? p.mat.get(s, k) : coef;
  if (a === 0) return none;
  const act = rows.activities.of(s);
  return lower ? lowerFrom(p, s, k, a, act) : upperFrom(p, s, k, a, act);
}
