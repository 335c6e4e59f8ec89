import { describe, expect, it } from "vitest";
import { IndexSet } from "../src/index-set.js";
import { Rng } from "../src/rng.js";

describe("jaos IndexSet", () => {
  it("holds what a plain Set holds through random adds, deletes and clears", () => {
    const rng = new Rng(17);
    const n = 60;
    const set = new IndexSet(n);
    const plain = new Set<number>();
    for (let step = 0; step < 5000; step++) {
      const i = rng.int(n);
      const op = rng.next();
      if (op < 0.5) {
        set.add(i);
        plain.add(i);
      } else if (op < 0.98) {
        set.delete(i);
        plain.delete(i);
      } else {
        set.clear();
        plain.clear();
      }
      expect(set.size).toBe(plain.size);
      expect(set.has(i)).toBe(plain.has(i));
      if (step % 97 === 0) expect([...set.list.subarray(0, set.size)].sort((a, b) => a - b)).toEqual([...plain].sort((a, b) => a - b));
    }
  });
});
