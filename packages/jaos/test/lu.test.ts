import { describe, expect, it } from "vitest";
import { LuFactor } from "../src/lu.js";
import { Elimination } from "../src/markowitz.js";
import { Rng } from "../src/rng.js";
import { cscFromTriplets, toRowWise } from "../src/sparse.js";
import { plainFactors } from "./support.js";

/** A random sparse m×m matrix, column-wise, made nonsingular by a shuffled diagonal-like pattern. */
function randomMatrix(m: number, density: number, rng: Rng): number[][][] {
  const perm = Array.from({ length: m }, (_, i) => i);
  for (let i = m - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const cols: number[][][] = [];
  for (let j = 0; j < m; j++) {
    const entries = new Map<number, number>();
    entries.set(perm[j]!, 1 + rng.next() * 3);
    for (let i = 0; i < m; i++) if (rng.next() < density) entries.set(i, rng.next() * 2 - 1);
    cols.push([...entries.entries()].sort((a, b) => a[0] - b[0]));
  }
  return cols;
}

function toCsc(cols: number[][][]) {
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

function multiply(cols: number[][][], x: Float64Array): Float64Array {
  const y = new Float64Array(cols.length);
  cols.forEach((c, j) => c.forEach(([i, v]) => (y[i] += v * x[j])));
  return y;
}

function multiplyT(cols: number[][][], y: Float64Array): Float64Array {
  return Float64Array.from(cols.map((c) => c.reduce((s, [i, v]) => s + v * y[i], 0)));
}

const maxDiff = (a: Float64Array, b: Float64Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

/** FTRAN of b and BTRAN of c (b unless given) with the factors of `cols`: both residuals within `tol`; returns [x, y]. */
function expectSolves(lu: LuFactor, cols: number[][][], b: Float64Array, tol: number, c: Float64Array = b): [Float64Array, Float64Array] {
  const x = b.slice();
  lu.ftran(x);
  expect(maxDiff(multiply(cols, x), b)).toBeLessThan(tol);
  const y = c.slice();
  lu.btran(y);
  expect(maxDiff(multiplyT(cols, y), c)).toBeLessThan(tol);
  return [x, y];
}

describe("jaos LU", () => {
  it("solves B x = b and Bᵀ y = c on random sparse matrices", () => {
    const rng = new Rng(7);
    for (const [m, density] of [
      [1, 0],
      [5, 0.3],
      [40, 0.05],
      [200, 0.02],
      [300, 0.01],
    ] as const) {
      const cols = randomMatrix(m, density, rng);
      const { start, index, value } = toCsc(cols);
      const lu = new LuFactor(m);
      const stats = lu.factorize(start, index, value);
      expect(stats.deficientPositions).toEqual([]);
      const b = Float64Array.from({ length: m }, () => rng.next() - 0.5);
      expectSolves(
        lu,
        cols,
        b,
        1e-9,
        Float64Array.from({ length: m }, () => rng.next() - 0.5),
      );
    }
  });

  it("solves bases whose elimination steps remove the pivot row from long columns with none, a few or many other rows", () => {
    // A permuted triangular part (steps with no or few other rows in the pivot column) plus a few
    // long columns: the elimination takes each of its column-removal paths, kept sparse throughout.
    const rng = new Rng(11);
    for (const m of [60, 150]) {
      const cols: number[][][] = [];
      for (let j = 0; j < m; j++) {
        const entries = new Map<number, number>();
        entries.set(j, 1 + rng.next() * 3);
        const below = j % 7 === 0 ? 6 : j % 3 === 0 ? rng.int(4) : 0;
        for (let t = 0; t < below && j + 1 < m; t++) entries.set(j + 1 + rng.int(m - j - 1), rng.next() * 2 - 1);
        if (j % 11 === 5) for (let i = 0; i < m; i++) if (rng.next() < 0.6) entries.set(i, rng.next() * 2 - 1);
        cols.push([...entries.entries()].sort((a, b) => a[0] - b[0]));
      }
      const { start, index, value } = toCsc(cols);
      const lu = new LuFactor(m);
      const stats = lu.factorize(start, index, value, { denseFraction: 2 });
      expect(stats.deficientPositions).toEqual([]);
      expectSolves(
        lu,
        cols,
        Float64Array.from({ length: m }, () => rng.next() - 0.5),
        1e-9,
        Float64Array.from({ length: m }, () => rng.next() - 0.5),
      );
    }
  });

  it("refuses an update without the entering column's spike", () => {
    const lu = new LuFactor(3);
    const cols = [[[0, 1]], [[1, 1]], [[2, 1]]];
    const { start, index, value } = toCsc(cols);
    lu.factorize(start, index, value);
    const alpha = Float64Array.from([1, 1, 1]);
    lu.ftran(alpha); // not kept
    expect(lu.update(alpha, 0)).toBe(false);
  });

  it("reports dependent columns and factors the repaired basis", () => {
    const rng = new Rng(3);
    const m = 30;
    const cols = randomMatrix(m, 0.1, rng);
    cols[7] = cols[3]!.map(([i, v]) => [i, 2 * v]); // column 7 = 2 × column 3
    cols[12] = []; // an empty column
    const { start, index, value } = toCsc(cols);
    const lu = new LuFactor(m);
    const stats = lu.factorize(start, index, value);
    expect(stats.deficientPositions.length).toBe(2);
    expect(stats.deficientPositions).toContain(12);
    stats.deficientPositions.forEach((k, n) => (cols[k] = [[stats.replacementRows[n]!, 1]]));
    const b = Float64Array.from({ length: m }, () => rng.next());
    expectSolves(lu, cols, b, 1e-9);
  });

  it("pivots on a row singleton below the threshold of its column first (triangular part), and solves exactly", () => {
    // row 0 = [1e-3, 0, 0]: 1e-3 < 0.1 · max|column 0| = 0.1, but the row has no other entry, so the
    // elimination changes no other row; no column is a singleton, so the pick is the row singleton's
    const cols = [
      [
        [0, 1e-3],
        [1, 1],
        [2, 1],
      ],
      [
        [1, 1],
        [2, 2],
      ],
      [
        [1, 2],
        [2, 1],
      ],
    ];
    const { start, index, value } = toCsc(cols);
    const elimination = new Elimination(3, start, index, value).run();
    expect([elimination.pivotRow[0], elimination.pivotCol[0], elimination.pivotValue[0]]).toEqual([0, 0, 1e-3]);
    const lu = new LuFactor(3);
    lu.factorize(start, index, value);
    const b = Float64Array.from([1, 2, 3]);
    expectSolves(lu, cols, b, 1e-12);
  });

  it("keeps solving correctly through Forrest–Tomlin updates", () => {
    const rng = new Rng(11);
    const m = 60;
    const cols = randomMatrix(m, 0.05, rng);
    const { start, index, value } = toCsc(cols);
    const lu = new LuFactor(m);
    lu.factorize(start, index, value);
    for (let u = 0; u < 40; u++) {
      const entering: number[][] = [];
      for (let i = 0; i < m; i++) if (rng.next() < 0.1) entering.push([i, rng.next() * 2 - 1]);
      entering.push([rng.int(m), 5]);
      const dense = new Float64Array(m);
      for (const [i, v] of entering) dense[i] += v;
      const alpha = dense.slice();
      lu.ftran(alpha, true);
      let r = 0;
      for (let i = 1; i < m; i++) if (Math.abs(alpha[i]) > Math.abs(alpha[r])) r = i;
      expect(lu.update(alpha, r)).toBe(true);
      cols[r] = [...dense].map((v, i) => [i, v]).filter(([, v]) => v !== 0);
      const b = Float64Array.from({ length: m }, () => rng.next());
      expectSolves(lu, cols, b, 1e-8);
    }
  });
});

/** The positions of v's nonzeros, increasing. */
const support = (v: Float64Array) => [...v.keys()].filter((i) => v[i] !== 0);

describe("jaos LU nonzero lists", () => {
  it("FTRAN and BTRAN list exactly the nonzeros of their results (BTRAN's in increasing order), through updates", () => {
    const rng = new Rng(23);
    const m = 200;
    const cols = randomMatrix(m, 0.01, rng);
    const { start, index, value } = toCsc(cols);
    const lu = new LuFactor(m);
    lu.factorize(start, index, value);
    const list = new Int32Array(m);
    for (let u = 0; u < 30; u++) {
      // sparse right-hand sides: the simplex's unit vectors and columns
      const b = new Float64Array(m);
      const picks = 1 + rng.int(4);
      for (let t = 0; t < picks; t++) b[rng.int(m)] = rng.next() * 2 - 1;
      const x = b.slice();
      const nx = lu.ftran(x, false, list);
      expect(maxDiff(multiply(cols, x), b)).toBeLessThan(1e-9);
      expect([...list.subarray(0, nx)].sort((p, q) => p - q)).toEqual(support(x));
      const y = b.slice();
      const ny = lu.btran(y, list);
      expect(maxDiff(multiplyT(cols, y), b)).toBeLessThan(1e-9);
      expect([...list.subarray(0, ny)]).toEqual(support(y));
      // a basis change, so that later solves go through row etas
      const dense = new Float64Array(m);
      for (let i = 0; i < m; i++) if (rng.next() < 0.03) dense[i] = rng.next() * 2 - 1;
      dense[rng.int(m)] = 5;
      const alpha = dense.slice();
      const na = lu.ftran(alpha, true, list);
      expect([...list.subarray(0, na)].sort((p, q) => p - q)).toEqual(support(alpha));
      let r = 0;
      for (let i = 1; i < m; i++) if (Math.abs(alpha[i]) > Math.abs(alpha[r])) r = i;
      expect(lu.update(alpha, r)).toBe(true);
      cols[r] = [...dense].map((v, i) => [i, v]).filter(([, v]) => v !== 0);
    }
  });
});

describe("jaos LU paired FTRAN", () => {
  it("gives both results bit for bit as two separate FTRANs, lists both results' nonzeros and keeps col's spike for the update", () => {
    const rng = new Rng(31);
    const m = 150;
    const cols = randomMatrix(m, 0.02, rng);
    const { start, index, value } = toCsc(cols);
    const paired = new LuFactor(m);
    const single = new LuFactor(m);
    paired.factorize(start, index, value);
    single.factorize(start, index, value);
    const list = new Int32Array(m);
    const otherList = new Int32Array(m);
    for (let u = 0; u < 30; u++) {
      const col = new Float64Array(m);
      for (let i = 0; i < m; i++) if (rng.next() < 0.03) col[i] = rng.next() * 2 - 1;
      col[rng.int(m)] = 5;
      // the DSE vector is dense on some steps and a unit vector on others
      const other = new Float64Array(m);
      if (u % 2 === 0) for (let i = 0; i < m; i++) other[i] = rng.next() < 0.5 ? rng.next() - 0.5 : 0;
      else other[rng.int(m)] = 1;
      const colA = col.slice();
      const otherA = other.slice();
      const count = paired.ftranPair(colA, list, otherA, undefined, 0, undefined, 0, otherList);
      const colB = col.slice();
      const otherB = other.slice();
      single.ftran(colB, true);
      single.ftran(otherB);
      expect(colA).toEqual(colB);
      expect(otherA).toEqual(otherB);
      expect([...list.subarray(0, count)].sort((p, q) => p - q)).toEqual(support(colA));
      // the second result's nonzeros are listed too (the dual simplex clears τ through that list)
      expect([...otherList.subarray(0, paired.otherCount)].sort((p, q) => p - q)).toEqual(support(otherA));
      let r = 0;
      for (let i = 1; i < m; i++) if (Math.abs(colA[i]) > Math.abs(colA[r])) r = i;
      expect(paired.update(colA, r)).toBe(true);
      expect(single.update(colB, r)).toBe(true);
      cols[r] = [...col].map((v, i) => [i, v]).filter(([, v]) => v !== 0);
      const b = Float64Array.from({ length: m }, () => rng.next());
      const x = b.slice();
      paired.ftran(x);
      expect(maxDiff(multiply(cols, x), b)).toBeLessThan(1e-8);
    }
  });
});

/** A triangular part (slack-like columns and a chain) around a dense, well-conditioned nucleus. */
function denseNucleusMatrix(m: number, nucleus: number, rng: Rng): number[][][] {
  const cols: number[][][] = [];
  for (let j = 0; j < m; j++) {
    const entries = new Map<number, number>();
    if (j < m - nucleus) {
      entries.set(j, 1 + rng.next());
      if (j > 0 && rng.next() < 0.5) entries.set(rng.int(j), rng.next() - 0.5);
    } else {
      for (let i = m - nucleus; i < m; i++) if (rng.next() < 0.6) entries.set(i, rng.next() * 2 - 1);
      entries.set(j, nucleus / 2 + rng.next());
      for (let t = 0; t < 3; t++) entries.set(rng.int(m - nucleus), rng.next() - 0.5);
    }
    cols.push([...entries.entries()].sort((a, b) => a[0] - b[0]));
  }
  return cols;
}

const SPARSE_ONLY = { denseFraction: Number.POSITIVE_INFINITY };
const DENSE_AT_ONCE = { denseFraction: 0, denseMinRows: 1 };

describe("jaos LU dense kernel", () => {
  it("factorises a dense nucleus with the dense kernel by default, and its solves match the sparse path's to 1e-12", () => {
    const rng = new Rng(5);
    const m = 150;
    const cols = denseNucleusMatrix(m, 60, rng);
    const { start, index, value } = toCsc(cols);
    const byDefault = new Elimination(m, start, index, value).run();
    // the triangular part goes first, sparse; the rest once it is dense enough
    expect(byDefault.denseFrom).toBeGreaterThan(0);
    expect(byDefault.denseFrom).toBeLessThan(m);
    expect(new Elimination(m, start, index, value, SPARSE_ONLY).run().denseFrom).toBe(m);
    const b = Float64Array.from({ length: m }, () => rng.next() - 0.5);
    const solutions = [undefined, SPARSE_ONLY, DENSE_AT_ONCE].map((options) => {
      const lu = new LuFactor(m);
      expect(lu.factorize(start, index, value, options).deficientPositions).toEqual([]);
      return expectSolves(lu, cols, b, 1e-12);
    });
    for (const [x, y] of solutions.slice(1)) {
      expect(maxDiff(x!, solutions[0]![0]!)).toBeLessThan(1e-12);
      expect(maxDiff(y!, solutions[0]![1]!)).toBeLessThan(1e-12);
    }
  });

  it("keeps the fill of the sparse path on a dense nucleus (Markowitz choice on dense storage)", () => {
    const rng = new Rng(9);
    const m = 200;
    const cols = denseNucleusMatrix(m, 80, rng);
    const { start, index, value } = toCsc(cols);
    const fill = (options?: object) => {
      const stats = new LuFactor(m).factorize(start, index, value, options);
      return stats.nnzL + stats.nnzU;
    };
    expect(fill()).toBeLessThanOrEqual(1.05 * fill(SPARSE_ONLY));
  });

  it("reports dependent columns inside the dense block and factors the repaired basis", () => {
    const rng = new Rng(13);
    const m = 80;
    const cols = denseNucleusMatrix(m, 40, rng);
    cols[70] = cols[60]!.map(([i, v]) => [i, -3 * v]); // nucleus column 70 = −3 × nucleus column 60
    const { start, index, value } = toCsc(cols);
    const lu = new LuFactor(m);
    const stats = lu.factorize(start, index, value, DENSE_AT_ONCE);
    expect(stats.deficientPositions.length).toBe(1);
    expect([60, 70]).toContain(stats.deficientPositions[0]);
    stats.deficientPositions.forEach((k, n) => (cols[k] = [[stats.replacementRows[n]!, 1]]));
    const b = Float64Array.from({ length: m }, () => rng.next());
    expectSolves(lu, cols, b, 1e-10);
  });

  it("solves random sparse matrices through the dense kernel from the first step", () => {
    const rng = new Rng(17);
    for (const [m, density] of [
      [1, 0],
      [5, 0.3],
      [40, 0.05],
      [120, 0.03],
    ] as const) {
      const cols = randomMatrix(m, density, rng);
      const { start, index, value } = toCsc(cols);
      const lu = new LuFactor(m);
      expect(lu.factorize(start, index, value, DENSE_AT_ONCE).deficientPositions).toEqual([]);
      const b = Float64Array.from({ length: m }, () => rng.next() - 0.5);
      expectSolves(lu, cols, b, 1e-9);
    }
  });
});

describe("jaos sparse matrices", () => {
  it("builds columns from triplets: duplicates summed, zeros dropped, rows sorted", () => {
    // column 0: (1, 2) twice and an explicit zero; column 1: a zero then entries that must not merge
    // into column 0's slots
    const a = cscFromTriplets(4, 3, [1, 3, 1, 2, 0, 3, 2], [0, 0, 0, 1, 1, 1, 2], [2, 0, 2, 5, 0, 7, 1]);
    expect(Array.from(a.start)).toEqual([0, 1, 3, 4]);
    expect(Array.from(a.index)).toEqual([1, 2, 3, 2]);
    expect(Array.from(a.value)).toEqual([4, 5, 7, 1]);
    const r = toRowWise(a);
    expect(Array.from(r.start)).toEqual([0, 0, 1, 3, 4]);
    expect(Array.from(r.index)).toEqual([0, 1, 2, 1]);
  });
});

describe("jaos LU elimination reused across factorisations", () => {
  it("computes on reloaded workspaces exactly what a new elimination computes (sparse, dense nucleus, singular)", () => {
    const rng = new Rng(31);
    const m = 120;
    const singular = randomMatrix(m, 0.03, rng);
    singular[7] = singular[3]!.map(([i, v]) => [i!, 2 * v!]);
    const matrices = [randomMatrix(m, 0.05, rng), denseNucleusMatrix(m, 50, rng), singular, randomMatrix(m, 0.2, rng)];
    let reused = null as Elimination | null;
    for (const options of [{}, SPARSE_ONLY, DENSE_AT_ONCE]) {
      for (const cols of [...matrices, ...matrices.slice().reverse()]) {
        const { start, index, value } = toCsc(cols);
        const fresh = plainFactors(new Elimination(m, start, index, value, options).run());
        reused = reused?.load(start, index, value, options) ?? new Elimination(m, start, index, value, options);
        expect(plainFactors(reused.run())).toEqual(fresh);
      }
    }
  });
});
