/**
 * Dominated columns by bounds on the row duals (LPs only; the argument is LP duality). In the
 * minimising sense a dual solution y gives column j the reduced cost d_j = c_j − Σ_i a_ij·y_i, and
 * every dual feasible y lies in a box:
 *  - by the row sides: a row without an upper side has y_i ≥ 0, one without a lower side y_i ≤ 0;
 *  - by every column k with an infinite bound (a "source"): upper bound infinite means d_k ≥ 0, i.e.
 *    Σ_i a_ik·y_i ≤ c_k, so each of its rows r gets a_rk·y_r ≤ c_k − min over the box of the other
 *    terms (lower bound infinite: the same with ≥ and the maximum), like a primal activity bound.
 * The box is tightened to a fixed point under a work budget counted in entries visited (`budget`,
 * deterministic; by default what is left of the presolve's, which each call draws on). A column whose reduced cost then cannot be negative anywhere in the box is fixed at
 * its lower bound, one whose reduced cost cannot be positive at its upper bound:
 *  - the reduced LP's optimal duals y* lie in the box whenever every source is still in it (the box
 *    is derived from their dual constraints and the row sides alone), so d_j(y*) has the sign x_j's
 *    bound needs and the fixed column, nonbasic at that bound, keeps the postsolved basis dual
 *    feasible ("weak" domination: d_j ≥ 0 is enough, no optimum is lost). For the same reason the
 *    two LPs have the same dual feasible set, so neither verdict, infeasible or unbounded, changes;
 *  - a column that served as a source is never fixed: the box may rest on its own dual constraint,
 *    and without it the argument is circular. (A strict sign, "every optimum has it at that bound",
 *    is no excuse: where the LP is unbounded there is no optimum, and fixing such a column made a seeded
 *    model of presolve-parallel-columns.test.ts bounded, its box crept up to 5e8 through three sources
 *    with no dual solution at all.)
 */
import type { Presolver } from "./presolve.js";

/** Entries the propagation may visit over one presolve (`Presolver.budget`), at most. */
export const DUAL_BOUND_BUDGET = 4_000_000;
/** A reduced cost within this (relative to the cost) of the sign its bound needs still fixes the column. */
const WEAK = 1e-9;
/** A dual bound replaces the old one only when it moves by more than this (relative): no creeping. */
const MIN_STEP = 1e-6;
/** Dual bounds beyond this magnitude carry more roundoff than information and are not recorded. */
const HUGE = 1e9;

/** The dual box of the active rows, tightened through the sources; null when it is empty (no dual solution). */
export interface DualBox {
  lower: Float64Array;
  upper: Float64Array;
  /** 1 for a column whose dual constraint tightened some bound */
  source: Uint8Array;
  spent: number;
}

export function dualBox(p: Presolver, budget = p.budget.dualBounds): DualBox | null {
  const lower = new Float64Array(p.m);
  const upper = new Float64Array(p.m);
  for (let i = 0; i < p.m; i++) {
    if (!p.rowActive[i]) continue;
    lower[i] = p.rowUpper[i] === Infinity ? 0 : -Infinity;
    upper[i] = p.rowLower[i] === -Infinity ? 0 : Infinity;
  }
  const source = new Uint8Array(p.n);
  const queued = new Uint8Array(p.n);
  const queue: number[] = [];
  const isSource = (j: number) => p.colActive[j] === 1 && p.colCount[j] > 0 && (p.colUpper[j] === Infinity || p.colLower[j] === -Infinity);
  for (let j = 0; j < p.n; j++) {
    if (isSource(j)) {
      queue.push(j);
      queued[j] = 1;
    }
  }
  // the shortest columns first: a singleton's bound is final at once, and a longer column met later
  // finds its rows' bounds already tight and often tightens nothing (so stays free to be fixed)
  queue.sort((a, b) => p.colCount[a] - p.colCount[b] || a - b);
  let spent = 0;
  let empty = false;
  // a tighter bound on y_r: the sources in row r may now give more
  const tighten = (r: number, value: number, isUpper: boolean, by: number) => {
    if (!Number.isFinite(value) || Math.abs(value) > HUGE) return;
    const old = isUpper ? upper[r] : lower[r];
    const step = MIN_STEP * Math.max(1, Math.abs(value));
    if (isUpper ? !(value < old - step) : !(value > old + step)) return;
    if (isUpper) upper[r] = value;
    else lower[r] = value;
    source[by] = 1;
    if (lower[r] > upper[r]) {
      if (lower[r] > upper[r] + step) empty = true;
      else if (isUpper) upper[r] = lower[r];
      else lower[r] = upper[r];
    }
    const ri = p.mat.rowIdx[r];
    spent += ri.length;
    for (let t = 0; t < ri.length; t++) {
      const k = ri[t];
      if (!queued[k] && k !== by && isSource(k)) {
        queued[k] = 1;
        queue.push(k);
      }
    }
  };
  for (let head = 0; head < queue.length && spent < budget && !empty; head++) {
    const k = queue[head]!;
    queued[k] = 0;
    const ci = p.mat.colIdx[k];
    const cv = p.mat.colVal[k];
    spent += 2 * ci.length;
    const c = p.cost[k];
    // upper bound infinite: Σ a·y ≤ c, each row against the least the others can add
    if (p.colUpper[k] === Infinity) {
      const sum = termRange(p, ci, cv, lower, upper, false);
      for (let t = 0; t < ci.length && !empty; t++) {
        const r = ci[t];
        if (!p.rowActive[r]) continue;
        const a = cv[t];
        const rest = restOf(sum, a > 0 ? a * lower[r] : a * upper[r], -Infinity);
        if (rest === -Infinity) continue;
        tighten(r, (c - rest) / a, a > 0, k);
      }
    }
    // lower bound infinite: Σ a·y ≥ c, against the most the others can add
    if (p.colLower[k] === -Infinity && !empty) {
      const sum = termRange(p, ci, cv, lower, upper, true);
      for (let t = 0; t < ci.length && !empty; t++) {
        const r = ci[t];
        if (!p.rowActive[r]) continue;
        const a = cv[t];
        const rest = restOf(sum, a > 0 ? a * upper[r] : a * lower[r], Infinity);
        if (rest === Infinity) continue;
        tighten(r, (c - rest) / a, a < 0, k);
      }
    }
  }
  return empty ? null : { lower, upper, source, spent };
}

/** The least (or, `most`, the largest) Σ a·y of a column over the box: its finite part and its count of infinite terms. */
function termRange(p: Presolver, ci: number[], cv: number[], lower: Float64Array, upper: Float64Array, most: boolean): { finite: number; infinite: number } {
  let finite = 0;
  let infinite = 0;
  for (let t = 0; t < ci.length; t++) {
    const r = ci[t];
    if (!p.rowActive[r]) continue;
    const a = cv[t];
    const term = a > 0 === most ? a * upper[r] : a * lower[r];
    if (Number.isFinite(term)) finite += term;
    else infinite++;
  }
  return { finite, infinite };
}

/** The range's extreme without one of its terms; `side` is that extreme's infinity (−∞ for a least sum). */
function restOf(sum: { finite: number; infinite: number }, term: number, side: number): number {
  if (Number.isFinite(term)) return sum.infinite > 0 ? side : sum.finite - term;
  return sum.infinite > 1 ? side : sum.finite;
}

/** Fixes the columns the dual box dominates (see the file's comment); returns the count fixed. */
export function dominatedColumns(p: Presolver, budget = p.budget.dualBounds): number {
  const box = dualBox(p, budget);
  p.budget.dualBounds = Math.max(0, p.budget.dualBounds - (box?.spent ?? budget));
  if (!box) return 0;
  const { lower, upper, source } = box;
  let fixed = 0;
  for (let j = 0; j < p.n; j++) {
    if (!p.colActive[j] || p.colCount[j] === 0 || source[j]) continue;
    // range of Σ a_ij·y_i over the box
    let max = 0;
    let min = 0;
    const ci = p.mat.colIdx[j];
    const cv = p.mat.colVal[j];
    for (let t = 0; t < ci.length; t++) {
      const i = ci[t];
      if (!p.rowActive[i]) continue;
      const a = cv[t];
      max += a > 0 ? a * upper[i] : a * lower[i];
      min += a > 0 ? a * lower[i] : a * upper[i];
    }
    const c = p.cost[j];
    const tol = WEAK * Math.max(1, Math.abs(c));
    // d_j = c − Σ a·y lies in [c − max, c − min]
    const atLower = Number.isFinite(p.colLower[j]) && c - max >= -tol;
    const atUpper = Number.isFinite(p.colUpper[j]) && c - min <= tol;
    if (atLower && (!atUpper || Math.abs(p.colLower[j]) <= Math.abs(p.colUpper[j]))) p.fixColumn(j, p.colLower[j]);
    else if (atUpper) p.fixColumn(j, p.colUpper[j]);
    else continue;
    fixed++;
  }
  return fixed;
}
