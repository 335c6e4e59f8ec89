/**
 * Aggregation in the MILP presolve: continuous columns substituted out of equations (doubleton
 * equations and implied-free columns in longer ones). Seeded property test on small random MILPs built
 * around such equations: with presolve and without it the verdict and the optimum agree, the returned
 * point satisfies the original model (so postsolve of the substituted columns is exact), and no integer
 * column is ever the one substituted. A failing model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import { modelFromProblem } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import { solveJaos } from "../src/solve.js";
import type { Problem, ProblemInput, Term } from "./support.js";
import { lp, pointViolations, row, seededGenerator, shrinkProblem } from "./support.js";

/** What goes wrong on this MILP with presolve against without it, or null. */
function aggregationFailure(p: Problem): string | null {
  const on = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0 });
  const off = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0, presolve: false });
  for (const r of [on, off]) {
    if (r.solution) {
      const broken = pointViolations(p, r.solution, r.objective_value);
      if (broken.length > 0) return `a returned point fails: ${broken.join("; ")}`;
    }
  }
  if (on.solver_status !== off.solver_status) return `with presolve ${on.solver_status}, without ${off.solver_status}`;
  if (off.solver_status !== "optimal") return null;
  const expected = off.objective_value!;
  if (!(Math.abs(on.objective_value! - expected) <= 1e-6 * Math.max(1, Math.abs(expected))))
    return `objective with presolve ${on.objective_value}, without ${expected}`;
  // the search's incumbents are checked on the original model: a refused one means postsolve went wrong
  if (on.error_message && !off.error_message) return `with presolve: ${on.error_message}`;
  return null;
}

/**
 * A small MILP around equations over continuous and integer columns: doubletons c = a·n + b (c
 * continuous, n integer), flow-like equations over several continuous columns, variable upper bounds
 * c ≤ u·n, and a few general rows; integer columns boxed so the search is finite.
 */
function aggregationRandom(seed: number): Problem {
  const g = seededGenerator(seed);
  const ints = g.int(2, 5);
  const conts = g.int(2, 6);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < ints; j++) variables.push({ name: `n${j}`, lb: g.int(-2, 0), ub: g.int(1, 4), type: "integer" });
  for (let j = 0; j < conts; j++) {
    const lb = g.next() < 0.2 ? null : g.int(-4, 1);
    const ub = g.next() < 0.3 ? null : (lb ?? -4) + g.int(1, 12);
    variables.push({ name: `c${j}`, lb, ub });
  }
  const coef = () => (g.next() < 0.4 ? g.int(-12, 12) / 4 : g.int(-4, 4)) || 1;
  const anchor = new Map<string, number>();
  for (const v of variables) anchor.set(v.name, Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(-1, 3))));
  const constraints: ProblemInput["constraints"] = [];
  const rhsAt = (terms: Term[]) => terms.reduce((s, [v, a]) => s + a * anchor.get(v)!, 0);
  const m = g.int(2, 7);
  for (let i = 0; i < m; i++) {
    const kind = g.next();
    let terms: Term[];
    if (kind < 0.35)
      terms = [
        [`c${g.int(0, conts - 1)}`, coef()],
        [`n${g.int(0, ints - 1)}`, coef()],
      ];
    else if (kind < 0.6) {
      const cols = new Set<string>();
      const size = g.int(2, Math.min(4, conts));
      while (cols.size < size) cols.add(`c${g.int(0, conts - 1)}`);
      if (g.next() < 0.5) cols.add(`n${g.int(0, ints - 1)}`);
      terms = [...cols].map((v) => [v, coef()]);
    } else if (kind < 0.8) {
      terms = [
        [`c${g.int(0, conts - 1)}`, 1],
        [`n${g.int(0, ints - 1)}`, -g.int(1, 8)],
      ];
      constraints.push(row(`r${i}`, terms, null, g.next() < 0.8 ? Math.max(0, rhsAt(terms)) : g.int(-2, 4)));
      continue;
    } else {
      const cols = new Set<string>();
      const size = g.int(2, 4);
      while (cols.size < size) cols.add(g.next() < 0.5 ? `c${g.int(0, conts - 1)}` : `n${g.int(0, ints - 1)}`);
      terms = [...cols].map((v) => [v, coef()]);
      const rhs = rhsAt(terms);
      constraints.push(g.next() < 0.5 ? row(`r${i}`, terms, rhs - g.int(0, 3), null) : row(`r${i}`, terms, null, rhs + g.int(0, 3)));
      continue;
    }
    // equations hold at the anchor point mostly, so most models are feasible
    const rhs = g.next() < 0.85 ? rhsAt(terms) : g.int(-4, 8);
    constraints.push(row(`r${i}`, terms, rhs, rhs));
  }
  const cost: Term[] = variables.map((v) => [v.name, g.next() < 0.25 ? 0 : g.int(-5, 5)]);
  return lp(variables, cost, constraints, g.next() < 0.5 ? "minimize" : "maximize");
}

describe("jaos presolve: aggregation keeps variable bound rows", () => {
  it("substitutes the flow that is in no variable bound row out of a doubleton equation", () => {
    // f − 2g = 0: g has the larger coefficient and would be substituted, but g ≤ 5y is a variable upper
    // bound the flow cover separator reads, so f is; max 2g − 3y gives y = 1, g = 2, f = 4.
    const p = lp(
      [
        { name: "f", lb: 0, ub: 4 },
        { name: "g", lb: 0, ub: 10 },
        { name: "y", lb: 0, ub: 1, type: "integer" },
      ],
      [
        ["g", 2],
        ["y", -3],
      ],
      [
        row(
          "flow",
          [
            ["f", 1],
            ["g", -2],
          ],
          0,
          0,
        ),
        row(
          "vub",
          [
            ["g", 1],
            ["y", -5],
          ],
          null,
          0,
        ),
      ],
      "maximize",
    );
    const { model } = modelFromProblem(p);
    const substituted = presolve(model).reductions.flatMap((r) => (r.kind === "doubleton" || r.kind === "substitute" ? [r.col] : []));
    expect(substituted).toEqual([0]);
    const r = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0 });
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBeCloseTo(1);
    expect(aggregationFailure(p)).toBeNull();
  });
});

describe("jaos presolve: aggregation of continuous columns in MILPs (seeded random models)", () => {
  it("250 random MILPs: same verdict and optimum with and without presolve; substituted columns all continuous", () => {
    const seen: Record<string, number> = {};
    let aggregated = 0;
    for (let seed = 1; seed <= 250; seed++) {
      const p = aggregationRandom(seed * 7919 + 3);
      const { model } = modelFromProblem(p);
      const pre = presolve(model);
      let substituted = false;
      for (const r of pre.reductions) {
        if (r.kind !== "doubleton" && r.kind !== "substitute") continue;
        expect(model.integer[r.col], `seed ${seed}: integer column ${r.col} substituted`).toBe(0);
        substituted = true;
      }
      if (substituted) aggregated++;
      const failure = aggregationFailure(p);
      if (failure) {
        const small = shrinkProblem(p, aggregationFailure);
        expect.fail(`seed ${seed}: ${failure}\nshrunk to: ${JSON.stringify(small)}\nthere: ${aggregationFailure(small)}`);
      }
      const off = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0, presolve: false });
      seen[off.solver_status] = (seen[off.solver_status] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(60);
    expect(aggregated).toBeGreaterThan(150);
  }, 300_000);
});
