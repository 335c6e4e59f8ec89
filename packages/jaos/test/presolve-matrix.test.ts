import { describe, expect, it } from "vitest";
import { PresolveMatrix } from "../src/presolve-matrix.js";
import { cscFromTriplets } from "../src/sparse.js";
import { seededGenerator } from "./support.js";

describe("jaos presolve matrix", () => {
  it("adds a scaled row as entry-by-entry additions do: the same lists in the same order, the same counts", () => {
    const g = seededGenerator(7301);
    let cancelled = 0;
    let fresh = 0;
    for (let trial = 0; trial < 300; trial++) {
      const m = g.int(2, 8);
      const n = g.int(3, 14);
      const ri: number[] = [];
      const ci: number[] = [];
      const v: number[] = [];
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          if (g.next() >= 0.4) continue;
          ri.push(i);
          ci.push(j);
          v.push(g.int(-4, 4) || 1);
        }
      }
      const a = cscFromTriplets(m, n, ri, ci, v);
      const byEntry = new PresolveMatrix(m, a);
      const byRow = new PresolveMatrix(m, a);
      const countEntry = new Int32Array(n);
      const countRow = new Int32Array(n);
      for (let step = 0; step < 6; step++) {
        const r = g.int(0, m - 1);
        // the added row's columns (distinct), some chosen to cancel what row r holds
        const cols = Array.from({ length: n }, (_, j) => j).filter(() => g.next() < 0.5);
        const factor = g.int(1, 3);
        const coefs = cols.map((j) => {
          const held = byEntry.get(r, j);
          return held !== 0 && g.next() < 0.4 ? held / factor : g.int(-3, 3) || 2;
        });
        let changeEntry = 0;
        for (let s = 0; s < cols.length; s++) {
          const c = byEntry.add(r, cols[s]!, -factor * coefs[s]!);
          changeEntry += c;
          countEntry[cols[s]!] += c;
          if (c < 0) cancelled++;
          if (c > 0) fresh++;
        }
        expect(byRow.addScaledRow(r, cols, coefs, factor, countRow)).toBe(changeEntry);
        expect(Array.from(countRow)).toEqual(Array.from(countEntry));
        expect(byRow.rowIdx).toEqual(byEntry.rowIdx);
        expect(byRow.rowVal).toEqual(byEntry.rowVal);
        expect(byRow.colIdx).toEqual(byEntry.colIdx);
        expect(byRow.colVal).toEqual(byEntry.colVal);
      }
    }
    expect(cancelled).toBeGreaterThan(100);
    expect(fresh).toBeGreaterThan(100);
  });
});
