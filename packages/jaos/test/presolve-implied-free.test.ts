/**
 * Free column substitution with the deeper implied-free test (presolve-implied-free.ts): a column's
 * bound counts as implied when a row bounds it over other columns of which one is bounded only by
 * yet another row (one without the column). Then a seeded property test: random LPs rich in free
 * columns and equations give the same verdict and objective with presolve on and off, the reduced
 * optimum postsolves to a feasible optimum, and a failing model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import { modelFromProblem } from "../src/model.js";
import { Presolver } from "../src/presolve.js";
import { IMPLIED_FREE_BUDGET, impliedBoundRows, impliedFree, RowActivities } from "../src/presolve-implied-free.js";
import { freeColumnSubstitution } from "../src/presolve-substitution.js";
import type { Problem, ProblemInput } from "./support.js";
import { expectObjective, presolveFailure, problem, row, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

/**
 * j ∈ [0, 5] in the equation j + 2z = 4 (z ∈ [−1, 10], so the equation alone allows j up to 6), in
 * j − k ≤ 0 and in j − w ≥ 0 (w ∈ [0, 1]: j ≥ 0 implied); k is free but k − y = 0 with y ∈ [0, 5]
 * bounds it by 5, so j ≤ k ≤ 5 implies j's upper bound only through k's implied one.
 */
function chain(): Problem {
  return problem({
    variables: [
      { name: "j", lb: 0, ub: 5 },
      { name: "z", lb: -1, ub: 10 },
      { name: "k", lb: null, ub: null },
      { name: "y", lb: 0, ub: 5 },
      { name: "w", lb: 0, ub: 1 },
    ],
    objective: {
      terms: [
        { var: "j", coef: -1 },
        { var: "z", coef: 1 },
        { var: "y", coef: 0.5 },
        { var: "w", coef: 1 },
      ],
    },
    constraints: [
      row(
        "eq",
        [
          ["j", 1],
          ["z", 2],
        ],
        4,
        4,
      ),
      row(
        "upper",
        [
          ["j", 1],
          ["k", -1],
        ],
        null,
        0,
      ),
      row(
        "lower",
        [
          ["j", 1],
          ["w", -1],
        ],
        0,
        null,
      ),
      row(
        "link",
        [
          ["k", 1],
          ["y", -1],
        ],
        0,
        0,
      ),
    ],
  });
}

/**
 * The problem with every column negated (x → −x: bounds swapped and negated, coefficients negated):
 * each implied upper bound of the original is an implied lower bound here and the reverse, so the
 * deeper test must substitute the same columns through the other side.
 */
function mirrored(p: Problem): Problem {
  const neg = (t: { var: string; coef: number }) => ({ var: t.var, coef: -t.coef });
  return {
    ...p,
    variables: p.variables.map((v) => ({ ...v, lb: v.ub === null ? null : -v.ub, ub: v.lb === null ? null : -v.lb })),
    objective: { ...p.objective, terms: p.objective.terms.map(neg) },
    constraints: p.constraints.map((c) => ({ ...c, terms: c.terms.map(neg) })),
  };
}

describe("jaos presolve: implied free columns through another row's implied bound", () => {
  it("substitutes a column whose upper bound only a free column's implied bound implies", () => {
    const shallow = new Presolver(modelFromProblem(chain()).model);
    expect(freeColumnSubstitution(shallow, false)).toBe(1); // k out of link
    const deeper = new Presolver(modelFromProblem(chain()).model);
    expect(freeColumnSubstitution(deeper, true)).toBe(2); // j out of eq as well
    expect(deeper.colActive[0]).toBe(0);
    const on = solveChecked(chain(), { gapTolerance: 0 });
    expect(on.solver_status).toBe("optimal");
    // j = 5 (z = −0.5, k = y = 5, w = 0): −5 − 0.5 + 2.5 = −3
    expectObjective(on, -3);
    expectObjective(on, solveChecked(chain(), { gapTolerance: 0, presolve: false }).objective_value!);
  });

  it("substitutes the same columns in the mirrored model, where only a free column's implied lower bound implies the bound", () => {
    const shallow = new Presolver(modelFromProblem(mirrored(chain())).model);
    expect(freeColumnSubstitution(shallow, false)).toBe(1);
    const deeper = new Presolver(modelFromProblem(mirrored(chain())).model);
    expect(freeColumnSubstitution(deeper, true)).toBe(2);
    expect(deeper.colActive[0]).toBe(0);
    expectObjective(solveChecked(mirrored(chain()), { gapTolerance: 0 }), -3);
  });

  it("keeps to the one-level test once its work budget is spent", () => {
    const pre = new Presolver(modelFromProblem(chain()).model);
    // the deeper test is the only way to j; with no budget only k goes
    expect(freeColumnSubstitution(pre, true, 0)).toBe(1);
  });
});

/**
 * Random LPs: a third of the columns free, the others boxed; rows over 2–4 columns, half of them
 * equations, the rest inequalities and ranges, all satisfied at an anchor point.
 */
function withFreeColumns(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(4, 9);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) {
    if (g.next() < 0.35) variables.push({ name: `x${j}`, lb: null, ub: null });
    else {
      const lb = g.int(-3, 1);
      variables.push({ name: `x${j}`, lb, ub: lb + g.int(1, 8) });
    }
  }
  const anchor = variables.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-1, 3))));
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < g.int(4, 9); i++) {
    const terms = new Map<number, number>();
    const size = g.int(2, Math.min(4, n));
    while (terms.size < size) terms.set(g.int(0, n - 1), (g.next() < 0.3 ? g.int(-8, 8) / 2 : g.int(-3, 3)) || 1);
    const at = [...terms].reduce((sum, [j, a]) => sum + a * anchor[j]!, 0);
    const kind = g.next();
    const lb = kind < 0.5 ? at : kind < 0.7 ? at - g.int(0, 3) : kind < 0.85 ? null : at - g.int(0, 2);
    const ub = kind < 0.5 ? at : kind < 0.7 ? null : at + g.int(0, 3);
    constraints.push({ name: `r${i}`, terms: [...terms].map(([j, a]) => ({ var: `x${j}`, coef: a })), lb, ub });
  }
  return problem({
    sense: g.next() < 0.5 ? "minimize" : "maximize",
    variables,
    objective: { constant: 0, terms: variables.map((v) => ({ var: v.name, coef: g.int(-4, 4) })) },
    constraints,
  });
}

describe("jaos presolve with the deeper implied-free test agrees with no presolve (seeded random LPs)", () => {
  it("400 random LPs: same verdict and objective, the reduced optimum postsolves to a feasible optimum", () => {
    const seen: Record<string, number> = {};
    let deeperOnly = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = withFreeColumns(seed * 104_729 + 17);
      const wrong = presolveFailure(p);
      if (wrong) expect.fail(`seed ${seed}: ${wrong}; shrunk to ${JSON.stringify(shrinkProblem(p, presolveFailure))}`);
      const { model } = modelFromProblem(p);
      if (freeColumnSubstitution(new Presolver(model), true) > freeColumnSubstitution(new Presolver(model), false)) deeperOnly++;
      const verdict = solveChecked(p, { gapTolerance: 0, presolve: false }).solver_status;
      seen[verdict] = (seen[verdict] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(100);
    expect(deeperOnly, `${deeperOnly} models where the deeper test substituted more`).toBeGreaterThan(20);
  }, 240_000);
});

describe("jaos presolve: the implied bounds kept between tests", () => {
  it("give every column the verdict a fresh test gives, on models already edited by substitutions (400 random LPs)", () => {
    let implied = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = new Presolver(modelFromProblem(withFreeColumns(seed * 7_919 + 3)).model);
      // rows edited (entries and sides): the kept coefficients are looked up again for them
      freeColumnSubstitution(p, true);
      const activities = new RowActivities(p);
      const kept = impliedBoundRows(p, IMPLIED_FREE_BUDGET, activities);
      for (let pass = 0; pass < 2; pass++) {
        for (let j = 0; j < p.n; j++) {
          if (!p.colActive[j]) continue;
          const fresh = new RowActivities(p);
          const expected = impliedFree(p, j, impliedBoundRows(p, IMPLIED_FREE_BUDGET, fresh), fresh);
          expect(impliedFree(p, j, kept, activities), `seed ${seed}, column ${j}`).toBe(expected);
          if (expected) implied++;
        }
      }
    }
    expect(implied).toBeGreaterThan(100);
  });
});

/** What the one-level implied-free test of column j reads: its bounds and, per active row, the row's sides, coefficient and activity. */
function verdictInputs(p: Presolver, j: number): Map<number, string> {
  const inputs = new Map<number, string>([[-1, `${p.colLower[j]} ${p.colUpper[j]}`]]);
  const ci = p.mat.colIdx[j];
  for (let t = 0; t < ci.length; t++) {
    const r = ci[t]!;
    if (p.rowActive[r]) inputs.set(r, JSON.stringify([p.rowLower[r], p.rowUpper[r], p.mat.colVal[j][t], p.activity(r)]));
  }
  return inputs;
}

describe("jaos presolve: implied-free verdicts kept across free column substitution's sweeps", () => {
  it("answer only while nothing the test reads has changed, and then as a fresh test does (400 random LPs, whole presolve)", () => {
    let answered = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = new Presolver(modelFromProblem(withFreeColumns(seed * 6_271 + 11)).model);
      // no budget, or a small one: the kept verdicts answer only where the deeper test no longer runs
      p.budget.impliedFree = seed % 2 === 0 ? 0 : 200;
      const seen = new Map<number, Map<number, string>>();
      const found = p.verdicts.found.bind(p.verdicts);
      p.verdicts.found = (j: number) => {
        seen.set(j, verdictInputs(p, j));
        found(j);
      };
      const kept = p.verdicts.knownNotFree.bind(p.verdicts);
      p.verdicts.knownNotFree = (j: number) => {
        const known = kept(j);
        if (known) {
          answered++;
          // every row the column has now, with what the test reads of it, as when the verdict was taken
          // (a row lost since, by cancellation, may be missing)
          const then = seen.get(j)!;
          for (const [r, now] of verdictInputs(p, j)) expect(then.get(r), `seed ${seed}, column ${j}, row ${r}`).toBe(now);
          expect(impliedFree(p, j, null, new RowActivities(p)), `seed ${seed}, column ${j}`).toBe(false);
        }
        return known;
      };
      p.run();
    }
    expect(answered).toBeGreaterThan(100);
  });
});
