/**
 * A dual proof (a conflict): the inequality Σ coef_j x_j ≤ rhs that the multipliers of an infeasible or
 * bound-exceeding node LP aggregate from the model's rows (and, for a bound, the objective cut
 * cᵀx ≤ cutoff). Any multipliers aggregate rows into an inequality every feasible point satisfies, so
 * the result holds for every point the search still wants, at every node, whatever the node's box:
 *
 *   Σ_i w_i a_iᵀx ≥ ρ = Σ_i min(w_i·rowLower_i, w_i·rowUpper_i)   and   λ·cᵀx ≤ λ·cutoff
 *   give   (λc − Aᵀw)ᵀx ≤ λ·cutoff − ρ.
 *
 * (w = the Farkas multipliers with λ = 0, or the LP's duals y with λ = 1: then λc − Aᵀw is the reduced
 * cost vector of safe-bound.ts.) The box only decides whether the inequality proves the node empty and
 * which columns it keeps: a column whose node bound on its favourable side (the side that minimises its
 * term) is still the global one contributes nothing to that proof, so its term is replaced by that
 * global bound and it leaves the row; what remains are the columns the node's decisions moved.
 *
 * Safety, as for safe-bound.ts: every coefficient is computed in floating point with an allowance
 * γ·(λ|c_j| + Σ_i|w_i a_ij|) (γ = (k+2)·u), taken at the largest |x_j| of the global box; the sums that
 * make rhs carry (n+2)·u of their magnitude; and rhs is loosened by the rows' feasibility tolerance
 * aggregated with the same multipliers (Σ|w_i|·1e-6·max(1, |side_i|)), so a point that breaks each row
 * by at most its tolerance (as node-propagation.ts keeps) still satisfies the proof. A column in the
 * aggregation with no finite bound in the global box (its allowance could not be bounded) rejects the
 * proof.
 */
import type { LpModel } from "./model.js";

const UNIT_ROUNDOFF = 2 ** -53;
/** Headroom on each error estimate for the rounding of the estimate itself. */
const ALLOWANCE_MARGIN = 1.01;
/** Row feasibility tolerance, scaled by max(1, |side|) (as node-propagation.ts). */
const ROW_TOL = 1e-6;
/**
 * A coefficient against an infinite bound within this of 0, relative to λ|c_j| + Σ_i|w_i a_ij|, counts as
 * 0: the departure from exactness that the node's own pruning took (safe-bound.ts's ZERO_REDUCED_COST,
 * certificates.ts's cancellation), so the proof holds wherever that pruning did.
 */
const ZERO_COEFFICIENT = 1e-9;

/** a·b with 0·∞ = 0 (a zero coefficient adds nothing, whatever the bound). */
function product(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : a * b;
}

/** Σ value[k]·x[index[k]] ≤ rhs. */
export interface Conflict {
  index: Int32Array;
  value: Float64Array;
  rhs: number;
}

export interface ProofBoxes {
  /** The node's column bounds. */
  nodeLower: Float64Array;
  nodeUpper: Float64Array;
  /** Bounds every point the search still wants satisfies (the root's, with the rows' implied ones). */
  globalLower: Float64Array;
  globalUpper: Float64Array;
}

/**
 * The proof of multipliers `w` (with the objective cut cᵀx + offset ≤ `objectiveLimit` when it is finite),
 * reduced to the columns the node moved; null when it keeps more than `maxLength` columns or, after its
 * allowances, no longer proves the node empty.
 */
export function dualProof(model: LpModel, w: Float64Array, objectiveLimit: number, boxes: ProofBoxes, maxLength: number): Conflict | null {
  const { a, cost, rowLower, rowUpper } = model;
  const lambda = Number.isFinite(objectiveLimit) ? 1 : 0;
  const mult = new Float64Array(model.rows);
  let rho = 0;
  let magnitude = 0;
  let terms = 0;
  let rowAllowance = 0;
  for (let i = 0; i < model.rows; i++) {
    const y = w[i]!;
    if (y === 0 || !Number.isFinite(y)) continue;
    const side = y > 0 ? rowLower[i]! : rowUpper[i]!;
    // a multiplier on an infinite side adds nothing valid: left out (any multipliers aggregate validly)
    if (!Number.isFinite(side)) continue;
    mult[i] = y;
    rho += y * side;
    magnitude += Math.abs(y * side);
    terms++;
    rowAllowance += Math.abs(y) * ROW_TOL * Math.max(1, Math.abs(side));
  }
  let rhs = lambda ? objectiveLimit - model.offset : 0;
  if (lambda) magnitude += Math.abs(rhs);
  rhs -= rho;
  let allowance = rowAllowance;
  const index: number[] = [];
  const value: number[] = [];
  const { nodeLower, nodeUpper, globalLower, globalUpper } = boxes;
  for (let j = 0; j < model.cols; j++) {
    let coef = lambda * cost[j]!;
    let size = Math.abs(coef);
    let k = 0;
    for (let p = a.start[j]!; p < a.start[j + 1]!; p++) {
      const y = mult[a.index[p]!]!;
      if (y === 0) continue;
      const t = y * a.value[p]!;
      coef -= t;
      size += Math.abs(t);
      k++;
    }
    if (size === 0) continue;
    const err = (k + 2) * UNIT_ROUNDOFF * ALLOWANCE_MARGIN * size;
    const gl = globalLower[j]!;
    const gu = globalUpper[j]!;
    // a coefficient of certain sign whose favourable node bound is still the global one leaves the row
    const moved = coef - err > 0 ? nodeLower[j]! > gl : coef + err < 0 ? nodeUpper[j]! < gu : false;
    if (!moved) {
      // its true term is at least the least product of a coefficient within the allowance and a global bound
      let least = Math.min(product(coef - err, gl), product(coef - err, gu), product(coef + err, gl), product(coef + err, gu));
      // against an infinite bound, a coefficient that is 0 up to the residual of the solve counts as 0 (safe-bound.ts)
      if (least === -Infinity && Math.abs(coef) <= ZERO_COEFFICIENT * size) least = 0;
      if (!Number.isFinite(least)) return null;
      rhs -= least;
      magnitude += Math.abs(least);
      terms++;
      continue;
    }
    const reach = Math.max(Math.abs(gl), Math.abs(gu));
    if (!Number.isFinite(reach)) return null;
    allowance += err * reach;
    if (index.length >= maxLength) return null;
    index.push(j);
    value.push(coef);
  }
  const safeRhs = rhs + allowance + (terms + 2) * UNIT_ROUNDOFF * ALLOWANCE_MARGIN * magnitude * 2;
  if (!Number.isFinite(safeRhs)) return null;
  // it must still prove the node empty: the least activity over the node's box above the right-hand side
  let least = 0;
  for (let k = 0; k < index.length; k++) {
    const j = index[k]!;
    const c = value[k]!;
    least += c * (c > 0 ? nodeLower[j]! : nodeUpper[j]!);
  }
  if (!(least > safeRhs)) return null;
  return { index: Int32Array.from(index), value: Float64Array.from(value), rhs: safeRhs };
}
