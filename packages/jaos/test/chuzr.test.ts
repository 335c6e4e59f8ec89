import { describe, expect, it } from "vitest";
import { PartialChuzr } from "../src/chuzr.js";
import { Rng } from "../src/rng.js";

/** The plain CHUZR: the position maximising inf²/w over the infeasible ones, the lowest on ties. */
function plainChoice(inf2: Float64Array, weight: Float64Array): number {
  let r = -1;
  let best = 0;
  for (let k = 0; k < inf2.length; k++) {
    if (inf2[k] === 0) continue;
    const score = inf2[k] / weight[k];
    if (score > best) {
      best = score;
      r = k;
    }
  }
  return r;
}

describe("PartialChuzr", () => {
  it("chooses the plain scan's row through random changes, ties and refreshes", () => {
    let savedScans = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rng = new Rng(seed);
      const m = [5, 40, 300, 2000][seed % 4]!;
      const inf2 = new Float64Array(m);
      const weight = new Float64Array(m);
      // coarse values so that exact ties between scores are common
      const value = () => (rng.next() < 0.4 ? 0 : 1 + rng.int(6));
      for (let k = 0; k < m; k++) {
        inf2[k] = value();
        weight[k] = 1 + rng.int(3);
      }
      const chuzr = new PartialChuzr(m);
      chuzr.invalidate();
      const iterations = 300;
      for (let it = 0; it < iterations; it++) {
        const r = chuzr.choose(inf2, weight);
        expect(r).toBe(plainChoice(inf2, weight));
        if (rng.next() < 0.03) {
          // a refresh: everything changes, unreported
          for (let k = 0; k < m; k++) inf2[k] = value();
          chuzr.invalidate();
          continue;
        }
        // an iteration: the chosen row turns feasible, a few positions move (sometimes up), weights too
        const changes = 1 + rng.int(Math.max(1, m >> 3));
        const list = new Int32Array(changes + 1);
        let count = 0;
        if (r >= 0) {
          inf2[r] = 0;
          list[count++] = r;
        }
        for (let c = 0; c < changes; c++) {
          const k = rng.int(m);
          if (rng.next() < 0.5) inf2[k] = value();
          else weight[k] = 1 + rng.int(3);
          list[count++] = k;
        }
        if (rng.next() < 0.5) chuzr.changedAtList(list, count);
        else for (let c = 0; c < count; c++) chuzr.changedAt(list[c]!);
      }
      savedScans += iterations - chuzr.scans;
    }
    // the kept set answers without a scan most of the time
    expect(savedScans).toBeGreaterThan(1000);
  });
});
