import { describe, expect, it } from "vitest";
import { heapifyByKey, popTop } from "../src/breakpoint-heap.js";
import { seededGenerator } from "./support.js";

describe("jaos ratio test: breakpoint heap", () => {
  it("pops the candidate slots in the order of a stable sort by breakpoint (ties by slot), for any list", () => {
    const rng = seededGenerator(17);
    for (let trial = 0; trial < 200; trial++) {
      const total = 1 + rng.int(0, 60);
      const size = 1 + rng.int(0, total - 1);
      // keys by slot (longer than the list, as the scratch array is), with many ties (few distinct values)
      const key = Float64Array.from({ length: total }, () => rng.int(0, 5) / 4);
      const heap = new Int32Array(size);
      heapifyByKey(heap, size, key);
      const popped: number[] = [];
      for (let n = size; n > 0; ) {
        popped.push(heap[0]!);
        n = popTop(heap, n, key);
      }
      const sorted = Array.from({ length: size }, (_, c) => c).sort((x, y) => key[x]! - key[y]! || x - y);
      expect(popped).toEqual(sorted);
    }
  });
});
