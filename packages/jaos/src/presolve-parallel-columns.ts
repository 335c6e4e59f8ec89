/**
 * Parallel columns (LPs only; presolve.ts runs it when the model has no integer column). Column k is
 * parallel to column j when a_k = s·a_j over the active rows. Moving x_k by t and x_j by −s·t then
 * leaves every row unchanged and moves the objective by δ·t, δ = c_k − s·c_j ≠ 0: where x_j can absorb
 * the move without end (its bound on that side infinite), every optimum has x_k at the bound δ's sign
 * names, and x_k is fixed there (symmetrically for x_j). The fixed column's reduced cost s·d_j + δ has
 * the sign its bound needs, so the "fix" postsolve's nonbasic status is dual feasible as it stands.
 * Columns with δ = 0 (the same column up to the scale) are not merged: HiGHS does merge them (pds-02:
 * 2,606 columns), but merging raised the dual simplex's iterations on the pilot family, nesm, model3
 * and model7 by 13–17 % (docs/bench/jaos.md, "wide set: presolve").
 */
import type { Presolver } from "./presolve.js";
import { KeyGroups } from "./presolve-matrix.js";

/** A cost difference must clear this (relative) before one column dominates the other. */
const DOMINANCE = 1e-7;
/** Entries must agree to this (relative) for the columns to count as parallel. */
const SAME_ENTRY = 1e-12;

/** Directions compared per group of columns with the same hash of rows. */
const MAX_DIRECTIONS = 8;

/** Fixes the dominated one of two parallel columns; returns the count fixed. */
export function parallelColumns(p: Presolver): number {
  const groups = new KeyGroups(p.n);
  for (let j = 0; j < p.n; j++) {
    if (!p.colActive[j] || p.colCount[j] === 0 || p.integer[j]) continue;
    groups.add(rowPatternHash(p, j), j);
  }
  const { start, member } = groups.shared();
  let removed = 0;
  for (let group = 0; group + 1 < start.length; group++) {
    // a group shares a hash of its rows, not necessarily one direction: each column is compared with
    // the group's first columns of each direction found so far (a few, so no group costs quadratic time)
    const bases: { col: number; at: Map<number, number> }[] = [];
    for (let g = start[group]; g < start[group + 1]; g++) {
      const k = member[g];
      if (p.infeasible) return removed;
      if (!p.colActive[k]) continue;
      let matched = false;
      for (const base of bases) {
        if (!p.colActive[base.col]) continue;
        const s = scaleTo(p, k, base.at);
        if (s === 0) continue;
        matched = true;
        if (reduce(p, base.col, k, s)) removed++;
        break;
      }
      if (!matched && bases.length < MAX_DIRECTIONS) bases.push({ col: k, at: entriesByRow(p, k) });
    }
  }
  return removed;
}

/** Columns j and k with a_k = s·a_j: the dominated one fixed, if either is. True when one was. */
function reduce(p: Presolver, j: number, k: number, s: number): boolean {
  const delta = p.cost[k] - s * p.cost[j];
  const scale = Math.max(Math.abs(p.cost[k]), Math.abs(s * p.cost[j]));
  if (Math.abs(delta) <= DOMINANCE * Math.max(1, scale)) return false;
  // x_k down (δ > 0) or up (δ < 0) with x_j moving by s·t the other way: possible without end when
  // x_j's bound in that direction is infinite
  const jUpOpen = p.colUpper[j] === Infinity;
  const jDownOpen = p.colLower[j] === -Infinity;
  const kUpOpen = p.colUpper[k] === Infinity;
  const kDownOpen = p.colLower[k] === -Infinity;
  if (delta > 0 && (s > 0 ? jUpOpen : jDownOpen) && !kDownOpen) p.fixColumn(k, p.colLower[k]);
  else if (delta < 0 && (s > 0 ? jDownOpen : jUpOpen) && !kUpOpen) p.fixColumn(k, p.colUpper[k]);
  // the same with the roles swapped: a_j = (1/s)·a_k, δ' = c_j − c_k/s = −δ/s
  else if (-delta / s > 0 && (s > 0 ? kUpOpen : kDownOpen) && !jDownOpen) p.fixColumn(j, p.colLower[j]);
  else if (-delta / s < 0 && (s > 0 ? kDownOpen : kUpOpen) && !jUpOpen) p.fixColumn(j, p.colUpper[j]);
  else return false;
  return true;
}

function rowPatternHash(p: Presolver, j: number): number {
  const ci = p.mat.colIdx[j];
  let sum = 0;
  let mix = 0;
  for (let t = 0; t < ci.length; t++) {
    if (!p.rowActive[ci[t]]) continue;
    const h = Math.imul(ci[t] + 1, 0x9e3779b1);
    sum = (sum + h) | 0;
    mix ^= h >>> 7;
  }
  return (Math.imul(sum, 31) ^ mix ^ p.colCount[j]) | 0;
}

function entriesByRow(p: Presolver, j: number): Map<number, number> {
  const at = new Map<number, number>();
  const ci = p.mat.colIdx[j];
  const cv = p.mat.colVal[j];
  for (let t = 0; t < ci.length; t++) if (p.rowActive[ci[t]]) at.set(ci[t], cv[t]);
  return at;
}

/** The s with a_k = s·a_base over the active rows (base's entries by row in `baseAt`), or 0 if none. */
function scaleTo(p: Presolver, k: number, baseAt: Map<number, number>): number {
  const ci = p.mat.colIdx[k];
  const cv = p.mat.colVal[k];
  let s = 0;
  let count = 0;
  for (let t = 0; t < ci.length; t++) {
    if (!p.rowActive[ci[t]]) continue;
    const b = baseAt.get(ci[t]);
    if (b === undefined) return 0;
    if (s === 0) s = cv[t] / b;
    else if (Math.abs(cv[t] - s * b) > SAME_ENTRY * Math.abs(cv[t])) return 0;
    count++;
  }
  return count === baseAt.size ? s : 0;
}
