/**
 * Presolve reductions one at a time, each on a small model where it fires: the reduced model is
 * smaller, the postsolved point is feasible for the original and optimal (same objective as a solve
 * without presolve), and the re-solve from the postsolved basis needs no iterations. Then a seeded
 * property test: sparse random LPs and MILPs full of two-column rows give the same verdict and
 * objective with presolve on and off.
 */
import { describe, expect, it } from "vitest";
import type { Problem, ProblemInput, Term } from "./support.js";
import { LpEngine } from "../src/lp.js";
import { maxViolation, modelFromProblem, objectiveValue } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import { expectObjective, lp, problem, row, seededGenerator, solveChecked } from "./support.js";

/** Solves with presolve on and off: same status and objective, and the presolved optimum re-derived at once. */
function expectSameWithoutPresolve(p: Problem) {
  const on = solveChecked(p);
  const off = solveChecked(p, { presolve: false });
  expect(on.solver_status).toBe(off.solver_status);
  if (off.solver_status === "optimal") {
    expectObjective(on, off.objective_value!);
    expect(on.stats.verification?.resolveIterations ?? 0).toBe(0);
  }
  return on;
}

describe("jaos presolve: doubleton equations", () => {
  // min x + 2y + z s.t. 2x − y = 1 (doubleton), x + y + z ≥ 4, y − z ≤ 1, x ≤ 3, y ≤ 4, z ≤ 5.
  // Substituting x = (1 + y)/2 leaves y's bounds [0, 4] ∩ (x ≤ 3 ⇒ y ≤ 5) and rows over y, z.
  const doubleton = lp(
    [
      { name: "x", lb: 0, ub: 3 },
      { name: "y", lb: 0, ub: 4 },
      { name: "z", lb: 0, ub: 5 },
    ],
    [
      ["x", 1],
      ["y", 2],
      ["z", 1],
    ],
    [
      row(
        "d",
        [
          ["x", 2],
          ["y", -1],
        ],
        1,
        1,
      ),
      row(
        "cover",
        [
          ["x", 1],
          ["y", 1],
          ["z", 1],
        ],
        4,
        null,
      ),
      row(
        "link",
        [
          ["y", 1],
          ["z", -1],
        ],
        null,
        1,
      ),
    ],
  );

  it("removes the equation and one of its columns, and the postsolved optimum matches the unpresolved one", () => {
    const { model } = modelFromProblem(doubleton);
    const pre = presolve(model);
    expect(pre.status).toBe("reduced");
    expect(pre.reduced.rows).toBeLessThan(model.rows);
    expect(pre.reduced.cols).toBeLessThan(model.cols);
    const r = expectSameWithoutPresolve(doubleton);
    expect(r.solver_status).toBe("optimal");
  });

  it("moves the eliminated column's bounds onto the kept one (its upper bound binds at the optimum)", () => {
    // maximise y: y = 2x − 1 with x ≤ 3 makes y ≤ 5, tighter than y's own bound 10
    const p = lp(
      [
        { name: "x", lb: 0, ub: 3 },
        { name: "y", lb: 0, ub: 10 },
        { name: "w", lb: 0, ub: 8 },
      ],
      [
        ["y", 1],
        ["w", 1],
      ],
      [
        row(
          "d",
          [
            ["x", 2],
            ["y", -1],
          ],
          1,
          1,
        ),
        row(
          "cap",
          [
            ["y", 1],
            ["w", 1],
          ],
          null,
          9,
        ),
      ],
      "maximize",
    );
    const r = expectSameWithoutPresolve(p);
    expectObjective(r, 9);
    expect(r.solution!.x).toBeCloseTo(3);
  });

  it("leaves a MILP's doubleton equation (and its inequality singleton) to the cut separators, with the same answer", () => {
    // 3n − c = 1 with n integer: c = 3n − 1 ∈ [0, 7.5] ⇒ n ∈ {1, 2}; min −n + c/10 → n = 2. The LP-only
    // reductions would substitute c out and turn r into an equality; on a MILP both rows stay.
    const p = lp(
      [
        { name: "n", lb: 0, ub: 10, type: "integer" },
        { name: "c", lb: 0, ub: 7.5 },
        { name: "s", lb: 0, ub: 4 },
      ],
      [
        ["n", -1],
        ["c", 0.1],
        ["s", 1],
      ],
      [
        row(
          "d",
          [
            ["n", 3],
            ["c", -1],
          ],
          1,
          1,
        ),
        row(
          "r",
          [
            ["c", 1],
            ["s", 1],
          ],
          2,
          null,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    expect(presolve(model).reduced.rows).toBe(model.rows);
    const r = expectSameWithoutPresolve(p);
    expect(r.solution!.n).toBe(2);
    expect(r.solution!.c).toBeCloseTo(5);
  });
});

describe("jaos presolve: dual fixing", () => {
  it("fixes a column whose cost and rows all push it to one bound", () => {
    // y has cost +1 and appears only with + in ≤ rows: lowering it never hurts, so y = 0
    const p = lp(
      [
        { name: "x", lb: 0, ub: 5 },
        { name: "y", lb: 0, ub: 5 },
        { name: "z", lb: 0, ub: 5 },
      ],
      [
        ["x", -1],
        ["y", 1],
        ["z", -1],
      ],
      [
        row(
          "a",
          [
            ["x", 1],
            ["y", 1],
            ["z", 1],
          ],
          null,
          7,
        ),
        row(
          "b",
          [
            ["x", 1],
            ["y", 2],
            ["z", -1],
          ],
          null,
          3,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    expect(presolve(model).reduced.cols).toBeLessThan(model.cols);
    const r = expectSameWithoutPresolve(p);
    expect(r.solution!.y).toBe(0);
  });
});

describe("jaos presolve: forcing rows in the basis postsolve", () => {
  it("makes a forced column basic with its row where the reduced costs need the row's dual", () => {
    // x + y ≤ 0 forces x = y = 0, whose costs (−1, −2) want them up: the row's dual must pay for
    // that, so one of them is basic with the row and the re-solve on the original takes no iteration
    const p = lp(
      [
        { name: "x", lb: 0, ub: null },
        { name: "y", lb: 0, ub: null },
        { name: "z", lb: 0, ub: 10 },
        { name: "w", lb: 0, ub: 10 },
      ],
      [
        ["x", -1],
        ["y", -2],
        ["z", 1],
        ["w", 2],
      ],
      [
        row(
          "f",
          [
            ["x", 1],
            ["y", 1],
          ],
          null,
          0,
        ),
        row(
          "g",
          [
            ["x", 1],
            ["z", 1],
            ["w", 1],
          ],
          3,
          null,
        ),
        row(
          "h",
          [
            ["y", 1],
            ["z", 1],
            ["w", -1],
          ],
          null,
          1,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    expect(presolve(model).reductions.some((r) => r.kind === "forcing")).toBe(true);
    const r = expectSameWithoutPresolve(p);
    expectObjective(r, 4);
  });
});

describe("jaos presolve: free column substitution", () => {
  it("substitutes an implied-free column out of its equation into its other rows", () => {
    // x = y + z with y, z ∈ [0, 3] keeps x in [0, 6], inside its bounds [0, 100]: x is free in effect
    // and goes with the equation; g and h then hold y and z instead
    const p = lp(
      [
        { name: "x", lb: 0, ub: 100 },
        { name: "y", lb: 0, ub: 3 },
        { name: "z", lb: 0, ub: 3 },
        { name: "w", lb: 0, ub: 10 },
      ],
      [
        ["x", -2],
        ["y", 0.5],
        ["z", 0.1],
        ["w", 1],
      ],
      [
        row(
          "e",
          [
            ["x", 1],
            ["y", -1],
            ["z", -1],
          ],
          0,
          0,
        ),
        row(
          "g",
          [
            ["x", 1],
            ["z", 1],
            ["w", 1],
          ],
          null,
          8,
        ),
        row(
          "h",
          [
            ["x", 1],
            ["w", -1],
          ],
          null,
          4,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    const pre = presolve(model);
    expect(pre.reductions).toContainEqual(expect.objectContaining({ kind: "substitute", col: 0, row: 0 }));
    const r = expectSameWithoutPresolve(p);
    expect(r.solution!.x).toBeCloseTo(r.solution!.y! + r.solution!.z!);
  });
});

describe("jaos presolve: parallel rows", () => {
  it("merges a row that is a multiple of another, and the removed row holds the basis where its side binds", () => {
    // 2x + 4y ≤ 12 is x + 2y ≤ 6, tighter than x + 2y ≤ 10: the first row goes, the second keeps ≤ 6,
    // and at the optimum (6, 0) the removed row is the one at its side
    const p = lp(
      [
        { name: "x", lb: 0, ub: 10 },
        { name: "y", lb: 0, ub: 10 },
      ],
      [
        ["x", 1],
        ["y", 1],
      ],
      [
        row(
          "a",
          [
            ["x", 1],
            ["y", 2],
          ],
          null,
          10,
        ),
        row(
          "b",
          [
            ["x", 2],
            ["y", 4],
          ],
          null,
          12,
        ),
        row(
          "r",
          [
            ["x", 1],
            ["y", -1],
          ],
          -1,
          null,
        ),
      ],
      "maximize",
    );
    const { model } = modelFromProblem(p);
    expect(presolve(model).reductions).toContainEqual({ kind: "parallel", row: 1, kept: 0, scale: 2 });
    const r = expectSameWithoutPresolve(p);
    expectObjective(r, 6);
  });
});

describe("jaos presolve: column singletons in inequality rows", () => {
  it("turns the row into an equality at the side the singleton's cost names and substitutes it out", () => {
    // s appears only in s + x + y ≥ 4 with cost 3 > 0; s = 4 − x − y ∈ [2, 4] inside [0, 10] is
    // implied free, so its row holds at 4 at every optimum
    const p = lp(
      [
        { name: "s", lb: 0, ub: 10 },
        { name: "x", lb: 0, ub: 1 },
        { name: "y", lb: 0, ub: 1 },
      ],
      [
        ["s", 3],
        ["x", 1],
        ["y", 2],
      ],
      [
        row(
          "cover",
          [
            ["s", 1],
            ["x", 1],
            ["y", 1],
          ],
          4,
          null,
        ),
        row(
          "pair",
          [
            ["x", 1],
            ["y", -1],
          ],
          null,
          0.5,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    const pre = presolve(model);
    expect(pre.reductions.some((r) => r.kind === "substitute")).toBe(true);
    const r = expectSameWithoutPresolve(p);
    expectObjective(r, 9); // s = 2, x = y = 1
  });
});

describe("jaos presolve: dominated columns (LPs)", () => {
  it("fixes a column whose reduced cost the singletons' dual bounds keep positive", () => {
    // b and s (singletons of row e) bound its dual to [−1, 1], z bounds row f's to [0, 2]: a's reduced
    // cost 4 − 0.5·y_e − y_f ≥ 1.5 > 0, so a = 0 in every optimum
    const p = lp(
      [
        { name: "a", lb: 0, ub: null },
        { name: "b", lb: 0, ub: null },
        { name: "s", lb: 0, ub: null },
        { name: "z", lb: 0, ub: null },
      ],
      [
        ["a", 4],
        ["b", 1],
        ["s", 1],
        ["z", 2],
      ],
      [
        row(
          "e",
          [
            ["a", 0.5],
            ["b", 1],
            ["s", -1],
          ],
          10,
          10,
        ),
        row(
          "f",
          [
            ["a", 1],
            ["z", 1],
          ],
          1,
          null,
        ),
      ],
    );
    const { model } = modelFromProblem(p);
    const pre = presolve(model);
    expect(pre.reductions).toContainEqual({ kind: "fix", col: 0, value: 0 });
    const r = expectSameWithoutPresolve(p);
    expectObjective(r, 12);
    expect(r.solution!.a).toBe(0);
  });

  it("is not applied to MILPs", () => {
    const p = problem({
      sense: "minimize",
      variables: [
        { name: "a", lb: 0, ub: 10, type: "integer" },
        { name: "b", lb: 0, ub: null },
        { name: "s", lb: 0, ub: null },
      ],
      objective: {
        constant: 0,
        terms: [
          { var: "a", coef: 4 },
          { var: "b", coef: 1 },
          { var: "s", coef: 1 },
        ],
      },
      constraints: [
        row(
          "e",
          [
            ["a", 1],
            ["b", 1],
            ["s", -1],
          ],
          2.5,
          2.5,
        ),
      ],
    });
    expect(presolve(modelFromProblem(p).model).reductions.some((r) => r.kind === "fix" && r.col === 0)).toBe(false);
    expectSameWithoutPresolve(p);
  });
});

/**
 * The reduced LP solved on its own: its optimum postsolves to a point feasible for the original whose
 * objective (in the problem's sense) is `expected`, the optimum found without presolve.
 */
function expectPresolvedOptimum(p: Problem, expected: number, where: string): void {
  const { model, sign } = modelFromProblem(p);
  const pre = presolve(model);
  expect(pre.status, where).toBe("reduced");
  const r = new LpEngine(pre.reduced).solve({ deadline: performance.now() + 10_000 });
  expect(r.status, where).toBe("optimal");
  const x = pre.postsolve(r.x!);
  expect(maxViolation(model, x), where).toBeLessThanOrEqual(1e-6);
  expect(Math.abs(sign * objectiveValue(model, x) - expected), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
  expect(Math.abs(r.objective - objectiveValue(model, x)), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
}

/** Sparse random models: most rows have two or three columns, a third of them equalities. */
function sparseRandom(seed: number, mixedInteger: boolean): Problem {
  const g = seededGenerator(seed);
  const n = g.int(4, 14);
  const m = g.int(2, 10);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) {
    const lb = g.next() < 0.15 ? null : g.int(-3, 2);
    const ub = g.next() < 0.3 ? null : (lb ?? -3) + g.int(0, 8);
    const integer = mixedInteger && g.next() < 0.5;
    // MILPs keep a bounded search: integer columns boxed
    variables.push(integer ? { name: `x${j}`, lb: lb ?? -3, ub: ub ?? (lb ?? -3) + 6, type: "integer" } : { name: `x${j}`, lb, ub });
  }
  const anchor = variables.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-2, 4))));
  const coef = () => (g.next() < 0.3 ? g.int(-12, 12) / 4 : g.int(-4, 4)) || 1;
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < m; i++) {
    const size = g.next() < 0.6 ? 2 : g.int(1, Math.min(5, n));
    const cols = new Set<number>();
    while (cols.size < size) cols.add(g.int(0, n - 1));
    const terms = [...cols].map((j) => ({ var: `x${j}`, coef: coef() }));
    // most rows hold at an anchor point inside the bounds, so most models are feasible
    const rhs = g.next() < 0.85 ? terms.reduce((sum, t) => sum + t.coef * anchor[Number(t.var.slice(1))]!, 0) : g.int(-6, 12);
    const kind = g.next();
    const [lb, ub] = kind < 0.35 ? [rhs, rhs] : kind < 0.65 ? [null, rhs + g.int(0, 3)] : kind < 0.9 ? [rhs - g.int(0, 3), null] : [rhs - g.int(0, 6), rhs];
    constraints.push({ name: `r${i}`, terms, lb, ub });
  }
  const cost: Term[] = variables.map((v) => [v.name, g.next() < 0.2 ? 0 : g.int(-5, 5)]);
  return lp(variables, cost, constraints, g.next() < 0.5 ? "minimize" : "maximize");
}

describe("jaos presolve on and off agree (seeded sparse random models)", () => {
  for (const [label, mixedInteger, count] of [
    ["LPs", false, 300],
    ["MILPs", true, 150],
  ] as const) {
    it(`${count} random ${label}: same verdict and objective`, () => {
      const seen: Record<string, number> = {};
      let reduced = 0;
      for (let seed = 1; seed <= count; seed++) {
        const p = sparseRandom(seed * 104729 + (mixedInteger ? 1 : 0), mixedInteger);
        const on = solveChecked(p, { timeLimitSeconds: 10, gapTolerance: 0 });
        const off = solveChecked(p, { timeLimitSeconds: 10, gapTolerance: 0, presolve: false });
        const where = `${label} seed ${seed}: with presolve ${on.solver_status} ${on.objective_value}, without ${off.solver_status} ${off.objective_value}`;
        expect(on.solver_status, where).toBe(off.solver_status);
        if (off.solver_status === "optimal") {
          expect(Math.abs(on.objective_value! - off.objective_value!), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(off.objective_value!)));
          // the reduced LP itself (before any re-solve on the original) is optimal at the same value
          if (!mixedInteger) expectPresolvedOptimum(p, off.objective_value!, where);
        }
        seen[off.solver_status] = (seen[off.solver_status] ?? 0) + 1;
        if (on.stats.presolve.rowsRemoved > 0) reduced++;
      }
      expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(count / 4);
      expect(reduced).toBeGreaterThan(count / 2);
    }, 120_000);
  }
});
