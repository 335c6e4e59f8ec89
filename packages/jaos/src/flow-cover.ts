/**
 * Lifted cover cuts of the mixed-binary knapsack Σ a_j z_j ≤ b + s (z binary, s ≥ 0, a_j > 0): the
 * single-node flow set of a fixed-charge row once its flows are replaced through their variable upper
 * bounds x_j = u_j·y_j − x'_j (Marchand & Wolsey 1999; Gu, Nemhauser & Savelsbergh 1999). mir.ts builds
 * that row (aggregation, bound substitution, complementation) and maps the cut back.
 *
 * A cover C has Σ_C a_j = b + λ with λ > 0. Then
 *
 *     Σ_{j∈C} min(a_j, λ)·z_j + Σ_{j∉C} φ(a_j)·z_j − s ≤ Σ_{j∈C} min(a_j, λ) − λ
 *
 * holds on the set: with the h largest cover items a_1 ≥ … ≥ a_r > λ and A_h = a_1 + … + a_h,
 * φ(w) = h·λ on [A_h, A_{h+1} − λ], h·λ + w − (A_{h+1} − λ) on [A_{h+1} − λ, A_{h+1}], and
 * r·λ + w − A_r beyond A_r. φ is the exact lifting function of the cover inequality (the least
 * Σ_C min(a,λ)(1 − z) − λ + s over the points where the lifted item uses capacity w) and it is
 * superadditive (Marchand & Wolsey), so every item outside the cover is lifted at once, independent of
 * the order (sequence-independent lifting).
 */

export interface KnapsackCover {
  /** Coefficient of each item's z in the cut, in the order of the input. */
  coef: Float64Array;
  /** The cut is Σ coef_j·z_j − s ≤ rhs. */
  rhs: number;
  /** Σ coef_j·z*_j − s* − rhs at the LP point (> 0: violated). */
  violation: number;
}

/** Smallest λ kept: a cover barely exceeding b gives a cut with no strength and poor numerics. */
const MIN_LAMBDA = 1e-6;

/**
 * The most violated lifted cover cut of Σ a_j z_j ≤ b + s at the LP point (z*, s*) among the covers a
 * greedy choice by z* and by (1 − z*)/a gives; null when no cover exists or none is violated.
 */
export function liftedKnapsackCover(a: ArrayLike<number>, zLp: ArrayLike<number>, b: number, sLp: number): KnapsackCover | null {
  const n = a.length;
  if (!(b > 0)) return null;
  let total = 0;
  for (let j = 0; j < n; j++) total += a[j]!;
  if (total <= b * (1 + 1e-9) + MIN_LAMBDA) return null;
  const order = Array.from({ length: n }, (_, j) => j);
  const byValue = order.slice().sort((p, q) => zLp[q]! - zLp[p]! || a[q]! - a[p]! || p - q);
  const byRatio = order.slice().sort((p, q) => (1 - zLp[p]!) / a[p]! - (1 - zLp[q]!) / a[q]! || p - q);
  let best: KnapsackCover | null = null;
  for (const sequence of [byValue, byRatio]) {
    const inCover = new Uint8Array(n);
    let sum = 0;
    for (const j of sequence) {
      if (sum > b) break;
      inCover[j] = 1;
      sum += a[j]!;
    }
    // items of a ≥ λ left out once the sum passes b would only grow λ; drop cover items at z* = 0 that are not needed
    for (let k = sequence.length - 1; k >= 0; k--) {
      const j = sequence[k]!;
      if (inCover[j] && zLp[j]! <= 1e-9 && sum - a[j]! > b) {
        inCover[j] = 0;
        sum -= a[j]!;
      }
    }
    const cut = coverCut(a, zLp, b, sLp, inCover);
    if (cut && (!best || cut.violation > best.violation)) best = cut;
  }
  return best && best.violation > 0 ? best : null;
}

/** The lifted cover cut of a given cover (exported for the tests). */
export function coverCut(a: ArrayLike<number>, zLp: ArrayLike<number>, b: number, sLp: number, inCover: Uint8Array): KnapsackCover | null {
  const n = a.length;
  let sum = 0;
  for (let j = 0; j < n; j++) if (inCover[j]) sum += a[j]!;
  const lambda = sum - b;
  if (!(lambda > MIN_LAMBDA * Math.max(1, Math.abs(b)))) return null;
  const big: number[] = [];
  for (let j = 0; j < n; j++) if (inCover[j] && a[j]! > lambda) big.push(a[j]!);
  big.sort((p, q) => q - p);
  const partial = new Float64Array(big.length + 1);
  for (let h = 0; h < big.length; h++) partial[h + 1] = partial[h]! + big[h]!;
  const phi = (w: number): number => {
    const r = big.length;
    for (let h = 0; h < r; h++) {
      if (w <= partial[h + 1]! - lambda) return h * lambda;
      if (w <= partial[h + 1]!) return h * lambda + w - (partial[h + 1]! - lambda);
    }
    return r * lambda + w - partial[r]!;
  };
  const coef = new Float64Array(n);
  let rhs = -lambda;
  let lhs = -sLp;
  for (let j = 0; j < n; j++) {
    if (inCover[j]) {
      coef[j] = Math.min(a[j]!, lambda);
      rhs += coef[j]!;
    } else coef[j] = phi(a[j]!);
    lhs += coef[j]! * zLp[j]!;
  }
  return { coef, rhs, violation: lhs - rhs };
}
