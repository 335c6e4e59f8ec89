/**
 * Postsolve for presolve.ts: the reductions it records, replayed in reverse to map values of the
 * reduced problem back to the original columns, and (`postsolveBasis`) a basis of the reduced problem
 * back to a basis of the original one, so the original LP can be re-solved from (nearly) its optimum
 * instead of from a vertex guessed from x.
 */
import type { LpModel } from "./model.js";
import { AT_LOWER, AT_UPPER, AT_ZERO, BASIC } from "./simplex-state.js";

/**
 * One recorded reduction; `cols`/`coefs` are the other active columns of the row at that time.
 * "rowBound" (a singleton row turned into bounds of its column) changes no value; it is there for the
 * basis postsolve.
 */
export type Reduction =
  | { kind: "fix"; col: number; value: number }
  | { kind: "rowBound"; col: number; row: number }
  /** a forcing row: its columns (fixed by the "fix" entries before it) at the bounds that minimise (atMin) or maximise its activity */
  | { kind: "forcing"; row: number; atMin: boolean; cols: number[]; coefs: number[] }
  /** row `row` = scale · row `kept` over the active columns; its sides were merged into kept's */
  | { kind: "parallel"; row: number; kept: number; scale: number }
  /** an equation that is a linear combination of other equations (same right-hand side): its dual is 0, its logical basic */
  | { kind: "dependent"; row: number }
  | {
      kind: "slack";
      col: number;
      row: number;
      coef: number;
      lower: number;
      upper: number;
      rowLower: number;
      rowUpper: number;
      cols: number[];
      coefs: number[];
    }
  | { kind: "substitute"; col: number; row: number; coef: number; rhs: number; cols: number[]; coefs: number[] }
  /** a doubleton equation coef·x_col + coefs[0]·x_cols[0] = rhs, x_col substituted out */
  | { kind: "doubleton"; col: number; row: number; coef: number; rhs: number; cols: number[]; coefs: number[] };

/** Original column values from the reduced problem's values. */
export function postsolve(n: number, colMap: Int32Array, stack: Reduction[], xr: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let k = 0; k < colMap.length; k++) x[colMap[k]] = xr[k]!;
  for (let s = stack.length - 1; s >= 0; s--) {
    const r = stack[s]!;
    if (r.kind === "fix") {
      x[r.col] = r.value;
      continue;
    }
    if (r.kind === "rowBound" || r.kind === "forcing" || r.kind === "parallel" || r.kind === "dependent") continue;
    let rest = 0;
    for (let t = 0; t < r.cols.length; t++) rest += r.coefs[t]! * x[r.cols[t]!];
    if (r.kind === "substitute" || r.kind === "doubleton") {
      x[r.col] = (r.rhs - rest) / r.coef;
      continue;
    }
    // slack: any x_j in [lower, upper] with rowLower ≤ rest + a·x_j ≤ rowUpper; prefer the value
    // closest to zero inside that interval
    const a = r.coef;
    let lo = r.lower;
    let up = r.upper;
    const fromRowLo = (r.rowLower - rest) / a;
    const fromRowUp = (r.rowUpper - rest) / a;
    if (a > 0) {
      lo = Math.max(lo, fromRowLo);
      up = Math.min(up, fromRowUp);
    } else {
      lo = Math.max(lo, fromRowUp);
      up = Math.min(up, fromRowLo);
    }
    x[r.col] = lo > up ? (Math.abs(lo - r.lower) < Math.abs(up - r.upper) ? lo : up) : Math.max(lo, Math.min(up, 0));
  }
  return x;
}

/**
 * Directions: along a ray the row a_iᵀx of a removed slack or substituted column moves by a_iᵀd,
 * which the column must absorb (its bound is infinite in that direction whenever the reduced row's
 * side was, and a finite reduced side means the ray does not move the row).
 */
export function postsolveRay(n: number, colMap: Int32Array, stack: Reduction[], dr: ArrayLike<number>): Float64Array {
  const d = new Float64Array(n);
  for (let k = 0; k < colMap.length; k++) d[colMap[k]] = dr[k]!;
  for (let s = stack.length - 1; s >= 0; s--) {
    const r = stack[s]!;
    if (r.kind === "fix" || r.kind === "rowBound" || r.kind === "forcing" || r.kind === "parallel" || r.kind === "dependent") continue;
    let rest = 0;
    for (let t = 0; t < r.cols.length; t++) rest += r.coefs[t]! * d[r.cols[t]!];
    d[r.col] = -rest / r.coef;
  }
  return d;
}

/**
 * A basis of the original model (statuses of its columns, then of its logicals = −row activity) from
 * an optimal basis of the reduced one and the postsolved x. Removed rows start with a basic logical and
 * removed columns nonbasic at the bound x sits at; then, in reverse order, each reduction that tied a
 * column to a row trades the row's logical for the column where the column lies strictly inside its
 * original bounds (substituted columns; slacks inside their range; columns held by a singleton row's
 * bound). The count of basic variables stays the number of rows, so the factorisation sees a square
 * basis; where a reduction leaves the basis not quite optimal, the simplex goes on from it.
 */
export function postsolveBasis(
  model: LpModel,
  colMap: Int32Array,
  rowMap: Int32Array,
  stack: Reduction[],
  reduced: Int8Array,
  x: Float64Array,
  reducedDuals: Float64Array,
): Int8Array {
  const { rows: m, cols: n } = model;
  const nr = colMap.length;
  const status = new Int8Array(n + m).fill(-1);
  for (let k = 0; k < nr; k++) status[colMap[k]] = reduced[k];
  for (let k = 0; k < rowMap.length; k++) status[n + rowMap[k]] = reduced[nr + k];
  const activity = new Float64Array(m);
  const a = model.a;
  for (let j = 0; j < n; j++) for (let p = a.start[j]; p < a.start[j + 1]; p++) activity[a.index[p]] += a.value[p] * x[j];
  const near = (v: number, b: number) => Number.isFinite(b) && Math.abs(v - b) <= 1e-9 * Math.max(1, Math.abs(b));
  const colAt = (j: number) => {
    const lo = model.colLower[j];
    const up = model.colUpper[j];
    if (near(x[j], lo)) return AT_LOWER;
    if (near(x[j], up)) return AT_UPPER;
    return lo === -Infinity && up === Infinity && Math.abs(x[j]) <= 1e-9 ? AT_ZERO : -1;
  };
  // the logical of row i nonbasic on the side its activity is at (logical bounds [−rowUpper, −rowLower])
  const rowSide = (i: number) => (near(activity[i], model.rowUpper[i]) ? AT_LOWER : near(activity[i], model.rowLower[i]) ? AT_UPPER : -1);
  for (let j = 0; j < n; j++) if (status[j] < 0) status[j] = nonbasicNearest(colAt(j), x[j], model.colLower[j], model.colUpper[j]);
  for (let i = 0; i < m; i++) if (status[n + i] < 0) status[n + i] = BASIC;
  const trade = (col: number, row: number): boolean => {
    const side = rowSide(row);
    if (status[col] === BASIC || status[n + row] !== BASIC || side < 0) return false;
    status[col] = BASIC;
    status[n + row] = side;
    return true;
  };
  // Row duals, rebuilt alongside (kept rows from the reduced solve, a removed row's where its
  // reduction made a column basic with it): what a forcing row needs to pick its basic column.
  const y = new Float64Array(m);
  for (let k = 0; k < rowMap.length; k++) y[rowMap[k]] = reducedDuals[k]!;
  const reducedCost = (j: number, without: number) => {
    let d = model.cost[j];
    for (let p = a.start[j]; p < a.start[j + 1]; p++) if (a.index[p] !== without) d -= a.value[p] * y[a.index[p]];
    return d;
  };
  // a nonbasic column whose reduced cost (at the duals so far) has the sign its bound forbids
  const wrongSign = (j: number) => {
    if (status[j] === BASIC || model.colLower[j] === model.colUpper[j]) return false;
    const d = reducedCost(j, -1);
    const tol = 1e-9 * Math.max(1, Math.abs(model.cost[j]));
    return status[j] === AT_LOWER ? d < -tol : status[j] === AT_UPPER ? d > tol : Math.abs(d) > tol;
  };
  const tradeWithDual = (col: number, row: number, coef: number) => {
    if (trade(col, row)) y[row] = reducedCost(col, row) / coef;
  };
  // the first reduction that tied each column to a row it can turn basic with
  const firstTie = new Int32Array(n).fill(stack.length);
  for (let s = stack.length - 1; s >= 0; s--) {
    const r = stack[s]!;
    if (r.kind === "rowBound") firstTie[r.col] = s;
    else if (r.kind === "doubleton") firstTie[r.cols[0]!] = s;
  }
  for (let s = stack.length - 1; s >= 0; s--) {
    const r = stack[s]!;
    // a dependent equation keeps the basic logical and the dual 0 it started with (presolve-dependent-rows.ts)
    if (r.kind === "fix" || r.kind === "dependent") continue;
    if (r.kind === "parallel") {
      // the kept row nonbasic at a side that only the removed row has: the removed row holds it instead
      const keptAt = status[n + r.kept]!;
      if (keptAt !== BASIC && rowSide(r.kept) < 0 && status[n + r.row] === BASIC && rowSide(r.row) >= 0) {
        status[n + r.row] = rowSide(r.row);
        status[n + r.kept] = BASIC;
        y[r.row] = y[r.kept]! / r.scale;
        y[r.kept] = 0;
      }
      continue;
    }
    if (r.kind === "forcing") {
      forcingRowBasis(
        r,
        reducedCost,
        (col) => model.colLower[col] === model.colUpper[col],
        (col, value) => {
          if (trade(col, r.row)) y[r.row] = value;
        },
      );
      continue;
    }
    if (r.kind === "doubleton") {
      // One of x_k (eliminated) and x_j (kept) turns basic with the row: x_k where it is inside
      // its bounds or x_j is basic already; else x_j, whose bound (its own or the one x_k's implied)
      // then carries over to x_k with the reduced cost −(b/a)·d_j of the matching sign. When both lie
      // inside their bounds, x_j takes the row if an earlier reduction (a singleton row, another
      // doubleton) still owes x_k a row, and otherwise x_k does (x_j then owes one itself).
      const kept = r.cols[0]!;
      const keptOwed = status[kept] !== BASIC && colAt(kept) < 0;
      if (status[kept] !== BASIC && (colAt(r.col) >= 0 || (keptOwed && firstTie[r.col]! < s))) tradeWithDual(kept, r.row, r.coefs[0]!);
      else tradeWithDual(r.col, r.row, r.coef);
      continue;
    }
    if (r.kind === "substitute") tradeWithDual(r.col, r.row, r.coef);
    else if (r.kind === "rowBound" && (colAt(r.col) < 0 || wrongSign(r.col))) tradeWithDual(r.col, r.row, coefficient(model, r.row, r.col));
    else if (r.kind === "slack" && colAt(r.col) < 0) trade(r.col, r.row);
  }
  return status;
}

function nonbasicNearest(at: number, v: number, lo: number, up: number): number {
  if (at >= 0) return at;
  if (lo === -Infinity && up === Infinity) return AT_ZERO;
  if (lo === -Infinity) return AT_UPPER;
  if (up === Infinity) return AT_LOWER;
  return Math.abs(v - lo) <= Math.abs(v - up) ? AT_LOWER : AT_UPPER;
}

/**
 * A forcing row's columns sit at bounds; its dual y_i must give each of them a reduced cost
 * d_j − a_ij·y_i of the sign its bound needs. At the row's upper side (atMin; y_i ≤ 0) that is
 * y_i ≤ d_j/a_ij for every column, so y_i = min(0, min d_j/a_ij), and the column attaining it turns basic
 * with the row; at the lower side, y_i = max(0, max d_j/a_ij). With y_i = 0 the row's logical stays basic.
 */
function forcingRowBasis(
  r: { atMin: boolean; row: number; cols: number[]; coefs: number[] },
  reducedCost: (j: number, without: number) => number,
  fixedByBounds: (j: number) => boolean,
  makeBasic: (col: number, dual: number) => void,
): void {
  let best = 0;
  let bestCol = -1;
  for (let t = 0; t < r.cols.length; t++) {
    const j = r.cols[t]!;
    if (fixedByBounds(j)) continue;
    const ratio = reducedCost(j, r.row) / r.coefs[t]!;
    if (r.atMin ? ratio < best : ratio > best) {
      best = ratio;
      bestCol = j;
    }
  }
  if (bestCol >= 0) makeBasic(bestCol, best);
}

function coefficient(model: LpModel, row: number, col: number): number {
  const a = model.a;
  for (let p = a.start[col]; p < a.start[col + 1]; p++) if (a.index[p] === row) return a.value[p];
  return 1;
}
