/** Small numeric helpers of the search (mip.ts). */

/** The elementwise maximum of two vectors of one length. */
export function maxOf(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, j) => Math.max(v, b[j]!));
}

/** The elementwise minimum of two vectors of one length. */
export function minOf(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, j) => Math.min(v, b[j]!));
}

/** The value, or undefined when it is infinite (an option that is absent rather than infinite). */
export function finiteOrUndefined(v: number): number | undefined {
  return Number.isFinite(v) ? v : undefined;
}
