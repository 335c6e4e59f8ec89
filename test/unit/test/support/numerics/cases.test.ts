import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProblemSchema, type Problem } from "../../../../../functions/core/problem/schema.js";
import { checkSolution, objectiveOf } from "../../../../../functions/core/solvers/checker.js";
import {
  disjunctiveCase,
  fixedChargeCase,
  indicatorCase,
  ISSUE_CASES,
  nearIntegralCase,
  type NumericsCase,
  semiContinuousCase,
} from "../../../../support/numerics/cases.js";

/**
 * The numerics suite's references, derived a second way that shares nothing with the builders: take the
 * problem as written, enumerate every integer column over its bounds, and solve the LP that remains in the
 * continuous columns by vertex enumeration (every n of the half-spaces that are linearly independent, the
 * feasible intersections compared). The families' continuous columns all have finite lower bounds and
 * their objectives are bounded below on them, so a feasible LP has an optimal vertex and this finds it.
 * Cases whose enumeration would be too long are skipped (fc.pre); the generators are the suite's own.
 */

interface HalfSpace {
  coefs: number[];
  /** coefs·x ≤ rhs */
  rhs: number;
}

/** Solves A x = b (n × n) by Gaussian elimination with partial pivoting; null when singular. */
function solveSquare(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    const scale = Math.max(...m[pivot]!.slice(0, n).map(Math.abs));
    if (!(Math.abs(m[pivot]![col]!) > 1e-12 * scale)) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      if (f !== 0) for (let k = col; k <= n; k++) m[r]![k]! -= f * m[col]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

function* subsets(size: number, count: number, from = 0): Generator<number[]> {
  if (count === 0) {
    yield [];
    return;
  }
  for (let i = from; i <= size - count; i++) for (const rest of subsets(size, count - 1, i + 1)) yield [i, ...rest];
}

const binomial = (n: number, k: number) => (k < 0 || k > n ? 0 : Array.from({ length: k }, (_, i) => (n - i) / (i + 1)).reduce((p, v) => p * v, 1));

/** The problem's integer columns' values, one assignment after another. */
function* integerPoints(problem: Problem): Generator<Map<string, number>> {
  const integers = problem.variables.filter((v) => v.type !== "continuous");
  const ranges = integers.map((v) => (v.type === "binary" ? [0, 1] : Array.from({ length: v.ub! - v.lb! + 1 }, (_, k) => v.lb! + k)));
  const walk = function* (j: number, at: Map<string, number>): Generator<Map<string, number>> {
    if (j === integers.length) yield new Map(at);
    else
      for (const value of ranges[j]!) {
        at.set(integers[j]!.name, value);
        yield* walk(j + 1, at);
      }
  };
  yield* walk(0, new Map());
}

/** How many linear systems the reference would solve: the cost of `bruteForce`. */
function enumerationCost(problem: Problem): number {
  const continuous = problem.variables.filter((v) => v.type === "continuous");
  const halfSpaces =
    problem.constraints.reduce((n, c) => n + (c.lb !== null ? 1 : 0) + (c.ub !== null ? 1 : 0), 0) +
    continuous.reduce((n, v) => n + (v.lb !== null ? 1 : 0) + (v.ub !== null ? 1 : 0), 0);
  let points = 1;
  for (const v of problem.variables) if (v.type !== "continuous") points *= v.type === "binary" ? 2 : v.ub! - v.lb! + 1;
  return points * binomial(halfSpaces, continuous.length);
}

/**
 * The minimum of the objective (in the minimising sense) over the problem, or null when infeasible. Every
 * side and bound is relaxed by `slack` (absolute), to show that an infeasible case stays infeasible by more.
 */
function bruteForce(problem: Problem, slack = 0): { value: number; point: Record<string, number> } | null {
  const continuous = problem.variables.filter((v) => v.type === "continuous").map((v) => v.name);
  const index = new Map(continuous.map((name, j) => [name, j]));
  const sign = problem.sense === "maximize" ? -1 : 1;
  let found: { value: number; point: Record<string, number> } | null = null;
  for (const fixed of integerPoints(problem)) {
    const spaces: HalfSpace[] = [];
    const add = (coefs: number[], rhs: number) => spaces.push({ coefs, rhs: rhs + slack });
    for (const c of problem.constraints) {
      const coefs = new Array<number>(continuous.length).fill(0);
      let constant = 0;
      for (const t of c.terms) {
        const j = index.get(t.var);
        if (j === undefined) constant += t.coef * fixed.get(t.var)!;
        else coefs[j]! += t.coef;
      }
      if (c.ub !== null) add(coefs, c.ub - constant);
      if (c.lb !== null)
        add(
          coefs.map((a) => -a),
          constant - c.lb,
        );
    }
    for (const v of problem.variables) {
      const j = index.get(v.name);
      if (j === undefined) continue;
      const unit = continuous.map((_, k) => (k === j ? 1 : 0));
      if (v.ub !== null) add(unit, v.ub);
      if (v.lb !== null)
        add(
          unit.map((a) => -a),
          -v.lb,
        );
    }
    const holds = (x: number[]) =>
      spaces.every((h) => {
        const lhs = h.coefs.reduce((s, a, j) => s + a * x[j]!, 0);
        return lhs <= h.rhs + 1e-9 * Math.max(1, Math.abs(h.rhs), ...h.coefs.map((a, j) => Math.abs(a * x[j]!)));
      });
    const candidates =
      continuous.length === 0
        ? [[]]
        : [...subsets(spaces.length, continuous.length)].map((s) =>
            solveSquare(
              s.map((i) => spaces[i]!.coefs),
              s.map((i) => spaces[i]!.rhs),
            ),
          );
    for (const x of candidates) {
      if (!x || !holds(x)) continue;
      const point: Record<string, number> = Object.fromEntries(fixed);
      continuous.forEach((name, j) => {
        point[name] = x[j]!;
      });
      const value = sign * objectiveOf(problem, point);
      if (found === null || value < found.value) found = { value, point };
    }
  }
  return found;
}

const ENUMERATION_BUDGET = 30_000;

function confirm(c: NumericsCase): void {
  const problem = ProblemSchema.parse(c.problem);
  fc.pre(enumerationCost(problem) <= ENUMERATION_BUDGET);
  const reference = bruteForce(problem);
  if (c.expected === "infeasible") {
    expect(reference, "the enumeration finds a feasible point").toBeNull();
    // Infeasible by a margin: every side and bound moved by 1e-3 still leaves no point.
    expect(bruteForce(problem, 1e-3), "feasible once the sides move by 1e-3").toBeNull();
    return;
  }
  expect(reference, "the enumeration finds no feasible point").not.toBeNull();
  const optimum = (problem.sense === "maximize" ? -1 : 1) * reference!.value;
  expect(Math.abs(optimum - c.optimum!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(c.optimum!)));
  // The builder's own point attains it and satisfies the model tightly.
  expect(checkSolution(problem, c.witness!, { tolerance: 1e-12 })).toEqual([]);
  expect(Math.abs(objectiveOf(problem, c.witness!) - c.optimum!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(c.optimum!)));
}

describe("numerics suite cases: each reference re-derived by enumeration", () => {
  const families = {
    "fixed-charge": fixedChargeCase,
    indicator: indicatorCase,
    disjunctive: disjunctiveCase,
    "semi-continuous": semiContinuousCase,
    "near-integral": nearIntegralCase,
  };
  for (const [family, arbitrary] of Object.entries(families)) {
    it(`${family}: the stated optimum or infeasibility`, { timeout: 120_000 }, () => {
      fc.assert(
        fc.property(arbitrary, (c) => confirm(c)),
        { seed: 24, numRuns: 50, maxSkipsPerRun: 20 },
      );
    });
  }

  it("the issue's models: optima 13, 105 and 1", () => {
    expect(ISSUE_CASES.map((c) => c.optimum)).toEqual([13, 105, 1]);
    for (const c of ISSUE_CASES) {
      const problem = ProblemSchema.parse(c.problem);
      // Eight binaries: 256 assignments of at most C(17, 8) systems is too long; the first is checked on its witness.
      if (enumerationCost(problem) <= ENUMERATION_BUDGET) confirm(c);
      else expect(checkSolution(problem, c.witness!, { tolerance: 1e-12 })).toEqual([]);
    }
  });

  it("the generators cover what the suite claims: every family, M from 1e3 to 1e9, widened cases, infeasible cases", () => {
    const sample = fc.sample(fc.oneof(fixedChargeCase, indicatorCase, disjunctiveCase, semiContinuousCase, nearIntegralCase), { seed: 7, numRuns: 600 });
    expect(new Set(sample.map((c) => c.family)).size).toBe(5);
    const bigMs = sample.filter((c) => c.family !== "near-integral").map((c) => c.bigM);
    expect(Math.min(...bigMs)).toBe(1e3);
    expect(Math.max(...bigMs)).toBe(1e9);
    expect(sample.some((c) => c.widening !== null)).toBe(true);
    for (const family of ["fixed-charge", "indicator", "disjunctive", "semi-continuous", "near-integral"]) {
      expect(sample.some((c) => c.family === family && c.expected === "infeasible")).toBe(true);
      expect(sample.some((c) => c.family === family && c.expected === "optimal")).toBe(true);
    }
  });
});
