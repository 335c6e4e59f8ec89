import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LuFactor } from "../src/lu.js";
import { Reach } from "../src/reach.js";
import { Rng } from "../src/rng.js";

/** A random sparse nonsingular m×m matrix, column-wise (a shuffled dominant diagonal plus noise). */
function randomColumns(m: number, perColumn: number, rng: Rng): Map<number, number>[] {
  const perm = Array.from({ length: m }, (_, i) => i);
  for (let i = m - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  return perm.map((d) => {
    const col = new Map<number, number>([[d, 2 + rng.next() * 3]]);
    for (let t = 0; t < perColumn; t++) col.set(rng.int(m), rng.next() * 2 - 1);
    return col;
  });
}

function csc(cols: Map<number, number>[]) {
  const start = new Int32Array(cols.length + 1);
  const index: number[] = [];
  const value: number[] = [];
  cols.forEach((c, j) => {
    for (const [i, v] of [...c].sort((a, b) => a[0] - b[0])) {
      index.push(i);
      value.push(v);
    }
    start[j + 1] = index.length;
  });
  return { start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/** A sparse vector of `count` random entries: dense values and its (possibly repeating) index list. */
function sparseVector(m: number, count: number, rng: Rng): { v: Float64Array; list: Int32Array } {
  const v = new Float64Array(m);
  const list = new Int32Array(count);
  for (let c = 0; c < count; c++) {
    const i = rng.int(m);
    v[i] = rng.next() * 2 - 1 || 1;
    list[c] = i;
  }
  return { v, list };
}

/** max |a − b| ≤ 1e-12·max(1, max |b|). */
function expectClose(a: Float64Array, b: Float64Array): void {
  let scale = 1;
  let diff = 0;
  for (let i = 0; i < b.length; i++) {
    scale = Math.max(scale, Math.abs(b[i]!));
    diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
  }
  expect(diff).toBeLessThanOrEqual(1e-12 * scale);
}

const support = (v: Float64Array) => [...v.keys()].filter((i) => v[i] !== 0);

/** Hyper-sparse and dense results agree to 1e-12 relative, and each list is exactly its result's support. */
function expectAgree(hyper: Float64Array, hyperList: number[], dense: Float64Array, denseList: number[]): void {
  expectClose(hyper, dense);
  expect([...hyperList].sort((a, b) => a - b)).toEqual(support(hyper));
  expect([...denseList].sort((a, b) => a - b)).toEqual(support(dense));
}

/**
 * Two factors of the same matrix, one forced hyper-sparse and one dense, taken through the same
 * Forrest–Tomlin updates: every FTRAN, paired FTRAN and BTRAN of sparse right-hand sides agrees.
 * With `mixed`, the first factor switches between hyper-sparse and dense solves at random, so that a
 * spike saved by one kind of FTRAN is replaced by the other's (the hyper-sparse FTRAN writes only its
 * reached rows over a cleared spike).
 */
function runCase(seed: number, m: number, perColumn: number, updates: number, mixed = false): void {
  const rng = new Rng(seed);
  const cols = randomColumns(m, perColumn, rng);
  const { start, index, value } = csc(cols);
  const hyper = new LuFactor(m);
  const dense = new LuFactor(m);
  hyper.hyperMode = "always";
  dense.hyperMode = "never";
  hyper.factorize(start, index, value);
  dense.factorize(start, index, value);
  const listH = new Int32Array(m);
  const listD = new Int32Array(m);
  for (let u = 0; u <= updates; u++) {
    if (mixed) hyper.hyperMode = rng.int(2) === 0 ? "always" : "never";
    const b = sparseVector(m, 1 + rng.int(4), rng);
    const xh = b.v.slice();
    const xd = b.v.slice();
    const nh = hyper.ftran(xh, false, listH, b.list, b.list.length);
    const nd = dense.ftran(xd, false, listD, b.list, b.list.length);
    expectAgree(xh, [...listH.subarray(0, nh)], xd, [...listD.subarray(0, nd)]);

    const c = sparseVector(m, 1 + rng.int(3), rng);
    const yh = c.v.slice();
    const yd = c.v.slice();
    const mh = hyper.btran(yh, listH, c.list, c.list.length);
    const md = dense.btran(yd, listD, c.list, c.list.length);
    expectAgree(yh, [...listH.subarray(0, mh)], yd, [...listD.subarray(0, md)]);
    // BTRAN lists its rows in increasing order either way
    expect([...listH.subarray(0, mh)]).toEqual(support(yh));

    // the entering column and a unit DSE right-hand side, paired; then the basis change
    const entering = sparseVector(m, 1 + rng.int(3), rng);
    const r0 = rng.int(m);
    entering.v[r0] = 5;
    const enteringList = Int32Array.from([...entering.list, r0]);
    const other = sparseVector(m, 1, rng);
    const ah = entering.v.slice();
    const ad = entering.v.slice();
    const oh = other.v.slice();
    const od = other.v.slice();
    const otherListH = new Int32Array(m);
    const otherListD = new Int32Array(m);
    const kh = hyper.ftranPair(ah, listH, oh, enteringList, enteringList.length, other.list, 1, otherListH);
    const kd = dense.ftranPair(ad, listD, od, enteringList, enteringList.length, other.list, 1, otherListD);
    expectAgree(ah, [...listH.subarray(0, kh)], ad, [...listD.subarray(0, kd)]);
    expectAgree(oh, [...otherListH.subarray(0, hyper.otherCount)], od, [...otherListD.subarray(0, dense.otherCount)]);
    if (u === updates) break;
    let r = 0;
    for (let i = 1; i < m; i++) if (Math.abs(ad[i]!) > Math.abs(ad[r]!)) r = i;
    expect(hyper.update(ah, r)).toBe(true);
    expect(dense.update(ad, r)).toBe(true);
  }
}

describe("jaos hyper-sparse solves", () => {
  it("match the dense solves to 1e-12 relative, with exact nonzero lists, through updates (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 25 }),
        (seed, m, perColumn, updates) => runCase(seed, m, perColumn, updates),
      ),
      { numRuns: 60, seed: 20261128 },
    );
  });

  it("match when hyper-sparse and dense solves alternate between updates (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 25 }),
        (seed, m, perColumn, updates) => runCase(seed, m, perColumn, updates, true),
      ),
      { numRuns: 60, seed: 20261129 },
    );
  });

  it("match on larger very sparse bases (the Kennington regime)", () => {
    for (const seed of [3, 17]) runCase(seed, 1500, 1, 40);
  });

  it("reach in topological order: every node before its successors", () => {
    // a DAG on 6 nodes: 0→2, 0→3, 2→4, 3→4, 4→5; 1 is isolated
    const start = Int32Array.from([0, 2, 2, 3, 4, 5, 5]);
    const length = Int32Array.from([2, 0, 1, 1, 1, 0]);
    const key = Int32Array.from([2, 3, 4, 4, 5]);
    const reach = new Reach(6);
    const top = reach.search(Int32Array.from([0, 0]), 2, null, start, length, key);
    const order = [...reach.topo.subarray(top)];
    expect(order.sort()).toEqual([0, 2, 3, 4, 5]);
    const at = new Map([...reach.topo.subarray(top)].map((v, i) => [v, i]));
    for (const [u, v] of [
      [0, 2],
      [0, 3],
      [2, 4],
      [3, 4],
      [4, 5],
    ])
      expect(at.get(u)!).toBeLessThan(at.get(v)!);
  });
});
