/**
 * The clique table and clique cuts: on small random models of binaries (packing, covering and knapsack
 * rows in both signs, some with a bounded continuous column), every clique of the table and every cut
 * separated at random fractional points holds at every binary point that each row allows on its own
 * (checked by enumeration: a superset of the model's integer points); and solving random pure binary
 * models, whose root cut loop now separates clique cuts, finds the optimum found by enumeration.
 */
import { describe, expect, it } from "vitest";
import { cliqueCut, CliqueSeparator } from "../src/clique-cuts.js";
import { CliqueTable, literal, literalValue } from "../src/clique-table.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { type Problem, type ProblemInput, problem, seededGenerator, solveChecked } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** n binaries b0… and at most one continuous column c in [0, U]; rows of mixed kinds and signs. */
function randomBinaryModel(seed: number, withContinuous: boolean): Problem {
  const g = seededGenerator(seed);
  const n = g.int(3, 9);
  const variables: ProblemInput["variables"] = Array.from({ length: n }, (_, j) => ({ name: `b${j}`, type: "binary" as const }));
  if (withContinuous) variables.push({ name: "c", lb: 0, ub: g.int(1, 6), type: "continuous" });
  const constraints: ProblemInput["constraints"] = [];
  const rows = g.int(2, 6);
  for (let i = 0; i < rows; i++) {
    const pick = Array.from({ length: n }, (_, j) => j).filter(() => g.next() < 0.6);
    if (pick.length < 2) continue;
    const kind = g.next();
    if (kind < 0.3) {
      // set packing or partitioning, possibly through complements: Σ ±b ≤ 1 − #negated
      const signs = pick.map(() => (g.next() < 0.25 ? -1 : 1));
      const negated = signs.filter((s) => s < 0).length;
      const eq = g.next() < 0.3;
      constraints.push({ name: `r${i}`, terms: pick.map((j, k) => term(signs[k]!, `b${j}`)), ub: 1 - negated, lb: eq ? 1 - negated : undefined });
    } else {
      const terms = pick.map((j) => term((g.next() < 0.3 ? -1 : 1) * (g.int(1, 12) + (g.next() < 0.3 ? 0.5 : 0)), `b${j}`));
      if (withContinuous && g.next() < 0.5) terms.push(term(g.next() < 0.5 ? -g.int(1, 3) : g.int(1, 3), "c"));
      const total = terms.reduce((s, t) => s + Math.abs(t.coef), 0);
      const side = Math.round((g.next() - 0.3) * total);
      if (g.next() < 0.5) constraints.push({ name: `r${i}`, terms, ub: side });
      else constraints.push({ name: `r${i}`, terms, lb: -side });
    }
  }
  const objective = { constant: 0, terms: variables.map((v) => term(g.int(-9, 9), v.name)) };
  return problem({ sense: g.next() < 0.5 ? "minimize" : "maximize", variables, objective, constraints });
}

/**
 * The binary points (as 0/1 arrays over the model's columns, the continuous one at 0) that every row
 * allows on its own for some value of the continuous columns in their bounds.
 */
function rowwisePoints(model: LpModel, binaries: number): Float64Array[] {
  const points: Float64Array[] = [];
  const rowsOf: { col: number; coef: number }[][] = Array.from({ length: model.rows }, () => []);
  for (let j = 0; j < model.cols; j++)
    for (let k = model.a.start[j]; k < model.a.start[j + 1]; k++) rowsOf[model.a.index[k]]!.push({ col: j, coef: model.a.value[k] });
  for (let mask = 0; mask < 1 << binaries; mask++) {
    const x = new Float64Array(model.cols);
    for (let j = 0; j < binaries; j++) x[j] = (mask >> j) & 1;
    let ok = true;
    for (let i = 0; i < model.rows && ok; i++) {
      let lo = 0;
      let hi = 0;
      for (const { col, coef } of rowsOf[i]!) {
        if (col < binaries) {
          lo += coef * x[col]!;
          hi += coef * x[col]!;
        } else {
          lo += Math.min(coef * model.colLower[col]!, coef * model.colUpper[col]!);
          hi += Math.max(coef * model.colLower[col]!, coef * model.colUpper[col]!);
        }
      }
      ok = hi >= model.rowLower[i]! - 1e-9 && lo <= model.rowUpper[i]! + 1e-9;
    }
    if (ok) points.push(x);
  }
  return points;
}

/** The cut's excess Σ value·x − lower at the points that break it most (≤ 0 when it holds). */
function worstCutViolation(cut: { index: Int32Array; value: Float64Array; lower: number }, points: Float64Array[]): number {
  let worst = -Infinity;
  for (const x of points) {
    let lhs = 0;
    cut.index.forEach((j, k) => {
      lhs += cut.value[k]! * x[j]!;
    });
    worst = Math.max(worst, cut.lower - lhs);
  }
  return worst;
}

describe("jaos clique table and clique cuts", () => {
  it("holds every clique of the table at every binary point each row allows (random models)", () => {
    let cliques = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = randomBinaryModel(seed, seed % 2 === 0);
      const { model } = modelFromProblem(p);
      const binaries = p.variables.filter((v) => v.type === "binary").length;
      const points = rowwisePoints(model, binaries);
      const table = CliqueTable.fromModel(model);
      for (const c of table.cliques) {
        cliques++;
        for (const x of points) {
          const ones = Array.from(c).filter((l) => literalValue(l, x) === 1).length;
          expect(ones, `seed ${seed} clique ${Array.from(c)}`).toBeLessThanOrEqual(1);
        }
      }
    }
    expect(cliques).toBeGreaterThan(300);
  });

  it("separates only cuts that keep every binary point each row allows (random fractional points)", () => {
    let cuts = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = randomBinaryModel(seed, seed % 3 === 0);
      const { model } = modelFromProblem(p);
      const binaries = p.variables.filter((v) => v.type === "binary").length;
      const points = rowwisePoints(model, binaries);
      const separator = new CliqueSeparator(model);
      const g = seededGenerator(seed * 7919);
      for (let trial = 0; trial < 5; trial++) {
        const x = Float64Array.from({ length: model.cols }, () => (g.next() < 0.3 ? g.int(0, 1) : g.next()));
        for (const { cut } of separator.separate(x, 20)) {
          cuts++;
          expect(worstCutViolation(cut, points), `seed ${seed}`).toBeLessThanOrEqual(1e-9);
        }
      }
    }
    expect(cuts).toBeGreaterThan(50);
  });

  it("finds the odd triangle x1 + x2 + x3 ≤ 1 that three packing rows leave at 1/2 each", () => {
    const p = problem({
      variables: ["x1", "x2", "x3", "x4"].map((name) => ({ name, type: "binary" as const })),
      constraints: [
        { name: "a", terms: [term(1, "x1"), term(1, "x2")], ub: 1 },
        { name: "b", terms: [term(1, "x2"), term(1, "x3")], ub: 1 },
        // a knapsack row: 3·x1 + 3·x3 + x4 ≤ 4 holds the conflict of x1 and x3, not x4's
        { name: "c", terms: [term(3, "x1"), term(3, "x3"), term(1, "x4")], ub: 4 },
      ],
    });
    const { model } = modelFromProblem(p);
    const separator = new CliqueSeparator(model);
    const cuts = separator.separate(Float64Array.from([0.5, 0.5, 0.5, 1]), 10);
    expect(cuts).toHaveLength(1);
    const cut = cuts[0]!.cut;
    expect(Array.from(cut.index)).toEqual([0, 1, 2]);
    expect(Array.from(cut.value)).toEqual([-1, -1, -1]);
    expect(cut.lower).toBeCloseTo(-1, 6);
    // the same clique is not returned twice
    expect(separator.separate(Float64Array.from([0.5, 0.5, 0.5, 1]), 10)).toHaveLength(0);
  });

  it("reads conflicts through complements: x1 ≥ x2 means x2 and x̄1 conflict", () => {
    const p = problem({
      variables: ["x1", "x2"].map((name) => ({ name, type: "binary" as const })),
      constraints: [{ name: "a", terms: [term(1, "x2"), term(-1, "x1")], ub: 0 }],
    });
    const table = CliqueTable.fromModel(modelFromProblem(p).model);
    expect(table.cliques.map((c) => Array.from(c).sort())).toEqual([[literal(0, true), literal(1, false)].sort()]);
    // the cut x2 + (1 − x1) ≤ 1, as x1 − x2 ≥ 0
    const cut = cliqueCut([literal(1, false), literal(0, true)], modelFromProblem(p).model)!;
    expect(Array.from(cut.value)).toEqual([1, -1]);
    expect(cut.lower).toBeCloseTo(0, 8);
  });

  it("solves random pure binary models to the optimum found by enumeration", () => {
    for (let seed = 1; seed <= 80; seed++) {
      const p = randomBinaryModel(seed * 31, false);
      const { model, sign } = modelFromProblem(p);
      const points = rowwisePoints(model, model.cols); // every row holds: exactly the feasible points
      let best = Infinity;
      for (const x of points) {
        let v = 0;
        for (let j = 0; j < model.cols; j++) v += model.cost[j]! * x[j]!;
        best = Math.min(best, v);
      }
      const r = solveChecked(p, { gapTolerance: 0 });
      if (points.length === 0) {
        expect(r.solver_status, `seed ${seed}`).toBe("infeasible");
        continue;
      }
      expect(r.solver_status, `seed ${seed}`).toBe("optimal");
      expect(r.objective_value!, `seed ${seed}`).toBeCloseTo(sign * (best + model.offset), 6);
    }
  });
});
