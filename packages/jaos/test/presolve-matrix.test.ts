import { describe, expect, it } from "vitest";
import { KeyGroups, PresolveMatrix } from "../src/presolve-matrix.js";
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

describe("jaos presolve key groups", () => {
  it("list the groups of two or more as a Map of key to members does: groups by first sight, members in order", () => {
    let shared = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const g = seededGenerator(seed * 31 + 7);
      const count = g.int(0, 400);
      // few distinct keys, some far apart (hash slots wrap), some negative
      const distinct = Array.from({ length: g.int(1, 60) }, () => (g.int(-2_000_000_000, 2_000_000_000) | 0) * (g.next() < 0.5 ? 1 : -1));
      const groups = new KeyGroups(count);
      const reference = new Map<number, number[]>();
      for (let t = 0; t < count; t++) {
        const key = distinct[g.int(0, distinct.length - 1)]! | 0;
        const member = g.int(0, 10_000);
        groups.add(key, member);
        reference.set(key, [...(reference.get(key) ?? []), member]);
      }
      const expected = [...reference.values()].filter((m) => m.length >= 2);
      const { start, member } = groups.shared();
      const got = Array.from({ length: start.length - 1 }, (_, k) => Array.from(member.subarray(start[k], start[k + 1])));
      expect(got, `seed ${seed}`).toEqual(expected);
      shared += expected.length;
    }
    expect(shared).toBeGreaterThan(1000);
  });
});
