/**
 * The RINS neighbourhood (rins.ts): the integer columns where the LP point agrees with the incumbent
 * are fixed, the rest keep their bounds; too small a share fixed, or all of it, gives no sub-MILP.
 */
import { describe, expect, it } from "vitest";
import { RINS_MIN_FIXED_SHARE, rinsNeighbourhood } from "../src/rins.js";

const f64 = (v: number[]) => Float64Array.from(v);

describe("rinsNeighbourhood", () => {
  it("fixes the integer columns on which the LP point and the incumbent agree, and nothing else", () => {
    const integer = Uint8Array.from([1, 1, 1, 0, 1]);
    const lower = f64([0, 0, 0, 0, 0]);
    const upper = f64([1, 1, 5, 10, 1]);
    const lp = f64([1, 0.5, 3 + 1e-8, 2.5, 0]);
    const incumbent = f64([1, 1, 3, 7, 1]);
    const hood = rinsNeighbourhood(integer, lower, upper, lp, incumbent)!;
    expect(hood).not.toBeNull();
    expect(hood.free).toBe(4);
    expect(hood.fixed).toBe(2);
    expect(Array.from(hood.colLower)).toEqual([1, 0, 3, 0, 0]);
    expect(Array.from(hood.colUpper)).toEqual([1, 1, 3, 10, 1]);
    // the inputs are not changed
    expect(Array.from(lower)).toEqual([0, 0, 0, 0, 0]);
  });

  it("does not count columns fixed by their bounds, and gives no neighbourhood when everything would be fixed", () => {
    const integer = Uint8Array.from([1, 1, 1]);
    const lower = f64([1, 0, 0]);
    const upper = f64([1, 1, 1]);
    expect(rinsNeighbourhood(integer, lower, upper, f64([1, 0, 1]), f64([1, 0, 1]))).toBeNull();
    const hood = rinsNeighbourhood(integer, lower, upper, f64([1, 0, 0.4]), f64([1, 0, 1]))!;
    expect(hood.free).toBe(2);
    expect(hood.fixed).toBe(1);
  });

  it("gives no neighbourhood when fewer than the minimum share would be fixed", () => {
    const n = 10;
    const integer = new Uint8Array(n).fill(1);
    const lower = new Float64Array(n);
    const upper = new Float64Array(n).fill(1);
    const incumbent = new Float64Array(n).fill(1);
    const agreeing = Math.ceil(RINS_MIN_FIXED_SHARE * n) - 1;
    const lp = new Float64Array(n).fill(0.5);
    for (let j = 0; j < agreeing; j++) lp[j] = 1;
    expect(rinsNeighbourhood(integer, lower, upper, lp, incumbent)).toBeNull();
    lp[agreeing] = 1;
    expect(rinsNeighbourhood(integer, lower, upper, lp, incumbent)?.fixed).toBe(agreeing + 1);
  });

  it("never fixes a column at an incumbent value outside its current bounds", () => {
    const integer = Uint8Array.from([1, 1, 1, 1]);
    const lower = f64([2, 0, 0, 0]);
    const upper = f64([4, 1, 1, 1]);
    const hood = rinsNeighbourhood(integer, lower, upper, f64([1, 1, 1, 1]), f64([1, 1, 1, 0]))!;
    expect(hood.colLower[0]).toBe(2);
    expect(hood.colUpper[0]).toBe(4);
    expect(hood.fixed).toBe(2);
  });
});
