/**
 * Pairwise dominated columns in presolve (presolve-dominated-pairs.ts): a column that a cheaper one,
 * unbounded above, can replace without hurting any row is fixed at its lower bound. Then a seeded
 * property test: random LPs with planted dominated copies of columns (the same entries on equations,
 * entries moved the harmless way on inequalities, a higher cost) give the same verdict and objective
 * with presolve on and off and postsolve to a feasible optimum; a failing model is shrunk first.
 */
import { describe, expect, it } from "vitest";
import type { Problem, ProblemInput } from "./support.js";
import { modelFromProblem } from "../src/model.js";
import { Presolver } from "../src/presolve.js";
import { dominatedColumnPairs } from "../src/presolve-dominated-pairs.js";
import { expectObjective, presolveFailure, problem, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

type Term = [string, number];
const terms = (list: Term[]) => list.map(([v, coef]) => ({ var: v, coef }));

describe("jaos presolve: pairwise dominated columns", () => {
  it("fixes a column a cheaper one, open above and no worse in any row, can replace", () => {
    // x and y serve the same demand row; y costs more and also uses the capacity row more, while x is
    // unbounded above: y = 0 in every optimum
    const p = problem({
      variables: [
        { name: "x", lb: 0, ub: null },
        { name: "y", lb: 0, ub: 5 },
        { name: "z", lb: 0, ub: 8 },
      ],
      objective: {
        terms: terms([
          ["x", 2],
          ["y", 3],
          ["z", 1],
        ]),
      },
      constraints: [
        {
          name: "demand",
          terms: terms([
            ["x", 1],
            ["y", 1],
            ["z", 1],
          ]),
          lb: 10,
          ub: 10,
        },
        {
          name: "capacity",
          terms: terms([
            ["x", 1],
            ["y", 2],
            ["z", -1],
          ]),
          ub: 6,
        },
      ],
    });
    const pre = new Presolver(modelFromProblem(p).model);
    expect(dominatedColumnPairs(pre)).toBe(1);
    expect(pre.stack).toContainEqual({ kind: "fix", col: 1, value: 0 });
    const on = solveChecked(p, { gapTolerance: 0 });
    const off = solveChecked(p, { gapTolerance: 0, presolve: false });
    expectObjective(on, off.objective_value!);
    // z = 8, x = 2: 4 + 8
    expectObjective(on, 12);
  });
});

/**
 * Random LPs of 3–8 columns and 2–6 rows (a third equations) with one to three planted dominated
 * copies: a column's entries, unchanged on equations and free rows, raised on ≤ rows and lowered on ≥
 * rows (or a new entry of that sign), at a cost 1–3 higher; the original often unbounded above.
 */
function withDominatedColumns(seed: number): Problem {
  const g = seededGenerator(seed);
  const base = g.int(3, 8);
  const m = g.int(2, 6);
  const kinds = Array.from({ length: m }, () => g.next());
  const columns: { name: string; lb: number | null; ub: number | null; cost: number; entries: Map<number, number> }[] = [];
  for (let j = 0; j < base; j++) {
    const entries = new Map<number, number>();
    const size = g.int(1, Math.min(3, m));
    while (entries.size < size) entries.set(g.int(0, m - 1), g.int(-4, 4) || 1);
    const lb = g.next() < 0.15 ? null : g.int(-3, 2);
    const ub = g.next() < 0.5 ? null : (lb ?? -3) + g.int(0, 6);
    columns.push({ name: `x${j}`, lb, ub, cost: g.int(-5, 5), entries });
  }
  // row kinds: < 0.33 equation, < 0.66 ≤ row, else ≥ row
  const copies = g.int(1, 3);
  for (let c = 0; c < copies; c++) {
    const of = columns[g.int(0, base - 1)]!;
    const entries = new Map(of.entries);
    for (let i = 0; i < m; i++) {
      if (kinds[i]! < 0.33 || g.next() < 0.5) continue;
      const shift = g.int(1, 3) * (kinds[i]! < 0.66 ? 1 : -1);
      entries.set(i, (entries.get(i) ?? 0) + shift);
    }
    const lb = g.next() < 0.1 ? null : g.int(-2, 2);
    columns.push({ name: `d${c}`, lb, ub: g.next() < 0.5 ? null : (lb ?? -2) + g.int(0, 6), cost: of.cost + g.int(1, 3), entries });
  }
  const anchor = columns.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-2, 3))));
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < m; i++) {
    const row = columns.flatMap((v) => (v.entries.get(i) ? [{ var: v.name, coef: v.entries.get(i)! }] : []));
    if (row.length === 0) continue;
    const rhs = columns.reduce((sum, v, j) => sum + (v.entries.get(i) ?? 0) * anchor[j]!, 0);
    const [lb, ub] = kinds[i]! < 0.33 ? [rhs, rhs] : kinds[i]! < 0.66 ? [null, rhs + g.int(0, 3)] : [rhs - g.int(0, 3), null];
    constraints.push({ name: `r${i}`, terms: row, lb, ub });
  }
  return problem({
    sense: "minimize",
    variables: columns.map(({ name, lb, ub }) => ({ name, lb, ub })),
    objective: { terms: columns.map((v) => ({ var: v.name, coef: v.cost })) },
    constraints,
  });
}

describe("jaos presolve with dominated column pairs agrees with no presolve (seeded random LPs)", () => {
  it("300 random LPs: same verdict and objective, the reduced optimum postsolves to a feasible optimum", () => {
    const seen: Record<string, number> = {};
    let fixed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const p = withDominatedColumns(seed * 4001 + 5);
      const wrong = presolveFailure(p);
      if (wrong) expect.fail(`seed ${seed}: ${wrong}; shrunk to ${JSON.stringify(shrinkProblem(p, presolveFailure))}`);
      if (dominatedColumnPairs(new Presolver(modelFromProblem(p).model)) > 0) fixed++;
      const verdict = solveChecked(p, { gapTolerance: 0, presolve: false }).solver_status;
      seen[verdict] = (seen[verdict] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(75);
    expect(fixed, `${fixed} models with a dominated column fixed`).toBeGreaterThan(60);
  }, 180_000);
});
