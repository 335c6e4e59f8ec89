/**
 * Generated big-M models (fast-check, so a failure shrinks to the smallest model and M that show it),
 * solved by jaos directly, each family with its optimum known by construction:
 *
 *  - fixed charge: x_j ≤ M·y_j, Σx ≥ D, cost c_j·x_j + f_j·y_j. Opening a set S costs at least
 *    Σ_S f_j + D·min_S c_j ≥ min_j (f_j + c_j·D), which one facility reaches (M ≥ D).
 *  - indicator: x_j ≥ d_j − M·z_j, at most K of the z_j on, cost a_j·x_j + b_j·z_j. Item j costs a_j·d_j
 *    off and b_j on, so the optimum switches on the K largest positive savings a_j·d_j − b_j.
 *  - disjunctive scheduling: one machine, for each pair a binary order with s_i + p_i ≤ s_j + M·(1 − z)
 *    and s_j + p_j ≤ s_i + M·z, minimising Σ w_j·C_j: Smith's rule (by p_j/w_j) is optimal.
 *  - semi-continuous: x_j = 0 or L_j ≤ x_j ≤ M (x_j ≥ L_j·y_j, x_j ≤ M·y_j), Σx ≥ D, cost c_j·x_j + f_j·y_j:
 *    one item, the one minimising f_j + c_j·max(D, L_j), is optimal (a second one adds its fixed cost
 *    and its minimum at a price no lower than the cheapest).
 *
 * M runs from 1e3 to 1e9: the LP relaxation then switches the binaries on by D/M, a "trickle" that
 * passes an integrality tolerance of 1e-6 while it carries the whole continuous part. Every answer must
 * be optimal at the known value, and its point must pass the independent checker with integrality
 * exact (tolerance 0) — jaos reports integer columns as integers.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { checkSolution } from "../../../../../functions/core/solvers/checker.js";
import { solveJaos } from "../../../../../functions/core/solvers/jaos-engine.js";
import { problem } from "../../../../support/jaos.js";

const t = (coef: number, name: string) => ({ var: name, coef });
const bigM = fc.integer({ min: 3, max: 9 }).map((e) => 10 ** e);
const small = (min: number, max: number) => fc.integer({ min, max });

interface Family {
  problem: Problem;
  optimum: number;
}

function fixedCharge(items: { c: number; f: number }[], demand: number, m: number): Family {
  const js = items.map((_, j) => j);
  return {
    problem: problem({
      variables: js.flatMap((j) => [
        { name: `x${j}`, lb: 0, ub: null },
        { name: `y${j}`, lb: 0, ub: 1, type: "binary" as const },
      ]),
      objective: { constant: 0, terms: js.flatMap((j) => [t(items[j]!.c, `x${j}`), t(items[j]!.f, `y${j}`)]) },
      constraints: [
        ...js.map((j) => ({ name: `link${j}`, terms: [t(1, `x${j}`), t(-m, `y${j}`)], lb: null, ub: 0 })),
        { name: "demand", terms: js.map((j) => t(1, `x${j}`)), lb: demand, ub: null },
      ],
    }),
    optimum: Math.min(...items.map((i) => i.f + i.c * demand)),
  };
}

function indicator(items: { a: number; b: number; d: number }[], switches: number, m: number): Family {
  const js = items.map((_, j) => j);
  const savings = items
    .map((i) => i.a * i.d - i.b)
    .filter((s) => s > 0)
    .sort((p, q) => q - p);
  const base = items.reduce((s, i) => s + i.a * i.d, 0);
  return {
    problem: problem({
      variables: js.flatMap((j) => [
        { name: `x${j}`, lb: 0, ub: null },
        { name: `z${j}`, lb: 0, ub: 1, type: "binary" as const },
      ]),
      objective: { constant: 0, terms: js.flatMap((j) => [t(items[j]!.a, `x${j}`), t(items[j]!.b, `z${j}`)]) },
      constraints: [
        ...js.map((j) => ({ name: `need${j}`, terms: [t(1, `x${j}`), t(m, `z${j}`)], lb: items[j]!.d, ub: null })),
        { name: "switches", terms: js.map((j) => t(1, `z${j}`)), lb: null, ub: switches },
      ],
    }),
    optimum: base - savings.slice(0, switches).reduce((s, v) => s + v, 0),
  };
}

function scheduling(jobs: { p: number; w: number }[], m: number): Family {
  const js = jobs.map((_, j) => j);
  const pairs = js.flatMap((i) => js.filter((j) => j > i).map((j) => [i, j] as const));
  // Smith's rule: by p/w ascending (ties in any order give the same total)
  const order = [...jobs].sort((u, v) => u.p * v.w - v.p * u.w);
  let clock = 0;
  let total = 0;
  for (const job of order) {
    clock += job.p;
    total += job.w * clock;
  }
  return {
    problem: problem({
      variables: [
        ...js.map((j) => ({ name: `s${j}`, lb: 0, ub: null })),
        ...pairs.map(([i, j]) => ({ name: `z${i}_${j}`, lb: 0, ub: 1, type: "binary" as const })),
      ],
      // Σ w_j·(s_j + p_j): the p_j part as the constant
      objective: { constant: jobs.reduce((s, job) => s + job.w * job.p, 0), terms: js.map((j) => t(jobs[j]!.w, `s${j}`)) },
      constraints: pairs.flatMap(([i, j]) => [
        // i before j when z = 1: s_i + p_i ≤ s_j + M·(1 − z)
        { name: `before${i}_${j}`, terms: [t(1, `s${i}`), t(-1, `s${j}`), t(m, `z${i}_${j}`)], lb: null, ub: m - jobs[i]!.p },
        // j before i when z = 0: s_j + p_j ≤ s_i + M·z
        { name: `after${i}_${j}`, terms: [t(1, `s${j}`), t(-1, `s${i}`), t(-m, `z${i}_${j}`)], lb: null, ub: -jobs[j]!.p },
      ]),
    }),
    optimum: total,
  };
}

function semiContinuous(items: { c: number; f: number; l: number }[], demand: number, m: number): Family {
  const js = items.map((_, j) => j);
  return {
    problem: problem({
      variables: js.flatMap((j) => [
        { name: `x${j}`, lb: 0, ub: null },
        { name: `y${j}`, lb: 0, ub: 1, type: "binary" as const },
      ]),
      objective: { constant: 0, terms: js.flatMap((j) => [t(items[j]!.c, `x${j}`), t(items[j]!.f, `y${j}`)]) },
      constraints: [
        ...js.map((j) => ({ name: `least${j}`, terms: [t(1, `x${j}`), t(-items[j]!.l, `y${j}`)], lb: 0, ub: null })),
        ...js.map((j) => ({ name: `most${j}`, terms: [t(1, `x${j}`), t(-m, `y${j}`)], lb: null, ub: 0 })),
        { name: "demand", terms: js.map((j) => t(1, `x${j}`)), lb: demand, ub: null },
      ],
    }),
    optimum: Math.min(...items.map((i) => i.f + i.c * Math.max(demand, i.l))),
  };
}

const families: [string, fc.Arbitrary<Family>][] = [
  [
    "fixed charge",
    fc
      .tuple(fc.array(fc.record({ c: small(1, 9), f: small(1, 100) }), { minLength: 2, maxLength: 8 }), small(1, 50), bigM)
      .map(([items, demand, m]) => fixedCharge(items, demand, m)),
  ],
  [
    "indicator",
    fc
      .tuple(fc.array(fc.record({ a: small(1, 9), b: small(1, 200), d: small(1, 40) }), { minLength: 2, maxLength: 8 }), small(0, 4), bigM)
      .map(([items, switches, m]) => indicator(items, switches, m)),
  ],
  [
    "disjunctive scheduling",
    fc.tuple(fc.array(fc.record({ p: small(1, 9), w: small(1, 9) }), { minLength: 2, maxLength: 4 }), bigM).map(([jobs, m]) => scheduling(jobs, m)),
  ],
  [
    "semi-continuous",
    fc
      .tuple(fc.array(fc.record({ c: small(1, 9), f: small(1, 100), l: small(1, 30) }), { minLength: 2, maxLength: 6 }), small(1, 50), bigM)
      .map(([items, demand, m]) => semiContinuous(items, demand, m)),
  ],
];

describe("jaos on generated big-M families (M from 1e3 to 1e9)", () => {
  it.each(families)("%s: optimal at the known optimum, integers exact, every row kept", (_, family) => {
    fc.assert(
      fc.property(family, fc.boolean(), ({ problem: p, optimum }, presolveOn) => {
        const r = solveJaos(p, { timeLimitSeconds: 30, gapTolerance: 1e-6, presolve: presolveOn });
        expect(r.solver_status, r.error_message ?? "").toBe("optimal");
        expect(Math.abs(r.objective_value! - optimum)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(optimum)));
        const violations = checkSolution(p, r.solution!, { objective: r.objective_value, tolerance: 1e-6, integralityTolerance: 0 });
        expect(violations.map((v) => v.message)).toEqual([]);
        expect(r.dual_bound!).toBeLessThanOrEqual(optimum + 1e-6 * Math.max(1, Math.abs(optimum)));
      }),
      { numRuns: 50 },
    );
  });
});
