import { describe, expect, it } from "vitest";
import { Elimination } from "../src/markowitz.js";
import { Rng } from "../src/rng.js";
import { plainFactors } from "./support.js";

/**
 * A nonsingular m×m matrix of small integers, column-wise: a shuffled diagonal, sparse ±1 entries and
 * a few long rows. Eliminations on it cancel often (±1 multipliers on ±1 entries), and short pivot
 * rows meet long rows, so both ways of finding a row's entries, and the removal of cancelled entries
 * after the search through the columns, are exercised.
 */
function integerMatrix(m: number, longRows: number, rng: Rng) {
  const perm = Array.from({ length: m }, (_, i) => i);
  for (let i = m - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const start = new Int32Array(m + 1);
  const index: number[] = [];
  const value: number[] = [];
  for (let j = 0; j < m; j++) {
    const entries = new Map<number, number>();
    for (let i = 0; i < longRows; i++) if (rng.next() < 0.7) entries.set(i, rng.next() < 0.5 ? 1 : -1);
    for (let i = longRows; i < m; i++) if (rng.next() < 0.04) entries.set(i, rng.next() < 0.5 ? 1 : -1);
    entries.set(perm[j]!, 2 + rng.int(3));
    for (const [i, v] of [...entries.entries()].sort((a, b) => a[0] - b[0])) {
      index.push(i);
      value.push(v);
    }
    start[j + 1] = index.length;
  }
  return { start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

describe("jaos Markowitz elimination", () => {
  it("computes the same factors, bit for bit, whether a row's entries are found through the pivot row's columns or by a scan of the row", () => {
    const rng = new Rng(47);
    for (let trial = 0; trial < 40; trial++) {
      const m = 60 + rng.int(120);
      const { start, index, value } = integerMatrix(m, 2 + rng.int(10), rng);
      const sparse = { denseFraction: Number.POSITIVE_INFINITY };
      const byRows = plainFactors(new Elimination(m, start, index, value, { ...sparse, rowScanOnly: true }).run());
      expect(plainFactors(new Elimination(m, start, index, value, sparse).run())).toEqual(byRows);
    }
  });
});
