import { describe, expect, it } from "vitest";
import { FactorCache } from "../src/factor-cache.js";
import { LuFactor } from "../src/lu.js";
import { Rng } from "../src/rng.js";

/** A random sparse m×m matrix, column-wise (entry lists by row), with a shuffled strong diagonal. */
function randomColumns(m: number, density: number, rng: Rng): number[][][] {
  const perm = Array.from({ length: m }, (_, i) => i);
  for (let i = m - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  return perm.map((p) => {
    const entries = new Map<number, number>([[p, 1 + rng.next() * 3]]);
    for (let i = 0; i < m; i++) if (rng.next() < density) entries.set(i, rng.next() * 2 - 1);
    return [...entries.entries()].sort((a, b) => a[0] - b[0]);
  });
}

function csc(cols: number[][][]) {
  const start = new Int32Array(cols.length + 1);
  const index: number[] = [];
  const value: number[] = [];
  cols.forEach((c, j) => {
    for (const [i, v] of c) {
      index.push(i);
      value.push(v);
    }
    start[j + 1] = index.length;
  });
  return { start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/**
 * The same Forrest–Tomlin updates (seeded) on both factors, then FTRAN and BTRAN of the same vectors:
 * every result bit for bit equal, and the same accepted updates.
 */
function expectSameThroughUpdates(a: LuFactor, b: LuFactor, m: number, seed: number): void {
  const rng = new Rng(seed);
  for (let u = 0; u < 30; u++) {
    const dense = new Float64Array(m);
    for (let i = 0; i < m; i++) if (rng.next() < 0.1) dense[i] = rng.next() * 2 - 1;
    dense[rng.int(m)] += 5;
    const alphaA = dense.slice();
    const alphaB = dense.slice();
    a.ftran(alphaA, true);
    b.ftran(alphaB, true);
    expect(alphaB).toEqual(alphaA);
    let r = 0;
    for (let i = 1; i < m; i++) if (Math.abs(alphaA[i]) > Math.abs(alphaA[r])) r = i;
    expect(b.update(alphaB, r)).toBe(a.update(alphaA, r));
    const x = Float64Array.from({ length: m }, () => rng.next() - 0.5);
    const y = x.slice();
    const xb = x.slice();
    const yb = x.slice();
    a.ftran(x);
    b.ftran(xb);
    a.btran(y);
    b.btran(yb);
    expect(xb).toEqual(x);
    expect(yb).toEqual(y);
  }
}

/** Seeded Forrest–Tomlin updates on one factor. */
function updateAtRandom(lu: LuFactor, m: number, seed: number): void {
  const rng = new Rng(seed);
  for (let u = 0; u < 30; u++) {
    const alpha = new Float64Array(m);
    for (let i = 0; i < m; i++) if (rng.next() < 0.1) alpha[i] = rng.next() * 2 - 1;
    alpha[rng.int(m)] += 5;
    lu.ftran(alpha, true);
    let r = 0;
    for (let i = 1; i < m; i++) if (Math.abs(alpha[i]) > Math.abs(alpha[r])) r = i;
    lu.update(alpha, r);
  }
}

describe("jaos factor cache", () => {
  it("restored factors equal a new factorisation of the same basis, bit for bit, through updates", () => {
    const rng = new Rng(11);
    for (const [m, density] of [
      [30, 0.1],
      [120, 0.03],
    ] as const) {
      const first = randomColumns(m, density, rng);
      // a denser second basis grows the U pools past what the first one laid out
      const second = randomColumns(m, 3 * density, rng);
      const reused = new LuFactor(m);
      const f1 = csc(first);
      const saved = reused.saveFactors(reused.factorize(f1.start, f1.index, f1.value));
      const f2 = csc(second);
      reused.factorize(f2.start, f2.index, f2.value);
      updateAtRandom(reused, m, 5); // moves the reused factor's state on (row etas, U fill)
      const stats = reused.restoreFactors(saved);
      const fresh = new LuFactor(m);
      const freshStats = fresh.factorize(f1.start, f1.index, f1.value);
      expect(stats).toEqual(freshStats);
      expectSameThroughUpdates(fresh, reused, m, 9);
    }
  });

  it("gives back a dependent basis's repair as factorize reported it", () => {
    const rng = new Rng(4);
    const m = 25;
    const cols = randomColumns(m, 0.1, rng);
    cols[6] = cols[2]!.map(([i, v]) => [i, -3 * v]);
    cols[9] = [];
    const f = csc(cols);
    const lu = new LuFactor(m);
    const stats = lu.factorize(f.start, f.index, f.value);
    expect(stats.deficientPositions.length).toBe(2);
    const saved = lu.saveFactors(stats);
    const other = csc(randomColumns(m, 0.2, rng));
    lu.factorize(other.start, other.index, other.value);
    expect(lu.restoreFactors(saved)).toEqual(stats);
    const fresh = new LuFactor(m);
    fresh.factorize(f.start, f.index, f.value);
    expectSameThroughUpdates(fresh, lu, m, 2);
  });

  it("finds an entry by its exact column order only, and drops the least recently used", () => {
    const cache = new FactorCache(2);
    const lu = new LuFactor(3);
    const f = csc([[[0, 1]], [[1, 1]], [[2, 1]]]);
    const factors = lu.saveFactors(lu.factorize(f.start, f.index, f.value));
    const a = Int32Array.from([0, 4, 5]);
    const b = Int32Array.from([1, 4, 5]);
    const c = Int32Array.from([2, 4, 5]);
    cache.add(a, factors);
    cache.add(b, factors);
    expect(cache.find(Int32Array.from([4, 0, 5]))).toBeNull(); // same set, another order: another matrix
    expect(cache.find(a)).toBe(factors); // a is now the most recent
    cache.add(c, factors); // b goes
    expect(cache.find(b)).toBeNull();
    expect(cache.find(a)).toBe(factors);
    expect(cache.find(c)).toBe(factors);
    expect(cache.hits).toBe(3);
    expect(cache.misses).toBe(2);
  });
});
