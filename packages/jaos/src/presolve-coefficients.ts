/**
 * Coefficient tightening (strengthening) of the integer columns of an inequality row, for MILPs.
 *
 * Written as s·aᵀx ≤ B (s = 1 for a row with only an upper side B = rowUpper, s = −1 for one with only
 * a lower side, B = −rowLower), with M the row's finite maximum activity and c = s·a_k the coefficient
 * of an integer column x_k ∈ [l, u]:
 *  - c > 0: with x_k ≤ u − 1 the activity is at most M − c; when that is below B by δ > 0, the row
 *    c − δ, B − δ·u has the same integer points. Its left side is the old one plus δ·(u − x_k) ≥ 0, so
 *    over the box it is the stronger row (every point it keeps satisfies the original), equal at
 *    x_k = u; at x_k ≤ u − 1 its left side is at most M − (c − δ)·(u − x_k) ≤ M − c + δ = B, as
 *    c − δ > 0 (the row is not redundant), so it cuts off no point there;
 *  - c < 0: symmetrically about l, with c + δ and B + δ·l.
 * The LP relaxation gets tighter (x ≤ M·y with x ≤ U < M becomes x ≤ U·y: the big-M case), the
 * integer points stay. δ is taken a little smaller than computed (any 0 ≤ δ' ≤ δ is valid), so
 * roundoff in M can only weaken the step, unless it is an integer to within 1e-12 of the row's scale
 * (integer data, computed exactly: the coefficients stay integers for the gcd rounding and the covers).
 * A continuous column without a bound in the direction of the maximum (a flow x ≥ 0 in x ≤ M·y) takes
 * the bound one of its other rows implies, which then becomes its own bound (`impliedBounds`). Rows
 * with two finite sides are left alone.
 *
 * Nothing is recorded for postsolve: the columns and rows stay; a point of the reduced model
 * satisfies the original row (the stronger-row argument), and the duals of a MILP's rows are not
 * reported.
 */
import type { Presolver } from "./presolve.js";

/** Relative roundoff allowance taken off δ. */
const SAFETY = 1e-9;
/** A tightening smaller than this (relative to the coefficient) is not worth a pass. */
const MIN_GAIN = 1e-6;

/** Tightens the integer coefficients of row i; returns the number changed. */
export function tightenCoefficients(p: Presolver, i: number): number {
  const lo = p.rowLower[i];
  const up = p.rowUpper[i];
  const upperSide = Number.isFinite(up);
  if (upperSide === Number.isFinite(lo)) return 0;
  const s = upperSide ? 1 : -1;
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  const implied = impliedBounds(p, i, s);
  if (implied === null) return 0;
  const act = p.activity(i);
  let maxAct = upperSide ? act.max : -act.min;
  for (const [, bound, k] of implied) maxAct += s * rv[k] * bound;
  let side = upperSide ? up : -lo;
  let changed = 0;
  for (let k = 0; k < ri.length; k++) {
    const j = ri[k];
    if (!p.colActive[j] || !p.integer[j]) continue;
    const c = s * rv[k];
    const bound = c > 0 ? p.colUpper[j] : p.colLower[j];
    const gap = p.colUpper[j] - p.colLower[j];
    if (!Number.isFinite(bound) || gap < 1 - 1e-9) continue;
    const scale = Math.max(1, Math.abs(side), Math.abs(maxAct), Math.abs(c * bound), p.rowMagnitude[i]);
    const exact = side - (maxAct - Math.abs(c));
    // integer data computes δ exactly: keep it integral so the row's coefficients stay integers (gcd
    // rounding, covers); otherwise allow for roundoff
    const delta = Math.abs(exact - Math.round(exact)) <= 1e-12 * scale ? Math.round(exact) : exact - SAFETY * scale;
    if (delta <= MIN_GAIN * Math.max(1, Math.abs(c))) continue;
    // the row is not redundant (activity checks ran first), so δ < |c| and the sign stays
    if (delta >= Math.abs(c) * (1 - 1e-9)) continue;
    const next = c > 0 ? c - delta : c + delta;
    const shift = c > 0 ? delta * bound : -delta * bound;
    side -= shift;
    maxAct -= shift;
    p.mat.set(i, j, s * next);
    p.noteMagnitude(i, shift);
    changed++;
  }
  if (changed === 0) return 0;
  // the new row is equivalent to the old one only inside the implied bounds: they become the columns' own
  for (const [j, bound, k] of implied) {
    if (s * rv[k] > 0) p.colUpper[j] = bound;
    else p.colLower[j] = bound;
    p.tightened++;
  }
  if (upperSide) p.rowUpper[i] = side;
  else p.rowLower[i] = -side;
  return changed;
}

/** Most continuous columns a row may lack a finite bound for in the direction of its maximum activity. */
const MAX_IMPLIED = 2;
/** Most entries read in the other rows of those columns, per row. */
const IMPLIED_WORK = 2000;

/**
 * For the continuous columns of row i (read as s·aᵀx ≤ B) whose bound in the direction of the row's
 * maximum activity is infinite, the bound implied by one of their other rows, as [column, bound,
 * position in row i]; null when a column has none (or the row has no integer column to tighten, or too
 * many such columns). Any point of the model satisfies an implied bound, so fixing it as the column's
 * own bound keeps every point; it is taken 1e-9 of its scale looser unless it is an integer to within
 * roundoff.
 */
function impliedBounds(p: Presolver, i: number, s: number): [number, number, number][] | null {
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
  const out: [number, number, number][] = [];
  let hasInteger = false;
  let work = 0;
  for (let k = 0; k < ri.length; k++) {
    const j = ri[k];
    if (!p.colActive[j]) continue;
    if (p.integer[j]) hasInteger = true;
    const up = s * rv[k] > 0;
    if (Number.isFinite(up ? p.colUpper[j] : p.colLower[j])) continue;
    if (p.integer[j] || out.length === MAX_IMPLIED) return null;
    let best = up ? Infinity : -Infinity;
    const ci = p.mat.colIdx[j];
    const cv = p.mat.colVal[j];
    for (let t = 0; t < ci.length && work < IMPLIED_WORK; t++) {
      const r = ci[t];
      if (r === i || !p.rowActive[r]) continue;
      work += p.rowCount[r];
      const bound = rowImpliedBound(p, r, j, cv[t], up);
      if (up ? bound < best : bound > best) best = bound;
    }
    if (!Number.isFinite(best)) return null;
    out.push([j, best, k]);
  }
  return hasInteger ? out : null;
}

/** The upper (up) or lower bound row r implies for column j (coefficient a), ±∞ when none. */
function rowImpliedBound(p: Presolver, r: number, j: number, a: number, up: boolean): number {
  const act = p.activity(r);
  const [restMin, restMax] = p.restActivity(act, a, j);
  // a·x_j ∈ [rowLower − restMax, rowUpper − restMin]
  const hi = p.rowUpper[r] - restMin;
  const lo = p.rowLower[r] - restMax;
  const fromUpper = a > 0 === up;
  const side = fromUpper ? hi : lo;
  if (!Number.isFinite(side)) return up ? Infinity : -Infinity;
  const value = side / a;
  const terms = fromUpper ? [p.rowUpper[r], restMin] : [p.rowLower[r], restMax];
  const scale = Math.max(1, Math.abs(terms[0]), Math.abs(terms[1]), p.rowMagnitude[r]) / Math.abs(a);
  const whole = Math.round(value);
  if (Math.abs(value - whole) <= 1e-12 * scale) return whole;
  return up ? value + 1e-9 * scale : value - 1e-9 * scale;
}
