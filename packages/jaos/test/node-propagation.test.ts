/**
 * Node propagation (node-propagation.ts): a branching bound's consequences through the rows, a node
 * whose rows cannot hold proved empty, and on small random MILPs (binaries, general integers, a bounded
 * continuous column, rows of both signs, some equalities) the search with propagation at every node ends
 * with the optimum of the search without it (a failing model is shrunk before it is reported).
 */
import { describe, expect, it } from "vitest";
import { solveMip, type MipOutcome } from "../src/mip.js";
import { modelFromProblem } from "../src/model.js";
import { NodePropagator } from "../src/node-propagation.js";
import { presolve } from "../src/presolve.js";
import type { BoundChange } from "../src/reduced-cost.js";
import { type Problem, type ProblemInput, problem, shrinkProblem, seededMilp } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** Binaries, small general integers, a bounded continuous column; rows of both signs, some equalities. */
const randomMilp = (seed: number) =>
  seededMilp(seed, { columns: [8, 22], integerUpper: [2, 6], rows: [4, 12], termChance: 0.4, coefficient: [1, 9], rowKinds: { atMost: 0.5, atLeast: 0.3 } });

/** The solver's model of a small minimizing problem: what the propagation cases below run on. */
const minimizing = (input: Omit<ProblemInput, "sense">) => modelFromProblem(problem({ ...input, sense: "minimize" })).model;

/** Node propagation off, on the integer columns, or on all columns. */
type Mode = "off" | "integer" | "all";

function search(p: Problem, mode: Mode): MipOutcome | null {
  const { model } = modelFromProblem(p);
  const pre = presolve(model);
  if (pre.status !== "reduced") return null;
  // no restarts or symmetry: both searches differ only in the propagation
  return solveMip(model, pre, {
    deadline: performance.now() + 60_000,
    gapTolerance: 0,
    nodePropagation: mode !== "off",
    propagateContinuous: mode === "all",
    maxRootRestarts: 0,
  });
}

/** Why the two searches disagree on `p`, or null; `onPropagated` sees the search with propagation. */
function disagreement(p: Problem, mode: Mode, onPropagated?: (out: MipOutcome) => void): string | null {
  const plain = search(p, "off");
  const propagated = search(p, mode);
  if (!plain || !propagated) return null;
  onPropagated?.(propagated);
  if (plain.status !== propagated.status) return `status ${propagated.status} with propagation, ${plain.status} without`;
  if (plain.status !== "optimal") return null;
  const { model } = modelFromProblem(p);
  const value = (x: Float64Array) => x.reduce((s, v, j) => s + model.cost[j]! * v, model.offset);
  const [a, b] = [value(propagated.incumbent!), value(plain.incumbent!)];
  // both stop within the absolute gap of 1e-6 the pruning level keeps (incumbent.ts)
  return Math.abs(a - b) <= 2e-6 * Math.max(1, Math.abs(b)) ? null : `optimum ${a} with propagation, ${b} without`;
}

describe("jaos node propagation", () => {
  it("sends a branching bound through a partitioning row and a knapsack", () => {
    // x0 + x1 + x2 = 1 (binaries); 3·x0 + 2·y ≤ 7 with y integer in [0, 5]
    const model = minimizing({
      variables: [
        { name: "x0", type: "binary" },
        { name: "x1", type: "binary" },
        { name: "x2", type: "binary" },
        { name: "y", lb: 0, ub: 5, type: "integer" },
      ],
      objective: { constant: 0, terms: [term(1, "x0")] },
      constraints: [
        { name: "part", terms: [term(1, "x0"), term(1, "x1"), term(1, "x2")], lb: 1, ub: 1 },
        { name: "knap", terms: [term(3, "x0"), term(2, "y")], ub: 7 },
      ],
    });
    const propagator = new NodePropagator(model, 1000);
    const lo = model.colLower.slice();
    const up = model.colUpper.slice();
    lo[0] = 1; // the branch x0 ≥ 1
    const found: BoundChange[] = [];
    expect(propagator.propagate(lo, up, [0], found)).toBe(true);
    expect([...up]).toEqual([1, 0, 0, 2]); // x1 = x2 = 0 and y ≤ ⌊(7 − 3)/2⌋
    expect(found.map((c) => c.col).sort()).toEqual([1, 2, 3]);
    // x1 ≥ 1 as well leaves the partitioning row no room: the node holds no point
    const lo2 = model.colLower.slice();
    const up2 = model.colUpper.slice();
    lo2[0] = 1;
    lo2[1] = 1;
    expect(propagator.propagate(lo2, up2, [0, 1], [])).toBe(false);
  });

  it("moves a bound exactly when a column's share of the row exceeds the room its others leave", () => {
    // 4·a + 3·b + 2·c ≤ side over a, b, c integer in [0, 2]; the row's least activity 0 leaves the room `side`:
    // a moves once 8 > side, b once 6 > side, c once 4 > side
    for (const side of [9, 8, 7, 6, 5, 4, 3]) {
      const { model } = modelFromProblem(
        problem({
          sense: "minimize",
          variables: ["a", "b", "c"].map((name) => ({ name, lb: 0, ub: 2, type: "integer" as const })),
          objective: { constant: 0, terms: [] },
          constraints: [{ name: "r", terms: [term(4, "a"), term(3, "b"), term(2, "c")], ub: side }],
        }),
      );
      const up = model.colUpper.slice();
      const found: BoundChange[] = [];
      expect(new NodePropagator(model, 1000).propagate(model.colLower.slice(), up, [0], found)).toBe(true);
      const expected = [4, 3, 2].map((c) => Math.min(2, Math.floor(side / c)));
      expect([...up], `side ${side}`).toEqual(expected);
      expect(found.length, `side ${side}`).toBe(expected.filter((u) => u < 2).length);
    }
  });

  it("limits the columns through the objective below the prune level, continuous ones only when asked", () => {
    // min 4·x + h + 2 (x binary, h continuous in [0, 10]) with h − 3·y ≥ 0 (y binary): below 5, x = 0 and h < 3
    const model = minimizing({
      variables: [
        { name: "x", type: "binary" },
        { name: "h", lb: 0, ub: 10 },
        { name: "y", type: "binary" },
      ],
      objective: { constant: 2, terms: [term(4, "x"), term(1, "h")] },
      constraints: [{ name: "pair", terms: [term(1, "h"), term(-3, "y")], lb: 0 }],
    });
    const up = model.colUpper.slice();
    const found: BoundChange[] = [];
    expect(new NodePropagator(model, 1000).propagate(model.colLower.slice(), up, [0, 1], found, 5)).toBe(true);
    expect([up[0], up[1], up[2]]).toEqual([0, 10, 1]); // h is continuous: left alone
    // with continuous columns: h ≤ 3 (relaxed outward) and then y = 0 through the pair row
    const all = model.colUpper.slice();
    expect(new NodePropagator(model, 1000, true).propagate(model.colLower.slice(), all, [0, 1], [], 4.5)).toBe(true);
    expect(all[0]).toBe(0);
    expect(all[1]).toBeGreaterThanOrEqual(2.5);
    expect(all[1]).toBeLessThan(2.6);
    expect(all[2]).toBe(0);
    // no incumbent (an infinite limit): the objective limits nothing
    const none = model.colUpper.slice();
    expect(new NodePropagator(model, 1000).propagate(model.colLower.slice(), none, [0, 1], [])).toBe(true);
    expect([...none]).toEqual([...model.colUpper]);
    // a box whose least objective is above the level holds no wanted point
    const lo = model.colLower.slice();
    lo[0] = 1;
    expect(new NodePropagator(model, 1000).propagate(lo, model.colUpper.slice(), [0], [], 5)).toBe(false);
  });

  it("tightens a continuous column only when asked, relaxed outward, also from an infinite bound", () => {
    // x − 6·y ≤ 0 with x ≥ 0 continuous (no upper bound) and y binary: y = 0 leaves x at most 0
    const model = minimizing({
      variables: [
        { name: "x", lb: 0, type: "continuous" },
        { name: "y", type: "binary" },
      ],
      constraints: [{ name: "vub", terms: [term(1, "x"), term(-6, "y")], ub: 0 }],
    });
    for (const continuous of [false, true]) {
      const lo = model.colLower.slice();
      const up = model.colUpper.slice();
      up[1] = 0;
      expect(new NodePropagator(model, 1000, continuous).propagate(lo, up, [1], [])).toBe(true);
      if (!continuous) expect(up[0]).toBe(Infinity);
      else {
        expect(up[0]).toBeGreaterThanOrEqual(0);
        expect(up[0]).toBeLessThan(1e-5);
      }
    }
  });

  it("keeps an integer value the row allows within its tolerance", () => {
    // 3·y ≤ 6 + 2e-7: y = 2 breaks nothing, so y ≤ 2 (and 3·y ≤ 5.9999999 still y ≤ 2, within the tolerance)
    for (const [side, bound] of [
      [6 + 2e-7, 2],
      [6 - 1e-7, 2],
      [5.9, 1],
    ] as const) {
      const model = minimizing({
        variables: [
          { name: "y", lb: 0, ub: 9, type: "integer" },
          { name: "z", lb: 0, ub: 1, type: "integer" },
        ],
        constraints: [{ name: "r", terms: [term(3, "y"), term(1, "z")], ub: side }],
      });
      const up = model.colUpper.slice();
      expect(new NodePropagator(model, 1000).propagate(model.colLower.slice(), up, [1], [])).toBe(true);
      expect(up[0], `side ${side}`).toBe(bound);
    }
  });

  for (const mode of ["integer", "all"] as const) {
    it(`ends with the optimum of the search without it on random MILPs (${mode} columns tightened)`, () => {
      let tightened = 0;
      for (let seed = 1; seed <= 50; seed++) {
        const p = randomMilp(seed * 131);
        const why = disagreement(p, mode, (out) => {
          tightened += out.stats.propagation.tightenings;
        });
        if (why) {
          const small = shrinkProblem(p, (q) => disagreement(q, mode));
          expect.fail(`seed ${seed}: ${why}; shrunk: ${disagreement(small, mode)}\n${JSON.stringify(small)}`);
        }
      }
      // the propagation did act on these models
      expect(tightened).toBeGreaterThan(20);
    }, 180_000);
  }
});
