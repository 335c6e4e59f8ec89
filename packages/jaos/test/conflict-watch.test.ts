/**
 * The conflict pool's watch (conflict-pool.ts) is exact: with it, the pool passes over only proofs whose
 * pass would do nothing, so a watched and an unwatched pool fed the same proofs and the same boxes give
 * the same verdicts, the same tightened bounds in the same order and the same counters (but the skips);
 * and a search with the watch takes the same tree as one without it.
 */
import { describe, expect, it } from "vitest";
import { ConflictPool, type ConflictStats } from "../src/conflict-pool.js";
import type { Conflict } from "../src/dual-proof.js";
import { solveMip } from "../src/mip.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import type { BoundChange } from "../src/reduced-cost.js";
import { type SeededGenerator, seededGenerator, seededMilp } from "./support.js";

const randomMilp = (seed: number, n: number, rows: [number, number]) =>
  seededMilp(seed, { columns: n, integerUpper: [2, 6], continuous: true, rows, coefficient: [1, 9], rowKinds: { atMost: 0.5, atLeast: 0.3 } });

/**
 * A random inequality over a few columns whose right-hand side lies between its least and greatest
 * activity over the model's box (some loose, some tight, some that no box can meet), as the pool's proofs.
 */
function randomProof(model: LpModel, g: SeededGenerator): Conflict {
  const cols = [...Array(model.cols).keys()].filter(() => g.next() < 0.5);
  if (cols.length === 0) cols.push(g.int(0, model.cols - 1));
  const value = cols.map(() => (g.next() < 0.5 ? -1 : 1) * (0.25 + 4 * g.next()));
  let least = 0;
  let greatest = 0;
  cols.forEach((j, k) => {
    const c = value[k]!;
    least += Math.min(c * model.colLower[j]!, c * model.colUpper[j]!);
    greatest += Math.max(c * model.colLower[j]!, c * model.colUpper[j]!);
  });
  const rhs = least + (greatest - least) * (1.2 * g.next() - 0.1);
  return { index: Int32Array.from(cols), value: Float64Array.from(value), rhs };
}

/** A random box inside the model's: some columns' bounds moved in (integer ones to integers). */
function randomBox(model: LpModel, g: SeededGenerator): { lo: Float64Array; up: Float64Array; seeds: number[] } {
  const lo = model.colLower.slice();
  const up = model.colUpper.slice();
  const seeds: number[] = [];
  for (let j = 0; j < model.cols; j++) {
    if (g.next() < 0.6) continue;
    seeds.push(j);
    const a = lo[j]! + (up[j]! - lo[j]!) * g.next();
    const b = lo[j]! + (up[j]! - lo[j]!) * g.next();
    const [x, y] = model.integer[j] ? [Math.ceil(Math.min(a, b)), Math.floor(Math.max(a, b))] : [Math.min(a, b), Math.max(a, b)];
    if (x <= y) [lo[j], up[j]] = [x, y];
  }
  return { lo, up, seeds };
}

const withoutSkips = ({ skipped: _, ...rest }: ConflictStats) => rest;

describe("jaos conflict pool watch", () => {
  it("changes no verdict, bound or counter of the pool (random proofs and boxes)", () => {
    let skipped = 0;
    let acted = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { model } = modelFromProblem(randomMilp(seed, 10, [3, 10]));
      const g = seededGenerator(500 + seed);
      // a small capacity and work limit: proofs are replaced and the queue is cut off
      const capacity = g.int(3, 12);
      const work = g.int(10, 200);
      const watched = new ConflictPool(model, capacity, work, undefined, true);
      const plain = new ConflictPool(model, capacity, work, undefined, false);
      for (let call = 0; call < 150; call++) {
        if (g.next() < 0.3) {
          const proof = randomProof(model, g);
          watched.add(proof);
          plain.add(proof);
        }
        const { lo, up, seeds } = randomBox(model, g);
        const [lo2, up2] = [lo.slice(), up.slice()];
        const [out, out2]: BoundChange[][] = [[], []];
        const verdict = watched.propagate(lo, up, seeds, out);
        const verdict2 = plain.propagate(lo2, up2, seeds, out2);
        const at = `seed ${seed} call ${call}`;
        expect(verdict, at).toBe(verdict2);
        expect(out, at).toEqual(out2);
        if (verdict) {
          expect(lo, at).toEqual(lo2);
          expect(up, at).toEqual(up2);
        }
        if (!verdict || out.length > 0) acted++;
      }
      expect(withoutSkips(watched.stats)).toEqual(withoutSkips(plain.stats));
      expect(plain.stats.skipped).toBe(0);
      skipped += watched.stats.skipped;
    }
    expect(skipped).toBeGreaterThan(100);
    expect(acted).toBeGreaterThan(100);
  }, 120_000);

  it("leaves the search's tree unchanged on random MILPs", () => {
    let skipped = 0;
    // large enough for trees of a few hundred nodes, where proofs are learned and passed over
    for (let seed = 1; seed <= 8; seed++) {
      const { model } = modelFromProblem(randomMilp(seed, 20, [5, 15]));
      const pre = presolve(model);
      if (pre.status !== "reduced") continue;
      const search = (watchConflicts: boolean) =>
        solveMip(model, pre, {
          deadline: performance.now() + 60_000,
          gapTolerance: 0,
          conflicts: true,
          watchConflicts,
          maxRootRestarts: 0,
          symmetry: false,
          probing: false,
        });
      const [watched, plain] = [search(true), search(false)];
      const at = `seed ${seed}`;
      expect(watched.status, at).toBe(plain.status);
      expect(watched.nodes, at).toBe(plain.nodes);
      expect(watched.iterations, at).toBe(plain.iterations);
      expect(withoutSkips(watched.stats.conflicts), at).toEqual(withoutSkips(plain.stats.conflicts));
      skipped += watched.stats.conflicts.skipped;
    }
    expect(skipped).toBeGreaterThan(0);
  }, 300_000);
});
