/**
 * Rows redundant through other rows' implied column bounds (presolve-redundant-rows.ts): a dense row
 * over nonnegative columns that other rows bound from above, removed; then a seeded property test: random LPs of nonnegative columns and ≤/≥ rows give
 * the same verdict and objective with presolve on and off, and a failing model is shrunk before it is
 * reported.
 */
import { describe, expect, it } from "vitest";
import { modelFromProblem } from "../src/model.js";
import { Presolver } from "../src/presolve.js";
import { impliedRedundantRows } from "../src/presolve-redundant-rows.js";
import type { Problem, ProblemInput } from "./support.js";
import { expectObjective, presolveFailure, problem, row, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

/** x, y ≥ 0 with x ≤ 2 and y ≤ 3 only through rows; x + y ≤ 10 never binds. */
function denseRow(): Problem {
  return problem({
    sense: "maximize",
    variables: [
      { name: "x", lb: 0, ub: null },
      { name: "y", lb: 0, ub: null },
    ],
    objective: {
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 2 },
      ],
    },
    constraints: [
      row("capX", [["x", 2]], null, 4),
      row(
        "capY",
        [
          ["y", 1],
          ["x", 0.5],
        ],
        null,
        3,
      ),
      row(
        "total",
        [
          ["x", 1],
          ["y", 1],
        ],
        null,
        10,
      ),
    ],
  });
}

describe("jaos presolve: rows redundant through implied column bounds", () => {
  it("removes a row that never binds once other rows bound its columns, and the answer is unchanged", () => {
    const pre = new Presolver(modelFromProblem(denseRow()).model);
    expect(impliedRedundantRows(pre)).toBe(1);
    expect(Array.from(pre.rowActive)).toEqual([1, 1, 0]);
    const on = solveChecked(denseRow(), { gapTolerance: 0 });
    expect(on.solver_status).toBe("optimal");
    // x = 0, y = 3: 6
    expectObjective(on, 6);
    expectObjective(on, solveChecked(denseRow(), { gapTolerance: 0, presolve: false }).objective_value!);
  });
});

/** Random LPs: nonnegative columns, some boxed; ≤ and ≥ rows of 1–5 columns, all satisfied at an anchor. */
function packing(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(3, 8);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) variables.push({ name: `x${j}`, lb: g.next() < 0.2 ? -g.int(0, 2) : 0, ub: g.next() < 0.3 ? g.int(1, 6) : null });
  const anchor = variables.map((v) => Math.max(v.lb ?? 0, Math.min(v.ub ?? Infinity, g.int(0, 3))));
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < g.int(3, 8); i++) {
    const terms = new Map<number, number>();
    const size = g.int(1, Math.min(5, n));
    while (terms.size < size) terms.set(g.int(0, n - 1), (g.next() < 0.8 ? g.int(1, 4) : g.int(-3, -1)) / (g.next() < 0.3 ? 2 : 1));
    const at = [...terms].reduce((sum, [j, a]) => sum + a * anchor[j]!, 0);
    const upper = g.next() < 0.75;
    const slack = g.int(0, 6);
    constraints.push({
      name: `r${i}`,
      terms: [...terms].map(([j, a]) => ({ var: `x${j}`, coef: a })),
      lb: upper ? null : at - slack,
      ub: upper ? at + slack : null,
    });
  }
  return problem({
    sense: g.next() < 0.5 ? "minimize" : "maximize",
    variables,
    objective: { constant: 0, terms: variables.map((v) => ({ var: v.name, coef: g.int(-4, 4) })) },
    constraints,
  });
}

describe("jaos presolve with implied-redundant rows agrees with no presolve (seeded random LPs)", () => {
  it("400 random LPs: same verdict and objective, the reduced optimum postsolves to a feasible optimum", () => {
    const seen: Record<string, number> = {};
    let removing = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = packing(seed * 7_919 + 3);
      const wrong = presolveFailure(p);
      if (wrong) expect.fail(`seed ${seed}: ${wrong}; shrunk to ${JSON.stringify(shrinkProblem(p, presolveFailure))}`);
      if (impliedRedundantRows(new Presolver(modelFromProblem(p).model)) > 0) removing++;
      const verdict = solveChecked(p, { gapTolerance: 0, presolve: false }).solver_status;
      seen[verdict] = (seen[verdict] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(100);
    expect(removing, `${removing} models with a row removed`).toBeGreaterThan(20);
  }, 240_000);
});
