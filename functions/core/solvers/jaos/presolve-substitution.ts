/**
 * Reductions of presolve.ts that need more than a row or a column at a time: doubleton equations
 * (one column substituted out, its coefficients moved onto the other one's) and dual fixing
 * (a column whose cost and signs let it sit at a bound).
 */
import type { Presolver } from "./presolve.js";

/** Largest |a_j / a_k| accepted when substituting x_k out (the eliminated column's coefficient divides). */
const MAX_RATIO = 1e3;

/**
 * Row i is an equality a·x_j + b·x_k = c over two active columns: x_k = (c − a·x_j)/b is substituted
 * into the other rows and the objective, x_j gets the bounds that keep x_k within its own, and the row
 * goes. x_k must be continuous (an integer x_j stays integer; its new bounds round inward), so the
 * reduction is valid for MILPs. Of two continuous columns the one with the larger coefficient is
 * eliminated, which keeps every moved coefficient no larger than the one it came from.
 */
export function doubletonEquation(p: Presolver, i: number): boolean {
  if (p.rowLower[i] !== p.rowUpper[i] || p.rowCount[i] !== 2) return false;
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  const cols: number[] = [];
  const coefs: number[] = [];
  for (let t = 0; t < ri.length; t++) {
    if (p.colActive[ri[t]]) {
      cols.push(ri[t]);
      coefs.push(rv[t]);
    }
  }
  let e = Math.abs(coefs[0]) >= Math.abs(coefs[1]) ? 0 : 1;
  if (p.integer[cols[e]]) e = 1 - e;
  if (p.integer[cols[e]]) return false;
  const k = cols[e];
  const j = cols[1 - e];
  const b = coefs[e];
  const a = coefs[1 - e];
  if (Math.abs(a / b) > MAX_RATIO) return false;
  const c = p.rowLower[i];
  // x_j = c/a − (b/a)·x_k over x_k ∈ [lower_k, upper_k]
  const slope = -b / a;
  const atLower = c / a + slope * p.colLower[k];
  const atUpper = c / a + slope * p.colUpper[k];
  p.tightenColumn(j, Math.min(atLower, atUpper), Math.max(atLower, atUpper), `row ${i} (doubleton)`);
  if (p.infeasible) return true;
  // x_k = g − f·x_j
  const f = a / b;
  const g = c / b;
  const costK = p.cost[k];
  if (costK !== 0) {
    p.cost[j] -= costK * f;
    p.offset += costK * g;
  }
  p.stack.push({ kind: "doubleton", col: k, row: i, coef: b, rhs: c, cols: [j], coefs: [a] });
  p.removeRow(i);
  p.colActive[k] = 0;
  const ci = p.mat.colIdx[k].slice();
  const cv = p.mat.colVal[k].slice();
  for (let t = 0; t < ci.length; t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    const arK = cv[t];
    p.rowLower[r] -= arK * g;
    p.rowUpper[r] -= arK * g;
    p.rowCount[r]--;
    const change = p.mat.add(r, j, -arK * f);
    p.rowCount[r] += change;
    p.colCount[j] += change;
  }
  return true;
}

/**
 * Dual fixing: if lowering x_j can only help every row (a_ij > 0 only in rows without a lower side,
 * a_ij < 0 only in rows without an upper side) and its cost is not negative, some optimum has x_j at
 * its lower bound; symmetrically for the upper bound. Valid for integer columns too.
 */
export function dualFixing(p: Presolver, j: number): boolean {
  const c = p.cost[j];
  let down = c >= 0 && Number.isFinite(p.colLower[j]);
  let up = c <= 0 && Number.isFinite(p.colUpper[j]);
  const ci = p.mat.colIdx[j];
  const cv = p.mat.colVal[j];
  for (let t = 0; t < ci.length && (down || up); t++) {
    const i = ci[t];
    if (!p.rowActive[i]) continue;
    const lowerSide = p.rowLower[i] !== -Infinity;
    const upperSide = p.rowUpper[i] !== Infinity;
    if (cv[t] > 0) {
      if (lowerSide) down = false;
      if (upperSide) up = false;
    } else {
      if (upperSide) down = false;
      if (lowerSide) up = false;
    }
  }
  if (down && (c > 0 || !up || Math.abs(p.colLower[j]) <= Math.abs(p.colUpper[j]))) p.fixColumn(j, p.colLower[j]);
  else if (up) p.fixColumn(j, p.colUpper[j]);
  else return false;
  return true;
}
