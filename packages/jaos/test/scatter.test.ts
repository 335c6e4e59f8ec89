import { describe, expect, it } from "vitest";
import { addMultiple, subtractMultiple, subtractMultiplePair } from "../src/scatter.js";
import { seededGenerator } from "./support.js";

/** Random vector entries: mixed magnitudes, some exact zeros, both signed zeros. */
function randomVector(rng: ReturnType<typeof seededGenerator>, size: number): Float64Array {
  return Float64Array.from({ length: size }, () => {
    const k = rng.int(0, 9);
    if (k === 0) return 0;
    if (k === 1) return -0;
    return (rng.next() - 0.5) * 10 ** rng.int(-8, 8);
  });
}

/** Bit-for-bit equality, telling −0 from +0. */
function sameBits(a: Float64Array, b: Float64Array): boolean {
  return a.every((v, i) => Object.is(v, b[i]));
}

describe("jaos scatter loops unrolled by four", () => {
  it("give the rolled loops' results bit for bit, for every length and with repeated indices", () => {
    const rng = seededGenerator(29);
    for (let trial = 0; trial < 400; trial++) {
      const size = 1 + rng.int(0, 12);
      const length = rng.int(0, 11);
      const from = rng.int(0, 3);
      // repeated indices on some trials (the solves never repeat one, but the result must not depend on it)
      const index = Int32Array.from({ length: from + length }, () => rng.int(0, size - 1));
      const value = randomVector(rng, from + length);
      const v = (rng.next() - 0.5) * 10 ** rng.int(-4, 4);
      const w = (rng.next() - 0.5) * 10 ** rng.int(-4, 4);
      const y0 = randomVector(rng, size);
      const z0 = randomVector(rng, size);
      const to = from + length;

      const ySub = y0.slice();
      subtractMultiple(ySub, index, value, from, to, v);
      const yRef = y0.slice();
      for (let k = from; k < to; k++) yRef[index[k]!]! -= value[k]! * v;
      expect(sameBits(ySub, yRef)).toBe(true);

      const yPair = y0.slice();
      const zPair = z0.slice();
      subtractMultiplePair(yPair, zPair, index, value, from, to, v, w);
      const zRef = z0.slice();
      const yRef2 = y0.slice();
      for (let k = from; k < to; k++) {
        yRef2[index[k]!]! -= value[k]! * v;
        zRef[index[k]!]! -= value[k]! * w;
      }
      expect(sameBits(yPair, yRef2)).toBe(true);
      expect(sameBits(zPair, zRef)).toBe(true);

      const yAdd = y0.slice();
      addMultiple(yAdd, index, value, from, to, v);
      const yRef3 = y0.slice();
      for (let k = from; k < to; k++) yRef3[index[k]!]! += v * value[k]!;
      expect(sameBits(yAdd, yRef3)).toBe(true);
    }
  });
});
