/**
 * Coefficient tightening (strengthening) of the integer columns of an inequality row, for MILPs.
 *
 * Written as s·aᵀx ≤ B (s = 1 for a row with only an upper side B = rowUpper, s = −1 for one with only
 * a lower side, B = −rowLower), with M the row's finite maximum activity and c = s·a_k the coefficient
 * of an integer column x_k ∈ [l, u]:
 *  - c > 0: at x_k ≤ u − 1 the row's activity is at most M − c; when that is below B by δ, the row
 *    is redundant there, and c − δ, B − δ·u describe the same integer points: at x_k = u the row is
 *    unchanged, at x_k ≤ u − 1 the new row is still implied (its slack grows by (c − (c − δ))·(u − 1 − x_k)
 *    ≥ 0 over M − c ≤ B − δ), and for every x in the box the new row is the stronger one (it is the
 *    old one minus δ·(u − x_k) ≥ 0), so every point it keeps satisfies the original row;
 *  - c < 0: symmetrically at x_k ≥ l + 1, with c + δ and B + δ·l.
 * The LP relaxation gets tighter (x ≤ M·y with x ≤ U < M becomes x ≤ U·y: the "big-M" case), the
 * integer points stay. δ is taken a little smaller than computed (any 0 ≤ δ' ≤ δ is valid), so
 * roundoff in M can only weaken the step, unless it is an integer to within 1e-12 of the row's scale
 * (integer data, computed exactly). Rows with two finite sides are left alone.
 *
 * Nothing is recorded for postsolve: the columns and rows stay; a point of the reduced model
 * satisfies the original row (the stronger-row argument above), and the duals of a MILP's rows are
 * not reported.
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
  const act = p.activity(i);
  if ((upperSide ? act.maxInf : act.minInf) > 0) return 0;
  let maxAct = upperSide ? act.max : -act.min;
  let side = upperSide ? up : -lo;
  const ri = p.mat.rowIdx[i];
  const rv = p.mat.rowVal[i];
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
  if (upperSide) p.rowUpper[i] = side;
  else p.rowLower[i] = -side;
  return changed;
}
