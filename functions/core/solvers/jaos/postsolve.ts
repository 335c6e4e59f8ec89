/**
 * Postsolve for presolve.ts: the reductions it records, replayed in reverse to map values of the
 * reduced problem back to the original columns. Primal values only (jaos reports no duals).
 */

/** One recorded reduction; `cols`/`coefs` are the other active columns of the row at that time. */
export type Reduction =
  | { kind: "fix"; col: number; value: number }
  | { kind: "slack"; col: number; coef: number; lower: number; upper: number; rowLower: number; rowUpper: number; cols: number[]; coefs: number[] }
  | { kind: "substitute"; col: number; coef: number; rhs: number; cols: number[]; coefs: number[] };

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
    let rest = 0;
    for (let t = 0; t < r.cols.length; t++) rest += r.coefs[t]! * x[r.cols[t]!];
    if (r.kind === "substitute") {
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
    if (r.kind === "fix") continue;
    let rest = 0;
    for (let t = 0; t < r.cols.length; t++) rest += r.coefs[t]! * d[r.cols[t]!];
    d[r.col] = -rest / r.coef;
  }
  return d;
}
