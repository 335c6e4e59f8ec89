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
