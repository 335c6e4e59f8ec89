/**
 * Pairwise dominated columns (LPs only; presolve.ts runs it with the other whole-matrix reductions).
 * Column j dominates column k when c_j < c_k and moving x_j up by t and x_k down by t never hurts a row:
 * per active row, a_ij − a_ik ≤ 0 where only the upper side is finite, ≥ 0 where only the lower side is,
 * = 0 where both are (equations, ranges); free rows take anything. The move then lowers the objective
 * by t·(c_k − c_j) > 0 and keeps every row feasible, so no optimum has both x_k above its lower bound
 * and x_j below its upper: with x_j's upper bound infinite, x_k sits at its (finite) lower bound in every
 * optimum, and with x_k's lower bound infinite, x_j sits at its (finite) upper bound. The column is
 * fixed there. The parallel columns of presolve-parallel-columns.ts are the case a_k = s·a_j; this is
 * the unscaled one with inequalities allowed to differ in the harmless direction.
 *
 * Postsolve is the "fix" one, nonbasic at that bound, and its sign is dual feasible as it stands: the
 * row duals' signs (y_i ≤ 0 on ≤ rows, ≥ 0 on ≥ rows, minimising) make Σ y_i·(a_ik − a_ij) ≤ 0, so
 * d_k − d_j ≥ c_k − c_j > 0; with x_j's upper bound infinite d_j ≥ 0 at an optimum, so d_k > 0 (x_k at
 * its lower bound); with x_k's lower bound infinite d_k ≤ 0, so d_j < 0 (x_j at its upper bound).
 *
 * Candidates: a dominator j must have an entry in every row where k has an entry it has to match or
 * exceed (an equation, a ≤ row where a_ik < 0, a ≥ row where a_ik > 0); the shortest such row of k lists
 * them. A column without such a row is not searched (every column would be a candidate). The work is
 * bounded by a count of entries compared (`PAIR_BUDGET`), so the outcome does not depend on the machine.
 */
import type { Presolver } from "./presolve.js";

/** Entries compared, in all, per call. */
export const PAIR_BUDGET = 4_000_000;
/** A cost difference must clear this (relative) before one column dominates the other. */
const DOMINANCE = 1e-7;
/** Entries closer than this (relative) are equal. */
const SAME_ENTRY = 1e-12;

/** Fixes the columns that others dominate; returns the count fixed. */
export function dominatedColumnPairs(p: Presolver, budget = PAIR_BUDGET): number {
  // k's entries by row (entryOf[i] valid where holds[i] === k + 1)
  const entryOf = new Float64Array(p.m);
  const holds = new Int32Array(p.m);
  const seen = new Int32Array(p.m);
  let stamp = 0;
  let spent = 0;
  let fixed = 0;
  for (let k = 0; k < p.n && spent < budget; k++) {
    if (!p.colActive[k] || p.colCount[k] === 0 || p.integer[k]) continue;
    const kLowerFinite = Number.isFinite(p.colLower[k]);
    const kLowerOpen = p.colLower[k] === -Infinity;
    const ci = p.mat.colIdx[k];
    const cv = p.mat.colVal[k];
    let anchor = -1;
    for (let t = 0; t < ci.length; t++) {
      const i = ci[t];
      if (!p.rowActive[i]) continue;
      entryOf[i] = cv[t];
      holds[i] = k + 1;
      if (mustMatch(p, i, cv[t]) && (anchor < 0 || p.rowCount[i] < p.rowCount[anchor])) anchor = i;
    }
    if (anchor < 0) continue;
    const ri = p.mat.rowIdx[anchor];
    for (let s = 0; s < ri.length && spent < budget; s++) {
      const j = ri[s];
      if (j === k || !p.colActive[j] || p.integer[j]) continue;
      const fixK = kLowerFinite && p.colUpper[j] === Infinity;
      const fixJ = kLowerOpen && Number.isFinite(p.colUpper[j]);
      if (!fixK && !fixJ) continue;
      if (!(p.cost[j] < p.cost[k] - DOMINANCE * Math.max(1, Math.abs(p.cost[j]), Math.abs(p.cost[k])))) continue;
      spent += p.colCount[j] + p.colCount[k];
      if (!dominates(p, j, k, entryOf, holds, seen, ++stamp)) continue;
      if (fixK) {
        p.fixColumn(k, p.colLower[k]);
        fixed++;
        break;
      }
      p.fixColumn(j, p.colUpper[j]);
      fixed++;
    }
  }
  return fixed;
}

/** Whether a dominator must have an entry in row i where the dominated column has `a`. */
function mustMatch(p: Presolver, i: number, a: number): boolean {
  const lowerFinite = p.rowLower[i] > -Infinity;
  const upperFinite = p.rowUpper[i] < Infinity;
  if (lowerFinite && upperFinite) return true;
  return (upperFinite && a < 0) || (lowerFinite && a > 0);
}

/** Whether x_j up and x_k down by the same amount keeps every active row feasible (k's entries in entryOf). */
function dominates(p: Presolver, j: number, k: number, entryOf: Float64Array, holds: Int32Array, seen: Int32Array, stamp: number): boolean {
  const ci = p.mat.colIdx[j];
  const cv = p.mat.colVal[j];
  for (let t = 0; t < ci.length; t++) {
    const i = ci[t];
    if (!p.rowActive[i]) continue;
    seen[i] = stamp;
    if (!harmless(p, i, cv[t], holds[i] === k + 1 ? entryOf[i] : 0)) return false;
  }
  const ki = p.mat.colIdx[k];
  const kv = p.mat.colVal[k];
  for (let t = 0; t < ki.length; t++) {
    const i = ki[t];
    if (p.rowActive[i] && seen[i] !== stamp && !harmless(p, i, 0, kv[t])) return false;
  }
  return true;
}

/** Row i's activity moves by a_j − a_k per unit of the move: allowed when it cannot leave the row's sides. */
function harmless(p: Presolver, i: number, aj: number, ak: number): boolean {
  const d = aj - ak;
  if (Math.abs(d) <= SAME_ENTRY * Math.max(Math.abs(aj), Math.abs(ak))) return true;
  const lowerFinite = p.rowLower[i] > -Infinity;
  const upperFinite = p.rowUpper[i] < Infinity;
  if (lowerFinite && upperFinite) return false;
  if (upperFinite) return d < 0;
  if (lowerFinite) return d > 0;
  return true;
}
