/**
 * jaos on big-M models (issue 24): the two models of the issue, the presolve rounding behind the second,
 * the live progress bound, and the integrality tolerance a caller may set. Every returned point goes
 * through the independent checker with integrality exact (tolerance 0): jaos reports its integer
 * columns as integers, so nothing downstream has to snap them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { checkSolution } from "../../../../../functions/core/solvers/checker.js";
import { solveJaos, type JaosOptions } from "../../../../../functions/core/solvers/jaos-engine.js";
import { IntegralityRule, modelFromProblem, presolve } from "@incumbent/jaos";
import { jaosEngine } from "../../../../../solver-container/src/adapters/jaos.js";
import { expectObjective, problem, seededGenerator } from "../../../../support/jaos.js";

const t = (coef: number, name: string) => ({ var: name, coef });

/** Solves and checks: the solution passes the checker with integer columns exactly integral. */
function solveExact(p: Problem, options: Partial<JaosOptions> = {}) {
  const r = solveJaos(p, { timeLimitSeconds: 30, gapTolerance: 1e-6, ...options });
  if (r.solution) {
    const violations = checkSolution(p, r.solution, { objective: r.objective_value, tolerance: 1e-6, integralityTolerance: 0 });
    expect(violations, violations.map((v) => v.message).join("; ")).toEqual([]);
  }
  return r;
}

/** The fixed-charge model: eight binaries y_j, x_j − M·y_j ≤ 0, Σx ≥ 3, cost Σ x_j + 10·y_j; optimum 13. */
function fixedCharge(bigM: number): Problem {
  const j8 = Array.from({ length: 8 }, (_, j) => j);
  return problem({
    variables: j8.flatMap((j) => [
      { name: `x${j}`, lb: 0, ub: null },
      { name: `y${j}`, lb: 0, ub: 1, type: "binary" as const },
    ]),
    objective: { constant: 0, terms: j8.flatMap((j) => [t(1, `x${j}`), t(10, `y${j}`)]) },
    constraints: [
      ...j8.map((j) => ({ name: `link${j}`, terms: [t(1, `x${j}`), t(-bigM, `y${j}`)], lb: null, ub: 0 })),
      { name: "demand", terms: j8.map((j) => t(1, `x${j}`)), lb: 3, ub: null },
    ],
  });
}

/** The second model: min 100x + y, y − M·x ≤ 0, y ≥ 5, x binary; optimum 105 at x = 1. */
function switchedOn(bigM: number): Problem {
  return problem({
    variables: [
      { name: "x", lb: 0, ub: 1, type: "binary" },
      { name: "y", lb: 5, ub: null },
    ],
    objective: { constant: 0, terms: [t(100, "x"), t(1, "y")] },
    constraints: [{ name: "link", terms: [t(1, "y"), t(-bigM, "x")], lb: null, ub: 0 }],
  });
}

describe("jaos on the big-M models of issue 24", () => {
  it("solves the fixed-charge model to 13 for M from 1e3 to 1e9, never the trickle 3.000003", () => {
    for (const bigM of [1e3, 1e5, 1e7, 1e8, 1e9]) {
      for (const presolveOn of [true, false]) {
        const r = solveExact(fixedCharge(bigM), { presolve: presolveOn });
        expect(r.solver_status, `M = ${bigM}`).toBe("optimal");
        expectObjective(r, 13);
        expect(r.dual_bound!).toBeLessThanOrEqual(13 + 1e-9);
      }
    }
  });

  it("solves min 100x + y, y − M·x ≤ 0, y ≥ 5 to 105 at x = 1, never infeasible", () => {
    for (const bigM of [1e3, 1e6, 1e7, 1e9]) {
      for (const presolveOn of [true, false]) {
        const r = solveExact(switchedOn(bigM), { presolve: presolveOn });
        expect(r.solver_status, `M = ${bigM}, presolve ${presolveOn}`).toBe("optimal");
        expectObjective(r, 105);
        expect(r.solution).toEqual({ x: 1, y: 5 });
      }
    }
  });
});

describe("jaos presolve: implied bounds of integer columns rounded on the row's scale", () => {
  it("keeps x ≥ 1 from y − 1e7·x ≤ 0 with y ≥ 5 (x ≥ 5e-7), where an absolute 1e-6 rounded it to 0 and dropped the row", () => {
    const { model } = modelFromProblem(switchedOn(1e7));
    const pre = presolve(model);
    expect(pre.status).toBe("reduced");
    // the row is gone only if x's bound now carries it
    const x = pre.colMap.indexOf(0);
    const xLower = x >= 0 ? pre.reduced.colLower[x] : pre.postsolve(new Float64Array(pre.reduced.cols))[0];
    expect(xLower).toBe(1);
  });

  it("rounds a singleton row a·x ≥ b to the least integer that satisfies it, for a from 1e3 to 1e9 (generated)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 999 }), (exponent, mantissa, b) => {
        const a = mantissa * 10 ** exponent;
        const p = problem({
          variables: [
            { name: "x", lb: 0, ub: 10, type: "integer" },
            { name: "z", lb: 0, ub: 1, type: "integer" },
          ],
          objective: { constant: 0, terms: [t(1, "x"), t(1, "z")] },
          constraints: [
            { name: "single", terms: [t(a, "x")], lb: b, ub: null },
            { name: "keep", terms: [t(1, "x"), t(1, "z")], lb: null, ub: 20 },
          ],
        });
        const pre = presolve(modelFromProblem(p).model);
        const x = pre.colMap.indexOf(0);
        const lower = x >= 0 ? pre.reduced.colLower[x]! : pre.postsolve(new Float64Array(pre.reduced.cols))[0]!;
        // b / a < 1 here: the least integer x with a·x ≥ b is 1
        expect(lower).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * min Σ cost·x over a few covering rows, x integer in [0, 3] (seeded): searches with several incumbents.
 * Feasible by construction: a row's demand is at most what every x at 3 covers (about one seed in 700 drew
 * more, an infeasible model the property's `optimal` then failed on). The generator's draws are unchanged.
 */
function covering(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(8, 14);
  const m = g.int(2, 4);
  const cols = Array.from({ length: n }, (_, i) => i);
  const costs = cols.map(() => g.int(5, 40));
  const rows = Array.from({ length: m }, () => {
    const coefs = cols.map(() => g.int(1, 30));
    const cover = 3 * coefs.reduce((a, b) => a + b, 0);
    return { coefs, lb: Math.min(g.int(60, 200), cover) };
  });
  return problem({
    variables: cols.map((i) => ({ name: `x${i}`, lb: 0, ub: 3, type: "integer" as const })),
    objective: { constant: 0, terms: cols.map((i) => t(costs[i]!, `x${i}`)) },
    constraints: rows.map(({ coefs, lb }, k) => ({ name: `r${k}`, terms: cols.map((i) => t(coefs[i]!, `x${i}`)), lb, ub: null })),
  });
}

describe("jaos live progress", () => {
  it("never reports a bound above the optimum, nor a gap of 0 before the proof (generated)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const p = covering(seed);
        const reports: { incumbent: number | null; bound: number | null }[] = [];
        const r = solveJaos(p, { timeLimitSeconds: 30, gapTolerance: 0, onProgress: (q) => reports.push(q) });
        expect(r.solver_status).toBe("optimal");
        const optimum = r.objective_value!;
        for (const q of reports) {
          if (q.bound === null) continue;
          // minimisation: a valid bound is at most the optimum; equal to a worse incumbent it is a lie
          expect(q.bound, JSON.stringify(reports)).toBeLessThanOrEqual(optimum + 1e-9 * Math.max(1, Math.abs(optimum)));
        }
      }),
      // seeds 1, 4, 7, 9 and 13 broke it before (the root out of the queue while the first incumbent reported)
      { numRuns: 40, examples: [[1], [4], [7], [9], [13]] },
    );
  });

  it("reports no bound equal to the incumbent while the root is being solved on the fixed-charge model", () => {
    const reports: { incumbent: number | null; bound: number | null }[] = [];
    const r = solveJaos(fixedCharge(1e7), { timeLimitSeconds: 30, gapTolerance: 1e-9, onProgress: (q) => reports.push(q) });
    expect(r.solver_status).toBe("optimal");
    expect(reports.length).toBeGreaterThan(0);
    for (const q of reports) if (q.bound !== null) expect(q.bound).toBeLessThanOrEqual(13 + 1e-9);
    // the first incumbent comes from the root, whose LP bound (≈ 3) is far below it
    expect(reports[0]!.bound === null || reports[0]!.bound < reports[0]!.incumbent! - 1).toBe(true);
  });
});

describe("jaos live progress of an unbounded MILP", () => {
  it("reports nothing of the zero-objective search that looks for a feasible point", () => {
    // min −x, 2x − 2y = 2 over nonnegative integers: the relaxation is unbounded, and the MILP is
    // because (1, 0) is feasible; the search that finds that point minimises 0, not −x
    const unbounded = problem({
      variables: [
        { name: "x", lb: 0, ub: null, type: "integer" },
        { name: "y", lb: 0, ub: null, type: "integer" },
      ],
      objective: { constant: 0, terms: [t(-1, "x")] },
      constraints: [{ name: "r", terms: [t(2, "x"), t(-2, "y")], lb: 2, ub: 2 }],
    });
    const reports: unknown[] = [];
    const incumbents: unknown[] = [];
    const r = solveJaos(unbounded, { timeLimitSeconds: 30, gapTolerance: 1e-6, onProgress: (q) => reports.push(q), onIncumbent: (q) => incumbents.push(q) });
    expect(r.solver_status).toBe("unbounded");
    expect(reports).toEqual([]);
    expect(incumbents).toEqual([]);
  });
});

/**
 * min x + 10w, x + w ≥ 2.0000005, x integer, w ∈ [0, 1]: the LP puts x at 2.0000005. Within the default
 * tolerance (1e-6) x = 2 is integral and its row misses its side by 2.5e-7 relative — inside the row
 * tolerance, objective 2. With the tolerance at 1e-9 x is fractional (a cut or a branch follows): x = 2
 * and w = 5e-7, 2.000005.
 */
const NEAR_INTEGRAL = problem({
  variables: [
    { name: "x", lb: 0, ub: 10, type: "integer" },
    { name: "w", lb: 0, ub: 1 },
  ],
  objective: { constant: 0, terms: [t(1, "x"), t(10, "w")] },
  constraints: [{ name: "r", terms: [t(1, "x"), t(1, "w")], lb: 2.0000005, ub: null }],
});

describe("jaos honours the integrality tolerance it is given", () => {
  it("takes a value 5e-7 from an integer as fractional when the tolerance is 1e-9, not by default", () => {
    const loose = solveExact(NEAR_INTEGRAL, { presolve: false });
    const tight = solveExact(NEAR_INTEGRAL, { presolve: false, integralityTolerance: 1e-9 });
    expect(loose.solver_status).toBe("optimal");
    expect(tight.solver_status).toBe("optimal");
    expectObjective(loose, 2, 1e-9);
    expectObjective(tight, 2.000005, 1e-9);
  });

  it("takes settings.integralityTolerance through the adapter's engine and says so in settings_applied", async () => {
    const settings = { timeLimitSeconds: 30, gapTolerance: 1e-6, threads: 1 };
    const plain = await jaosEngine.solve(NEAR_INTEGRAL, settings, () => undefined);
    const tight = await jaosEngine.solve(NEAR_INTEGRAL, { ...settings, integralityTolerance: 1e-9 }, () => undefined);
    expect(plain.settings_applied).not.toHaveProperty("integrality_tolerance");
    expect(tight.settings_applied).toMatchObject({ integrality_tolerance: 1e-9 });
    // presolve tightens x ≥ 2 and keeps the row: the tight run still has to branch to leave 2.0000005
    expect(tight.objective_value!).toBeGreaterThan(plain.objective_value! + 1e-6);
  });
});

describe("jaos integrality rule", () => {
  it("clamps a value into the column's bounds first: −1e-10 on [0, 1] is 0, not a fraction to branch on", () => {
    const { model } = modelFromProblem(fixedCharge(1e7));
    const rule = new IntegralityRule(model, 0);
    const y0 = 1; // x0, y0, x1, y1, …
    expect(rule.fractional(y0, -1e-10, model.colLower, model.colUpper)).toBe(false);
    expect(rule.fractional(y0, 1 + 1e-10, model.colLower, model.colUpper)).toBe(false);
    expect(rule.fractional(y0, 1e-10, model.colLower, model.colUpper)).toBe(true);
    expect(rule.fractional(0, 0.5, model.colLower, model.colUpper)).toBe(false); // x0 is continuous
  });

  it("picks the integer whose rounding moves its rows most as the trickle column", () => {
    const { model } = modelFromProblem(fixedCharge(1e7));
    const rule = new IntegralityRule(model);
    const x = new Float64Array(model.cols);
    x[3] = 1e-12; // y1: moves link1 by 1e-5
    x[5] = 3e-7; // y2: moves link2 by 3
    expect(rule.trickleColumn(x, model.colLower, model.colUpper)).toBe(5);
    expect(rule.trickleColumn(new Float64Array(model.cols), model.colLower, model.colUpper)).toBe(-1);
  });

  it("ends with an integrality tolerance of 0: exact integers, the LP's roundoff clamped away", () => {
    for (const bigM of [1e3, 1e7]) {
      const r = solveExact(fixedCharge(bigM), { integralityTolerance: 0 });
      expect(r.solver_status).toBe("optimal");
      expectObjective(r, 13);
    }
  });
});
