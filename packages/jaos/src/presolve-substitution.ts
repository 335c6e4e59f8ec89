/**
 * Reductions of presolve.ts that need more than a row or a column at a time: doubleton equations
 * (one column substituted out, its coefficients moved onto the other one's) and dual fixing
 * (a column whose cost and signs let it sit at a bound).
 */
import type { Presolver } from "./presolve.js";
import { type ImpliedBoundRows, impliedBoundRows, impliedFree, RowActivities } from "./presolve-implied-free.js";
import { KeyGroups } from "./presolve-matrix.js";

/** Largest |a_j / a_k| accepted when substituting x_k out (the eliminated column's coefficient divides). */
const MAX_RATIO = 1e3;

/**
 * Row i is an equality a·x_j + b·x_k = c over two active columns: x_k = (c − a·x_j)/b is substituted
 * into the other rows and the objective, x_j gets the bounds that keep x_k within its own, and the row
 * goes. x_k must be continuous (an integer x_j stays integer; its new bounds round inward), so the
 * reduction is valid for MILPs, though the presolver runs it on LPs only (presolve.ts, `mip`). Of two
 * continuous columns the one with the larger coefficient is
 * eliminated, which keeps every moved coefficient no larger than the one it came from.
 */
export function doubletonEquation(p: Presolver, i: number): boolean {
  if (p.rowLower[i] !== p.rowUpper[i] || !Number.isFinite(p.rowLower[i]) || p.rowCount[i] !== 2) return false;
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
  p.verdicts.column(k);
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

/** A reduced cost bound must clear zero by this (relative to the cost) before a column is fixed. */
const DOMINANCE_TOL = 1e-7;

/**
 * Dominated columns (LPs only: the argument is LP duality). Every dual solution keeps each row's dual
 * y_i in a box: by the row's sides (≥ rows y_i ≥ 0, ≤ rows y_i ≤ 0, in the minimising sense) and by
 * each column singleton, whose reduced cost c_j − a·y_i cannot take the sign its infinite bound forbids.
 * A column whose reduced cost is then positive (negative) over the whole box sits at its lower (upper)
 * bound in every optimum, by complementary slackness, and is fixed there. Returns the count fixed.
 */
export function dominatedColumns(p: Presolver): number {
  const yLower = new Float64Array(p.m);
  const yUpper = new Float64Array(p.m);
  for (let i = 0; i < p.m; i++) {
    if (!p.rowActive[i]) continue;
    // a side that is infinite cannot be active: y_i ≥ 0 without an upper side, ≤ 0 without a lower
    yLower[i] = p.rowUpper[i] === Infinity ? 0 : -Infinity;
    yUpper[i] = p.rowLower[i] === -Infinity ? 0 : Infinity;
  }
  for (let j = 0; j < p.n; j++) {
    if (!p.colActive[j] || p.colCount[j] !== 1) continue;
    const [i, a] = onlyEntry(p, j);
    const ratio = p.cost[j] / a;
    // upper bound infinite: c − a·y ≥ 0; lower bound infinite: c − a·y ≤ 0
    if (p.colUpper[j] === Infinity) {
      if (a > 0) yUpper[i] = Math.min(yUpper[i], ratio);
      else yLower[i] = Math.max(yLower[i], ratio);
    }
    if (p.colLower[j] === -Infinity) {
      if (a > 0) yLower[i] = Math.max(yLower[i], ratio);
      else yUpper[i] = Math.min(yUpper[i], ratio);
    }
  }
  // an empty box means no dual solution (no optimum): nothing to argue from
  for (let i = 0; i < p.m; i++) if (p.rowActive[i] && yLower[i] > yUpper[i]) return 0;
  let fixed = 0;
  for (let j = 0; j < p.n; j++) {
    if (!p.colActive[j] || p.colCount[j] === 0) continue;
    // range of Σ a_ij·y_i over the box
    let max = 0;
    let min = 0;
    const ci = p.mat.colIdx[j];
    const cv = p.mat.colVal[j];
    for (let t = 0; t < ci.length; t++) {
      const i = ci[t];
      if (!p.rowActive[i]) continue;
      const a = cv[t];
      max += a > 0 ? a * yUpper[i] : a * yLower[i];
      min += a > 0 ? a * yLower[i] : a * yUpper[i];
    }
    const c = p.cost[j];
    const tol = DOMINANCE_TOL * Math.max(1, Math.abs(c));
    if (c - max > tol && Number.isFinite(p.colLower[j])) p.fixColumn(j, p.colLower[j]);
    else if (c - min < -tol && Number.isFinite(p.colUpper[j])) p.fixColumn(j, p.colUpper[j]);
    else continue;
    fixed++;
  }
  return fixed;
}

function onlyEntry(p: Presolver, j: number): [number, number] {
  const ci = p.mat.colIdx[j];
  for (let t = 0; t < ci.length; t++) if (p.rowActive[ci[t]]) return [ci[t], p.mat.colVal[j][t]];
  return [-1, 0];
}

/** A pivot must be at least this fraction of the largest |entry| in its row and in its column. */
const PIVOT_THRESHOLD = 0.01;
/** Substitutions whose fill-in exceeds the entries they remove by more than this are skipped. */
const MAX_NET_FILL = 20;

/**
 * Free column substitution (an aggregator): a continuous column whose bounds the rows imply (each side
 * by some row's activity over the other columns' bounds) is free in effect, so an equation through it
 * gives x_j = (b − Σ a_ik·x_k)/a_ij exactly; it is substituted into the column's other rows and the
 * objective, and the column and the equation go. Pivots pass a threshold against their row and column,
 * and the fill-in is bounded. Valid for MILPs (only continuous columns are substituted). `deeper`: the
 * implied-free test may also use bounds other rows imply for the row's columns (presolve-implied-free.ts).
 * Returns the count of substitutions.
 */
export function freeColumnSubstitution(p: Presolver, deeper = true, budget = p.budget.impliedFree): number {
  const activities = new RowActivities(p);
  const columnMax = new ColumnMaxima(p);
  const rows = deeper && budget > 0 ? impliedBoundRows(p, budget, activities) : null;
  let done = 0;
  for (let i = 0; i < p.m && !p.infeasible; i++) {
    if (!p.rowActive[i] || p.rowLower[i] !== p.rowUpper[i] || !Number.isFinite(p.rowLower[i]) || p.rowCount[i] < 2) continue;
    const j = pickFreePivot(p, i, rows, activities, columnMax);
    if (j >= 0) {
      // row i's columns lose it and take entries of column j's rows: their maxima are recomputed
      const ri = p.mat.rowIdx[i];
      for (let t = 0; t < ri.length; t++) columnMax.forget(ri[t]);
      substituteColumn(p, i, j);
      // the rows of column j lost it and took row i's entries: their activities are recomputed
      const ci = p.mat.colIdx[j];
      for (let t = 0; t < ci.length; t++) activities.forget(ci[t]);
      done++;
    }
  }
  if (rows) p.budget.impliedFree = Math.max(0, p.budget.impliedFree - rows.spent);
  return done;
}

/** The column of equation i to substitute out (−1 for none): implied free, a stable pivot, little fill. */
function pickFreePivot(p: Presolver, i: number, rows: ImpliedBoundRows | null, activities: RowActivities, columnMax: ColumnMaxima): number {
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  let rowMax = 0;
  for (let t = 0; t < ri.length; t++) if (p.colActive[ri[t]]) rowMax = Math.max(rowMax, Math.abs(rv[t]));
  let best = -1;
  let bestFill = Infinity;
  for (let t = 0; t < ri.length; t++) {
    const j = ri[t];
    if (!p.colActive[j] || p.integer[j] || p.colCount[j] < 2) continue;
    const a = rv[t];
    const fill = (p.rowCount[i] - 1) * (p.colCount[j] - 1) - (p.rowCount[i] + p.colCount[j] - 1);
    if (fill > MAX_NET_FILL || fill >= bestFill || Math.abs(a) < PIVOT_THRESHOLD * rowMax) continue;
    // a test without the deeper part has no effect but its verdict, so a standing "not free" skips it
    // (and the pivot's column test, which only joins it in rejecting)
    if ((rows === null || rows.spent >= rows.budget) && p.verdicts.knownNotFree(j)) continue;
    if (Math.abs(a) < PIVOT_THRESHOLD * columnMax.of(j)) continue;
    if (!impliedFree(p, j, rows, activities)) {
      p.verdicts.found(j);
      continue;
    }
    best = j;
    bestFill = fill;
  }
  return best;
}

/**
 * Per column the largest |entry| over its active rows, kept until `forget` (the caller forgets every
 * column whose entries or active rows it changes): a pivot is tested against it once per column, not
 * entry by entry for every equation through the column (pds-20: 17 % of presolve).
 */
class ColumnMaxima {
  private readonly kept: Float64Array;

  constructor(private readonly p: Presolver) {
    this.kept = new Float64Array(p.n).fill(-1);
  }

  of(j: number): number {
    let max = this.kept[j];
    if (max < 0) {
      max = 0;
      const ci = this.p.mat.colIdx[j];
      const cv = this.p.mat.colVal[j];
      for (let t = 0; t < ci.length; t++) if (this.p.rowActive[ci[t]] && Math.abs(cv[t]) > max) max = Math.abs(cv[t]);
      this.kept[j] = max;
    }
    return max;
  }

  forget(j: number): void {
    this.kept[j] = -1;
  }
}

/** x_j = (b − Σ_{k≠j} a_ik·x_k)/a_ij into the other rows of column j and the objective; row i and x_j go. */
function substituteColumn(p: Presolver, i: number, j: number): void {
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  const cols: number[] = [];
  const coefs: number[] = [];
  let pivot = 0;
  for (let t = 0; t < ri.length; t++) {
    const k = ri[t];
    if (!p.colActive[k]) continue;
    if (k === j) pivot = rv[t];
    else {
      cols.push(k);
      coefs.push(rv[t]);
    }
  }
  const b = p.rowLower[i];
  const c = p.cost[j];
  if (c !== 0) {
    for (let t = 0; t < cols.length; t++) p.cost[cols[t]] -= (c * coefs[t]) / pivot;
    p.offset += (c * b) / pivot;
  }
  p.stack.push({ kind: "substitute", col: j, row: i, coef: pivot, rhs: b, cols, coefs });
  p.removeRow(i);
  p.colActive[j] = 0;
  const ci = p.mat.colIdx[j].slice();
  const cv = p.mat.colVal[j].slice();
  for (let t = 0; t < ci.length; t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    const factor = cv[t] / pivot;
    p.rowLower[r] -= factor * b;
    p.rowUpper[r] -= factor * b;
    p.rowCount[r]--;
    p.rowCount[r] += p.mat.addScaledRow(r, cols, coefs, factor, p.colCount);
  }
  p.verdicts.column(j);
}

/**
 * Parallel rows: a row that is a multiple s of another over the active columns constrains the same
 * activity, so its sides (divided by s) are merged into the other's and it goes. Rows are grouped by
 * their columns, then checked entry by entry (to 1e-12) against the group's first row.
 */
export function parallelRows(p: Presolver): number {
  // rows grouped by an order-free hash of their active columns; the entries are sorted and compared
  // only inside groups of two or more
  const groups = new KeyGroups(p.m);
  for (let i = 0; i < p.m; i++) {
    if (!p.rowActive[i] || p.rowCount[i] < 2) continue;
    groups.add(columnPatternHash(p, i), i);
  }
  const { start, member } = groups.shared();
  let removed = 0;
  for (let group = 0; group + 1 < start.length; group++) {
    const kept = member[start[group]];
    const base = activeEntries(p, kept);
    for (let g = start[group] + 1; g < start[group + 1] && !p.infeasible; g++) {
      const k = member[g];
      const other = activeEntries(p, k);
      if (other.length !== base.length) continue;
      const scale = other[0]![1] / base[0]![1];
      if (other.some((e, t) => e[0] !== base[t]![0] || Math.abs(e[1] - scale * base[t]![1]) > 1e-12 * Math.abs(e[1]))) continue;
      const lo = scale > 0 ? p.rowLower[k] / scale : p.rowUpper[k] / scale;
      const up = scale > 0 ? p.rowUpper[k] / scale : p.rowLower[k] / scale;
      let newLo = Math.max(p.rowLower[kept], lo);
      let newUp = Math.min(p.rowUpper[kept], up);
      if (newLo > newUp + 1e-9 * Math.max(1, Math.abs(newUp))) {
        p.infeasible = `rows ${kept} and ${k} are parallel with disjoint sides`;
        return removed;
      }
      if (newLo > newUp) newLo = newUp;
      if (newUp < newLo) newUp = newLo;
      p.rowLower[kept] = newLo;
      p.rowUpper[kept] = newUp;
      p.verdicts.row(kept);
      p.stack.push({ kind: "parallel", row: k, kept, scale });
      p.removeRow(k);
      removed++;
    }
  }
  return removed;
}

function columnPatternHash(p: Presolver, i: number): number {
  const ri = p.mat.rowIdx[i];
  let sum = 0;
  let mix = 0;
  for (let t = 0; t < ri.length; t++) {
    if (!p.colActive[ri[t]]) continue;
    const h = Math.imul(ri[t] + 1, 0x9e3779b1);
    sum = (sum + h) | 0;
    mix ^= h >>> 7;
  }
  return (Math.imul(sum, 31) ^ mix ^ p.rowCount[i]) | 0;
}

/** Row i's active (column, coefficient) pairs, by column. */
function activeEntries(p: Presolver, i: number): [number, number][] {
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  const row: [number, number][] = [];
  for (let t = 0; t < ri.length; t++) if (p.colActive[ri[t]]) row.push([ri[t], rv[t]]);
  return row.sort((x, y) => x[0] - y[0]);
}
