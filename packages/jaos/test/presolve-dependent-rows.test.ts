/**
 * Dependent equations in presolve (presolve-dependent-rows.ts): an equation that is a linear
 * combination of others goes when its right-hand side agrees, and the model is infeasible when it does
 * not. Then a seeded property test: random LPs with planted combinations of their equations (some with
 * a right-hand side off) give the same verdict and objective with presolve on and off, the reduced LP's
 * optimum postsolves to a feasible optimum, and a failing model is shrunk (rows, then columns, dropped
 * while it still fails) before it is reported.
 */
import { describe, expect, it } from "vitest";
import type { Problem, ProblemInput, Term } from "./support.js";
import { modelFromProblem } from "../src/model.js";
import { Presolver } from "../src/presolve.js";
import { dependentEquations } from "../src/presolve-dependent-rows.js";
import { expectObjective, lp, presolveFailure, row, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

/** x + y + z = 4, y − z + w = 1, and their sum x + 2y + w = rhs (5 agrees, anything else contradicts). */
function sumOfTwo(rhs: number): Problem {
  return lp(
    ["x", "y", "z", "w"].map((name) => ({ name, lb: 0, ub: 10 })),
    [
      ["x", 1],
      ["y", -2],
      ["z", 1],
      ["w", 3],
    ],
    [
      row(
        "a",
        [
          ["x", 1],
          ["y", 1],
          ["z", 1],
        ],
        4,
        4,
      ),
      row(
        "b",
        [
          ["y", 1],
          ["z", -1],
          ["w", 1],
        ],
        1,
        1,
      ),
      row(
        "sum",
        [
          ["x", 1],
          ["y", 2],
          ["w", 1],
        ],
        rhs,
        rhs,
      ),
    ],
  );
}

describe("jaos presolve: dependent equations", () => {
  it("removes an equation that is the sum of two others, and the answer is the one without presolve", () => {
    const p = sumOfTwo(5);
    const { model } = modelFromProblem(p);
    const pre = new Presolver(model);
    expect(dependentEquations(pre)).toBe(1);
    expect(pre.stack).toContainEqual({ kind: "dependent", row: 2 });
    const on = solveChecked(p, { gapTolerance: 0 });
    const off = solveChecked(p, { gapTolerance: 0, presolve: false });
    expect(on.solver_status).toBe("optimal");
    expectObjective(on, off.objective_value!);
    // x + y + z = 4, y − z + w = 1: min x − 2y + z + 3w puts y = 2.5, z = 1.5 (x = w = 0) at −3.5
    expectObjective(on, -3.5);
  });

  it("finds the model infeasible when the combination's right-hand side is off, as the solve without presolve does", () => {
    const p = sumOfTwo(6);
    const pre = new Presolver(modelFromProblem(p).model);
    dependentEquations(pre);
    expect(pre.infeasible).toMatch(/linear combination/);
    expect(solveChecked(p).solver_status).toBe("infeasible");
    expect(solveChecked(p, { presolve: false }).solver_status).toBe("infeasible");
  });

  it("stops at its budget, keeping the rows it has not reached", () => {
    const pre = new Presolver(modelFromProblem(sumOfTwo(5)).model);
    expect(dependentEquations(pre, 0)).toBe(0);
    expect(pre.rowActive[2]).toBe(1);
  });
});

/**
 * Random LPs with a few equations of 2–4 columns, inequalities, and one to three planted equations,
 * each a combination of two or three earlier equations with small scales; one in six with its
 * right-hand side off by one (an infeasible model).
 */
function withDependentRows(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(4, 10);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) {
    const lb = g.next() < 0.15 ? null : g.int(-3, 2);
    const ub = g.next() < 0.3 ? null : (lb ?? -3) + g.int(0, 8);
    variables.push({ name: `x${j}`, lb, ub });
  }
  const anchor = variables.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-2, 4))));
  const at = (terms: Map<number, number>) => [...terms].reduce((sum, [j, a]) => sum + a * anchor[j]!, 0);
  const equations: { terms: Map<number, number>; rhs: number }[] = [];
  const constraints: ProblemInput["constraints"] = [];
  const add = (name: string, terms: Map<number, number>, lb: number | null, ub: number | null) => {
    const kept = [...terms].filter(([, a]) => a !== 0);
    if (kept.length > 0) constraints.push({ name, terms: kept.map(([j, a]) => ({ var: `x${j}`, coef: a })), lb, ub });
  };
  const base = g.int(2, 5);
  for (let i = 0; i < base; i++) {
    const terms = new Map<number, number>();
    const size = g.int(2, Math.min(4, n));
    while (terms.size < size) terms.set(g.int(0, n - 1), (g.next() < 0.3 ? g.int(-12, 12) / 4 : g.int(-4, 4)) || 1);
    const rhs = at(terms);
    equations.push({ terms, rhs });
    add(`e${i}`, terms, rhs, rhs);
  }
  for (let i = 0; i < g.int(0, 3); i++) {
    const terms = new Map<number, number>([
      [g.int(0, n - 1), g.int(-3, 3) || 1],
      [g.int(0, n - 1), g.int(-3, 3) || 1],
    ]);
    const rhs = at(terms);
    if (g.next() < 0.5) add(`le${i}`, terms, null, rhs + g.int(0, 3));
    else add(`ge${i}`, terms, rhs - g.int(0, 3), null);
  }
  const planted = g.int(1, 3);
  for (let d = 0; d < planted; d++) {
    const terms = new Map<number, number>();
    let rhs = 0;
    for (let k = 0; k < g.int(2, 3); k++) {
      const e = equations[g.int(0, equations.length - 1)]!;
      const s = [1, -1, 2, 0.5, -3][g.int(0, 4)]!;
      for (const [j, a] of e.terms) terms.set(j, (terms.get(j) ?? 0) + s * a);
      rhs += s * e.rhs;
    }
    if (g.next() < 1 / 6) rhs += 1;
    add(`dep${d}`, terms, rhs, rhs);
  }
  // the planted rows somewhere among the others, not always last
  for (let i = constraints.length - 1; i > 0; i--) {
    const k = g.int(0, i);
    [constraints[i], constraints[k]] = [constraints[k]!, constraints[i]!];
  }
  const cost: Term[] = variables.map((v) => [v.name, g.next() < 0.2 ? 0 : g.int(-5, 5)]);
  return lp(variables, cost, constraints, g.next() < 0.5 ? "minimize" : "maximize");
}

describe("jaos presolve with dependent equations agrees with no presolve (seeded random LPs)", () => {
  it("300 random LPs: same verdict and objective, the reduced optimum postsolves to a feasible optimum", () => {
    const seen: Record<string, number> = {};
    let removed = 0;
    let contradicted = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const p = withDependentRows(seed * 6007 + 11);
      const wrong = presolveFailure(p);
      if (wrong) expect.fail(`seed ${seed}: ${wrong}; shrunk to ${JSON.stringify(shrinkProblem(p, presolveFailure))}`);
      const { model } = modelFromProblem(p);
      const pre = new Presolver(model);
      const count = dependentEquations(pre);
      if (count > 0) removed++;
      if (pre.infeasible) contradicted++;
      const verdict = solveChecked(p, { gapTolerance: 0, presolve: false }).solver_status;
      seen[verdict] = (seen[verdict] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(100);
    expect(removed, `${removed} models with a dependent equation removed`).toBeGreaterThan(150);
    expect(contradicted, `${contradicted} models with contradicting equations`).toBeGreaterThan(20);
  }, 180_000);

  it("shrinks a failing model to the rows and columns the failure needs", () => {
    // a stand-in failure, "some row holds both y and w": of sumOfTwo's three rows one is kept, over y and w
    const needs = (q: Problem) =>
      q.constraints.some((c) => c.terms.some((t) => t.var === "y") && c.terms.some((t) => t.var === "w")) ? "y and w share a row" : null;
    const small = shrinkProblem(sumOfTwo(5), needs);
    expect(small.constraints).toHaveLength(1);
    expect(small.variables.map((v) => v.name).sort()).toEqual(["w", "y"]);
  });
});
