/**
 * Dual proofs (dual-proof.ts) and the conflict pool (conflict-pool.ts): a proof of an infeasible or
 * bound-exceeding node LP holds for every integer point of the model below the cutoff (checked by
 * enumeration on small random pure-integer models with random node boxes), the pool empties a box and
 * tightens a bound through a proof, and on small random MILPs the search with the pool ends with the
 * optimum of the search without it (a failing model is shrunk before it is reported).
 */
import { describe, expect, it } from "vitest";
import { ConflictPool } from "../src/conflict-pool.js";
import { dualProof } from "../src/dual-proof.js";
import { LpEngine } from "../src/lp.js";
import { solveMip, type MipOutcome } from "../src/mip.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import type { BoundChange } from "../src/reduced-cost.js";
import { integerPoints, type Problem, problem, seededGenerator, shrinkProblem, seededMilp } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** Binaries and small general integers (a continuous column when `continuous`), rows of both signs, some equalities. */
const randomMilp = (seed: number, n: number, continuous: boolean) =>
  seededMilp(seed, { columns: n, integerUpper: [2, 4], continuous, rows: [3, 10], coefficient: [1, 9], rowKinds: { atMost: 0.5, atLeast: 0.3 } });

/** Whether the integer point x satisfies the model's rows (exactly: integer data) and cᵀx + offset ≤ limit. */
function wanted(model: LpModel, x: Float64Array, limit: number): boolean {
  const act = new Float64Array(model.rows);
  let obj = model.offset;
  for (let j = 0; j < model.cols; j++) {
    obj += model.cost[j]! * x[j]!;
    for (let k = model.a.start[j]!; k < model.a.start[j + 1]!; k++) act[model.a.index[k]!]! += model.a.value[k]! * x[j]!;
  }
  for (let i = 0; i < model.rows; i++) if (act[i]! < model.rowLower[i]! || act[i]! > model.rowUpper[i]!) return false;
  return obj <= limit;
}

function search(p: Problem, conflicts: boolean): MipOutcome | null {
  const { model } = modelFromProblem(p);
  const pre = presolve(model);
  if (pre.status !== "reduced") return null;
  // no restarts, symmetry or probing: both searches differ only in the pool
  return solveMip(model, pre, { deadline: performance.now() + 60_000, gapTolerance: 0, conflicts, maxRootRestarts: 0, symmetry: false, probing: false });
}

function disagreement(p: Problem, onPool?: (out: MipOutcome) => void): string | null {
  const plain = search(p, false);
  const pooled = search(p, true);
  if (!plain || !pooled) return null;
  onPool?.(pooled);
  if (plain.status !== pooled.status) return `status ${pooled.status} with the pool, ${plain.status} without`;
  if (plain.status !== "optimal") return null;
  const { model } = modelFromProblem(p);
  const value = (x: Float64Array) => x.reduce((s, v, j) => s + model.cost[j]! * v, model.offset);
  const [a, b] = [value(pooled.incumbent!), value(plain.incumbent!)];
  return Math.abs(a - b) <= 2e-6 * Math.max(1, Math.abs(b)) ? null : `optimum ${a} with the pool, ${b} without`;
}

describe("jaos dual proofs and the conflict pool", () => {
  it("keeps every integer point below the cutoff (enumeration over random node boxes)", () => {
    let proofs = 0;
    let farkasProofs = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { model } = modelFromProblem(randomMilp(seed, 7, false));
      const g = seededGenerator(1000 + seed);
      const points = [...integerPoints(model)].map((p) => Float64Array.from({ length: model.cols }, (_, j) => p.get(j)!));
      for (let trial = 0; trial < 6; trial++) {
        const engine = new LpEngine(model);
        const lower = model.colLower.slice();
        const upper = model.colUpper.slice();
        for (let j = 0; j < model.cols; j++) {
          if (g.next() < 0.6) continue;
          const v = g.int(lower[j]!, upper[j]!);
          if (g.next() < 0.5) lower[j] = v;
          else upper[j] = v;
          engine.setColumnBounds(j, lower[j]!, upper[j]!);
        }
        const r = engine.solve({ deadline: performance.now() + 5000 });
        const boxes = { nodeLower: lower, nodeUpper: upper, globalLower: model.colLower, globalUpper: model.colUpper };
        const found = [];
        if (r.status === "infeasible") {
          found.push(
            dualProof(model, r.farkas!, Infinity, boxes, 100),
            dualProof(
              model,
              r.farkas!.map((v) => -v),
              Infinity,
              boxes,
              100,
            ),
          );
        } else if (r.status === "optimal") {
          // a cutoff just below the node's LP value: the node is pruned by its bound
          const limit = r.objective - 0.5;
          const proof = dualProof(model, engine.rowDuals(), limit, boxes, 100);
          if (proof) {
            proofs++;
            for (const x of points) {
              if (!wanted(model, x, limit)) continue;
              const lhs = proof.index.reduce((s, j, k) => s + proof.value[k]! * x[j]!, 0);
              expect(lhs, `seed ${seed} trial ${trial}: a point below the cutoff breaks the bound proof`).toBeLessThanOrEqual(proof.rhs);
            }
          }
        }
        for (const proof of found) {
          if (!proof) continue;
          farkasProofs++;
          for (const x of points) {
            if (!wanted(model, x, Infinity)) continue;
            const lhs = proof.index.reduce((s, j, k) => s + proof.value[k]! * x[j]!, 0);
            expect(lhs, `seed ${seed} trial ${trial}: a feasible point breaks the Farkas proof`).toBeLessThanOrEqual(proof.rhs);
          }
        }
      }
    }
    expect(proofs).toBeGreaterThan(20);
    expect(farkasProofs).toBeGreaterThan(5);
  }, 300_000);

  it("empties a box and tightens a bound through a learned proof", () => {
    // x0 + x1 + x2 ≤ 1 with all three binaries: the node x0 = x1 = 1 is infeasible
    const { model } = modelFromProblem(
      problem({
        sense: "minimize",
        variables: ["x0", "x1", "x2"].map((name) => ({ name, type: "binary" as const })),
        objective: { constant: 0, terms: [term(-1, "x0"), term(-1, "x1"), term(-1, "x2")] },
        constraints: [{ name: "pack", terms: [term(1, "x0"), term(1, "x1"), term(1, "x2")], ub: 1 }],
      }),
    );
    const engine = new LpEngine(model);
    const lower = Float64Array.from([1, 1, 0]);
    const upper = Float64Array.from([1, 1, 1]);
    engine.setColumnBounds(0, 1, 1);
    engine.setColumnBounds(1, 1, 1);
    const r = engine.solve({ deadline: performance.now() + 5000 });
    expect(r.status).toBe("infeasible");
    const boxes = { nodeLower: lower, nodeUpper: upper, globalLower: model.colLower, globalUpper: model.colUpper };
    const proof =
      dualProof(model, r.farkas!, Infinity, boxes, 10) ??
      dualProof(
        model,
        r.farkas!.map((v) => -v),
        Infinity,
        boxes,
        10,
      );
    expect(proof).not.toBeNull();
    // x2 sits at its favourable bound 0 in the node: the proof keeps x0 and x1 only
    expect([...proof!.index].sort()).toEqual([0, 1]);
    const pool = new ConflictPool(model, 10, 1000);
    pool.add(proof!);
    expect(pool.propagate(Float64Array.from([1, 1, 0]), Float64Array.from([1, 1, 1]), [0, 1], [])).toBe(false);
    const lo = Float64Array.from([1, 0, 0]);
    const up = Float64Array.from([1, 1, 1]);
    const out: BoundChange[] = [];
    expect(pool.propagate(lo, up, [0], out)).toBe(true);
    expect(up[1]).toBe(0);
    expect(out).toEqual([{ col: 1, lower: 0, upper: 0 }]);
  });

  it("leaves the optimum of random MILPs unchanged", () => {
    let learned = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const p = randomMilp(seed, 12, true);
      const why = disagreement(p, (out) => {
        learned += out.stats.conflicts.learned;
      });
      if (why) {
        const small = shrinkProblem(p, (q) => disagreement(q));
        expect.fail(`seed ${seed}: ${why}; shrunk: ${JSON.stringify(small)}`);
      }
    }
    expect(learned).toBeGreaterThan(0);
  }, 300_000);
});
