/**
 * Root restarts (root-restart.ts): on small random MILPs (binaries, general integers and a bounded
 * continuous column; rows of both signs) the search with restarts forced at every root that has an
 * incumbent (share 0, up to three) ends with the optimum of the search without restarts; the share
 * counts only the integer columns the model left free.
 */
import { describe, expect, it } from "vitest";
import { solveMip, type MipOutcome } from "../src/mip.js";
import { emptyMipStats, statsAfterRestart } from "../src/mip-types.js";
import { modelFromProblem } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import { fixedIntegerShare } from "../src/root-restart.js";
import { type Problem, seededMilp } from "./support.js";

/** Binaries, small general integers and a bounded continuous column; rows of both signs (the default shape). */
const randomMilp = (seed: number) => seededMilp(seed);

function search(p: Problem, maxRootRestarts: number): MipOutcome | null {
  const { model } = modelFromProblem(p);
  const pre = presolve(model);
  if (pre.status !== "reduced") return null;
  return solveMip(model, pre, { deadline: performance.now() + 60_000, gapTolerance: 0, rootRestartShare: 0, maxRootRestarts });
}

describe("jaos root restarts", () => {
  it("end with the optimum of the search without restarts on random MILPs (restarts forced)", () => {
    let restarted = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const p = randomMilp(seed * 97);
      const plain = search(p, 0);
      const forced = search(p, 3);
      if (!plain || !forced) continue;
      expect(forced.status, `seed ${seed}`).toBe(plain.status);
      if (plain.status === "optimal") {
        const { model } = modelFromProblem(p);
        const value = (x: Float64Array) => x.reduce((s, v, j) => s + model.cost[j]! * v, model.offset);
        // both searches stop within the absolute gap of 1e-6 the pruning level keeps (incumbent.ts)
        const [a, b] = [value(forced.incumbent!), value(plain.incumbent!)];
        expect(Math.abs(a - b), `seed ${seed}: ${a} vs ${b}`).toBeLessThanOrEqual(2e-6 * Math.max(1, Math.abs(b)));
      }
      if (forced.stats.rootRestarts > 0) restarted++;
    }
    // the forced rule did restart on a good share of the models (the others close at the root or have no incumbent there)
    expect(restarted).toBeGreaterThan(15);
  });

  it("counts the share of the integer columns left free that the new bounds fix", () => {
    const integer = Uint8Array.from([1, 1, 1, 0, 1]);
    const fromLower = Float64Array.from([0, 0, 2, 0, 0]);
    const fromUpper = Float64Array.from([1, 3, 2, 5, 1]);
    // column 2 was fixed already and column 3 is continuous: 1 of the 3 free integer columns fixed
    const lower = Float64Array.from([1, 0, 2, 5, 0]);
    const upper = Float64Array.from([1, 2, 2, 5, 1]);
    expect(fixedIntegerShare(integer, fromLower, fromUpper, lower, upper)).toBeCloseTo(1 / 3, 12);
  });

  it("adds up the work of the searches before and after a restart, and keeps the last search's tree", () => {
    const before = { ...emptyMipStats(), rootBound: 3, rootRestarts: 1, cuts: 10, cutsKept: 7, rootIterations: 100, maxDepth: 4, openNodes: 2 };
    before.propagation = { tightenings: 5, prunedNodes: 1 };
    before.symmetry = { rows: 2, blocks: 3, fixings: 4 };
    const after = { ...emptyMipStats(), rootBound: 5, rootBoundAfterCuts: 6, cuts: 3, cutsKept: 2, rootIterations: 40, maxDepth: 9, openNodes: 0, repairs: 1 };
    after.propagation = { tightenings: 2, prunedNodes: 3 };
    expect(statsAfterRestart(before, after)).toEqual({
      ...emptyMipStats(),
      rootBound: 3,
      rootBoundAfterCuts: 6,
      rootRestarts: 2,
      cuts: 13,
      cutsKept: 2,
      rootIterations: 140,
      maxDepth: 9,
      openNodes: 0,
      repairs: 1,
      symmetry: { rows: 2, blocks: 3, fixings: 4 },
      propagation: { tightenings: 7, prunedNodes: 4 },
    });
  });
});
