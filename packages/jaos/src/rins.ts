/**
 * Relaxation-induced neighbourhood search (RINS; Danna, Rothberg & Le Pape 2005): the integer columns
 * on which an LP point and the incumbent agree are fixed at that common value, and the rest of the
 * model is searched as a small MILP of its own (mip.ts runs it with a node limit). Where the
 * relaxation and the best known point agree, better points are likely to agree as well; the
 * sub-MILP explores the columns where they differ.
 *
 * This module decides the neighbourhood: which columns to fix, and whether enough of them are fixed
 * for the sub-MILP to be much smaller than the whole (a sub-MILP fixing a few columns costs as much as
 * the search it is meant to shortcut).
 */

/** At least this share of the integer columns must be fixed (the rule of SCIP's and HiGHS's RINS). */
export const RINS_MIN_FIXED_SHARE = 0.3;
/** An LP value this close to the incumbent's integer value agrees with it. */
const AGREEMENT = 1e-6;

export interface Neighbourhood {
  colLower: Float64Array;
  colUpper: Float64Array;
  /** Integer columns fixed by the agreement (columns already fixed by their bounds not counted). */
  fixed: number;
  /** Integer columns not already fixed by their bounds. */
  free: number;
}

/**
 * The bounds of the RINS sub-MILP within [lower, upper]: each integer column whose LP value `lp` is
 * within 1e-6 of the incumbent's (integral) value `incumbent` fixed at it. Null when fewer than
 * `RINS_MIN_FIXED_SHARE` of the free integer columns would be fixed, or when all of them would (the
 * sub-MILP would only repeat the incumbent).
 */
export function rinsNeighbourhood(
  integer: Uint8Array,
  lower: Float64Array,
  upper: Float64Array,
  lp: ArrayLike<number>,
  incumbent: ArrayLike<number>,
): Neighbourhood | null {
  const colLower = lower.slice();
  const colUpper = upper.slice();
  let fixed = 0;
  let free = 0;
  for (let j = 0; j < integer.length; j++) {
    if (!integer[j] || lower[j] === upper[j]) continue;
    free++;
    const v = Math.round(incumbent[j]!);
    if (Math.abs(lp[j]! - v) > AGREEMENT || v < lower[j]! || v > upper[j]!) continue;
    colLower[j] = v;
    colUpper[j] = v;
    fixed++;
  }
  if (free === 0 || fixed === free || fixed < RINS_MIN_FIXED_SHARE * free) return null;
  return { colLower, colUpper, fixed, free };
}
