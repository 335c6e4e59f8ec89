/**
 * The scatter loops of the solves and of PRICE (y[index[k]] ∓= value[k]·v over one column, row or eta),
 * unrolled by four. V8 does not unroll loops, and on these short runs the loop's own compare, branch and
 * counter were a quarter of a scatter's time (dense PRICE on a 4,400-row, 70 %-dense ρ: 2.2 against
 * 3.0 ns an entry). Each entry is still its own load, multiply, subtract and store, in index order, so
 * the results are the rolled loop's bit for bit, also when an index repeats. Small enough for V8 to
 * inline at every call site; all callers pass Float64Array/Int32Array (one shape per parameter).
 */

/** y[index[k]] −= value[k]·v for k in [from, to). */
export function subtractMultiple(y: Float64Array, index: Int32Array, value: Float64Array, from: number, to: number, v: number): void {
  let k = from;
  for (; k + 3 < to; k += 4) {
    const i0 = index[k];
    const i1 = index[k + 1];
    const i2 = index[k + 2];
    const i3 = index[k + 3];
    y[i0] -= value[k] * v;
    y[i1] -= value[k + 1] * v;
    y[i2] -= value[k + 2] * v;
    y[i3] -= value[k + 3] * v;
  }
  for (; k < to; k++) y[index[k]] -= value[k] * v;
}

/** `subtractMultiple` on two vectors at once (each entry of index and value read once for both). */
export function subtractMultiplePair(
  y: Float64Array,
  z: Float64Array,
  index: Int32Array,
  value: Float64Array,
  from: number,
  to: number,
  vy: number,
  vz: number,
): void {
  let k = from;
  for (; k + 3 < to; k += 4) {
    const i0 = index[k];
    const u0 = value[k];
    y[i0] -= u0 * vy;
    z[i0] -= u0 * vz;
    const i1 = index[k + 1];
    const u1 = value[k + 1];
    y[i1] -= u1 * vy;
    z[i1] -= u1 * vz;
    const i2 = index[k + 2];
    const u2 = value[k + 2];
    y[i2] -= u2 * vy;
    z[i2] -= u2 * vz;
    const i3 = index[k + 3];
    const u3 = value[k + 3];
    y[i3] -= u3 * vy;
    z[i3] -= u3 * vz;
  }
  for (; k < to; k++) {
    const i = index[k];
    const u = value[k];
    y[i] -= u * vy;
    z[i] -= u * vz;
  }
}

/** y[index[k]] += r·value[k] for k in [from, to). */
export function addMultiple(y: Float64Array, index: Int32Array, value: Float64Array, from: number, to: number, r: number): void {
  let k = from;
  for (; k + 3 < to; k += 4) {
    const i0 = index[k];
    const i1 = index[k + 1];
    const i2 = index[k + 2];
    const i3 = index[k + 3];
    y[i0] += r * value[k];
    y[i1] += r * value[k + 1];
    y[i2] += r * value[k + 2];
    y[i3] += r * value[k + 3];
  }
  for (; k < to; k++) y[index[k]] += r * value[k];
}
