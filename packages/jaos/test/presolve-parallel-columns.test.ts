/**
 * Parallel columns in presolve (presolve-parallel-columns.ts): of two columns with the same entries up
 * to a scale and costs not in that ratio, the dominated one is fixed, and the verifying re-solve accepts
 * the postsolved basis as it stands. Then a seeded property test: random LPs with planted parallel
 * copies of columns (scaled, same or other cost, boxed, one-sided or free) solve to the same verdict and
 * objective with presolve on and off, and the reduced LP's optimum postsolves to a feasible optimum.
 */
import { describe, expect, it } from "vitest";
import type { Problem, ProblemInput, Term } from "./support.js";
import { LpEngine } from "../src/lp.js";
import { maxViolation, modelFromProblem, objectiveValue } from "../src/model.js";
import { Presolver, presolve } from "../src/presolve.js";
import { parallelColumns } from "../src/presolve-parallel-columns.js";
import { expectObjective, lp, row, seededGenerator, solveChecked } from "./support.js";

/** Same verdict and objective with presolve on and off; the presolved optimum needs no re-solve iterations. */
function expectSameWithoutPresolve(p: Problem, zeroResolve = true) {
  const on = solveChecked(p, { gapTolerance: 0 });
  const off = solveChecked(p, { gapTolerance: 0, presolve: false });
  const where = `with presolve ${on.solver_status} ${on.objective_value}, without ${off.solver_status} ${off.objective_value}`;
  expect(on.solver_status, where).toBe(off.solver_status);
  if (off.solver_status === "optimal") {
    expect(Math.abs(on.objective_value! - off.objective_value!), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(off.objective_value!)));
    if (zeroResolve) expect(on.stats.verification?.resolveIterations ?? 0).toBe(0);
  }
  return { on, off };
}

describe("jaos presolve: parallel columns", () => {
  it("fixes the column a parallel one with a free side dominates", () => {
    // y = 2·x's column at cost 3 > 2·1: raising x by 2t and lowering y by t keeps the rows and saves t,
    // and x has no upper bound, so y sits at its lower bound 0 in every optimum
    const p = lp(
      [
        { name: "x", lb: 0, ub: null },
        { name: "y", lb: 0, ub: 4 },
        { name: "z", lb: 0, ub: 10 },
      ],
      [
        ["x", 1],
        ["y", 3],
        ["z", 1],
      ],
      [
        row(
          "need",
          [
            ["x", 1],
            ["y", 2],
            ["z", 1],
          ],
          6,
          null,
        ),
        row(
          "other",
          [
            ["x", 1],
            ["y", 2],
            ["z", -1],
          ],
          null,
          4,
        ),
      ],
    );
    const pre = presolve(modelFromProblem(p).model);
    expect(pre.reductions).toContainEqual({ kind: "fix", col: 1, value: 0 });
    const { on } = expectSameWithoutPresolve(p);
    expectObjective(on, 6);
  });
});

/** Random LPs in which about a third of the columns are scaled copies of others. */
function withParallelColumns(seed: number): Problem {
  const g = seededGenerator(seed);
  const base = g.int(3, 8);
  const m = g.int(2, 7);
  const bound = () => {
    const kind = g.next();
    const lb = kind < 0.15 ? null : g.int(-3, 2);
    const ub = kind > 0.85 ? null : g.next() < 0.25 ? null : (lb ?? -3) + g.int(0, 6);
    return { lb, ub };
  };
  const columns: { name: string; lb: number | null; ub: number | null; cost: number; entries: Map<number, number> }[] = [];
  for (let j = 0; j < base; j++) {
    const entries = new Map<number, number>();
    const size = g.int(1, Math.min(3, m));
    while (entries.size < size) entries.set(g.int(0, m - 1), g.int(-4, 4) || 1);
    columns.push({ name: `x${j}`, ...bound(), cost: g.int(-5, 5), entries });
  }
  const copies = g.int(1, base);
  for (let c = 0; c < copies; c++) {
    const of = columns[g.int(0, base - 1)]!;
    const s = [1, -1, 2, -0.5, 3][g.int(0, 4)]!;
    const cost = g.next() < 0.6 ? s * of.cost : s * of.cost + g.int(-3, 3);
    columns.push({ name: `p${c}`, ...bound(), cost, entries: new Map([...of.entries].map(([i, a]) => [i, s * a])) });
  }
  // rows hold at an anchor point inside the bounds, so most models are feasible
  const anchor = columns.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-2, 3))));
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < m; i++) {
    const terms = columns.flatMap((v) => (v.entries.has(i) ? [{ var: v.name, coef: v.entries.get(i)! }] : []));
    if (terms.length === 0) continue;
    const rhs = columns.reduce((sum, v, j) => sum + (v.entries.get(i) ?? 0) * anchor[j]!, 0);
    const kind = g.next();
    const [lb, ub] = kind < 0.3 ? [rhs, rhs] : kind < 0.65 ? [null, rhs + g.int(0, 3)] : [rhs - g.int(0, 3), null];
    constraints.push({ name: `r${i}`, terms, lb, ub });
  }
  return lp(
    columns.map(({ name, lb, ub }) => ({ name, lb, ub })),
    columns.map((v) => [v.name, v.cost] as Term),
    constraints,
    g.next() < 0.5 ? "minimize" : "maximize",
  );
}

describe("jaos presolve with parallel columns agrees with no presolve (seeded random LPs)", () => {
  it("300 random LPs: same verdict and objective, and the reduced optimum postsolves to a feasible optimum", () => {
    const seen: Record<string, number> = {};
    let fixed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const p = withParallelColumns(seed * 7919 + 3);
      const { off } = expectSameWithoutPresolve(p, false);
      seen[off.solver_status] = (seen[off.solver_status] ?? 0) + 1;
      const { model, sign } = modelFromProblem(p);
      const pre = presolve(model);
      if (parallelColumns(new Presolver(model)) > 0) fixed++;
      if (off.solver_status !== "optimal" || pre.status !== "reduced") continue;
      const where = `seed ${seed}`;
      const r = new LpEngine(pre.reduced).solve({ deadline: performance.now() + 10_000 });
      expect(r.status, where).toBe("optimal");
      const x = pre.postsolve(r.x!);
      expect(maxViolation(model, x), where).toBeLessThanOrEqual(1e-6);
      const expected = off.objective_value!;
      expect(Math.abs(sign * objectiveValue(model, x) - expected), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(75);
    expect(fixed).toBeGreaterThan(30);
  }, 120_000);
});
