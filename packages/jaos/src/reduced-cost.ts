/**
 * Reduced-cost fixing. At an LP optimum z with reduced costs d, moving a nonbasic column j away from
 * the bound it sits at by t raises the LP value by at least |d_j|·t (the other nonbasic terms of
 * cᵀx = z + Σ d_j (x_j − x̄_j) are nonnegative under dual feasibility). A solution worth finding lies
 * below the pruning level, so t ≤ (level − z)/|d_j|, rounded down for integer columns. Valid wherever
 * that LP is a relaxation: the node's subtree, or everywhere for the root LP.
 */
import { AT_LOWER, AT_UPPER } from "./simplex-state.js";

export interface BoundChange {
  col: number;
  lower: number;
  upper: number;
}

/** Reduced costs below this count as zero (the dual feasibility tolerance). */
const MIN_REDUCED_COST = 1e-7;

/**
 * Tightened bounds for the integer columns, given the current bounds, the LP's reduced costs and
 * basis statuses, and room = level − z ≥ 0. Only real tightenings are returned.
 */
export function reducedCostBounds(
  integer: Uint8Array,
  lower: Float64Array,
  upper: Float64Array,
  d: Float64Array,
  status: Int8Array,
  room: number,
): BoundChange[] {
  const out: BoundChange[] = [];
  if (!(room >= 0) || !Number.isFinite(room)) return out;
  for (let j = 0; j < integer.length; j++) {
    if (!integer[j]) continue;
    const lo = lower[j];
    const up = upper[j];
    if (lo === up) continue;
    const dj = d[j];
    if (status[j] === AT_LOWER && dj > MIN_REDUCED_COST && Number.isFinite(lo)) {
      const newUp = lo + Math.floor(room / dj + 1e-9);
      if (newUp < up) out.push({ col: j, lower: lo, upper: newUp });
    } else if (status[j] === AT_UPPER && dj < -MIN_REDUCED_COST && Number.isFinite(up)) {
      const newLo = up - Math.floor(room / -dj + 1e-9);
      if (newLo > lo) out.push({ col: j, lower: newLo, upper: up });
    }
  }
  return out;
}
