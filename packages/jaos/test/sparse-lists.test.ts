import { describe, expect, it } from "vitest";
import { Rng } from "../src/rng.js";
import { SparseLists } from "../src/sparse-lists.js";

/** The lists' contents as sorted (key, value) pairs, for comparison with a plain model. */
function contents(s: SparseLists, lists: number): [number, number][][] {
  const out: [number, number][][] = [];
  for (let l = 0; l < lists; l++) {
    const entries: [number, number][] = [];
    for (let k = s.start[l], e = k + s.length[l]; k < e; k++) entries.push([s.key[k], s.value[k]]);
    out.push(entries.sort((a, b) => a[0] - b[0]));
  }
  return out;
}

describe("SparseLists", () => {
  it("lays the lists out in the pool in the given order", () => {
    const lists = 6;
    const layout = [3, 5, 0, 1, 4, 2];
    const s = new SparseLists(lists, 8);
    s.reset([2, 0, 1, 3, 1, 2], layout);
    for (let c = 1; c < lists; c++) expect(s.start[layout[c]!]).toBeGreaterThan(s.start[layout[c - 1]!]!);
  });

  it("keeps every list's entries through pushes, removals, growth and compaction in any layout", () => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 20; trial++) {
      const lists = 1 + rng.int(12);
      const layout = Array.from({ length: lists }, (_, i) => i);
      for (let i = lists - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [layout[i], layout[j]] = [layout[j]!, layout[i]!];
      }
      const s = new SparseLists(lists, 4);
      s.reset(
        Array.from({ length: lists }, () => rng.int(3)),
        layout,
      );
      const model: Map<number, number>[] = Array.from({ length: lists }, () => new Map());
      let nextKey = 0;
      for (let op = 0; op < 300; op++) {
        const l = rng.int(lists);
        if (rng.next() < 0.7 || model[l]!.size === 0) {
          const key = nextKey++;
          const value = rng.next();
          s.push(l, key, value);
          model[l]!.set(key, value);
        } else if (rng.next() < 0.8) {
          const key = [...model[l]!.keys()][rng.int(model[l]!.size)]!;
          s.remove(l, key);
          model[l]!.delete(key);
        } else {
          s.clear(l);
          model[l]!.clear();
        }
      }
      const expected = model.map((m) => [...m.entries()].sort((a, b) => a[0] - b[0]));
      expect(contents(s, lists)).toEqual(expected);
      expect(s.nonzeros).toBe(model.reduce((n, m) => n + m.size, 0));
    }
  });
});
