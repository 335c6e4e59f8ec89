/**
 * The status of a variable in a simplex basis: basic, or nonbasic at one of its bounds or at zero.
 * Its own module so that the simplex state and the PRICE passes (pivot-row.ts) share the values
 * without importing each other.
 */
export const BASIC = 0;
export const AT_LOWER = 1;
export const AT_UPPER = 2;
/** A free nonbasic variable, held at zero. */
export const AT_ZERO = 3;

/**
 * The nonbasic status a variable with bounds [lo, up] takes: the preferred bound when it is finite,
 * else a finite bound (the lower one first), else zero. The simplex state's and the basis check's
 * (verify-basis.ts) one rule.
 */
export function nonbasicStatusOf(lo: number, up: number, preferred: number): number {
  if (preferred === AT_UPPER && up < Infinity) return AT_UPPER;
  if (preferred === AT_LOWER && lo > -Infinity) return AT_LOWER;
  if (lo > -Infinity) return AT_LOWER;
  if (up < Infinity) return AT_UPPER;
  return AT_ZERO;
}
