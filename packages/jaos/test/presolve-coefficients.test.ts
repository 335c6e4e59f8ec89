/**
 * Coefficient tightening (presolve-coefficients.ts) on random small MILPs of knapsack and big-M rows
 * (some over flows bounded only by another row):
 * the tightened rows keep exactly the mixed-integer points of the original ones (every integer
 * assignment enumerated, the continuous part minimised by an LP on both models), their LP relaxation
 * is no weaker, and the whole solve with presolve finds the optimum of the solve without it. A failing
 * model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { tightenCoefficients } from "../src/presolve-coefficients.js";
import { Presolver } from "../src/presolve.js";
import { solveJaos } from "../src/solve.js";
import { integerPoints, type Problem, type ProblemInput, problem, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** Binaries and small general integers, a few bounded continuous columns, one-sided rows: knapsacks, big-M links, covers. */
function randomModel(seed: number): Problem {
  const g = seededGenerator(seed);
  const ints = g.int(2, 4);
  const conts = g.int(0, 2);
  const variables: ProblemInput["variables"] = [];
  const objective: { var: string; coef: number }[] = [];
  const constraints: ProblemInput["constraints"] = [];
  for (let p = 0; p < ints; p++) {
    const binary = g.next() < 0.6;
    variables.push(binary ? { name: `y${p}`, type: "binary" } : { name: `y${p}`, lb: g.int(-2, 0), ub: g.int(1, 3), type: "integer" });
    objective.push(term(g.int(-6, 6), `y${p}`));
  }
  for (let c = 0; c < conts; c++) {
    // an unbounded flow gets its bound from a capacity row (the implied big-M)
    const capped = g.next() < 0.4;
    variables.push({ name: `x${c}`, lb: g.int(-2, 0), ub: capped ? null : g.int(1, 8), type: "continuous" });
    if (capped) constraints.push({ name: `cap${c}`, terms: [term(1, `x${c}`), term(g.int(1, 2), `y${g.int(0, ints - 1)}`)], ub: g.int(2, 7) });
    objective.push(term(g.int(-4, 4), `x${c}`));
  }
  const rows = g.int(1, 4);
  for (let r = 0; r < rows; r++) {
    const terms: { var: string; coef: number }[] = [];
    for (let p = 0; p < ints; p++) if (g.next() < 0.7) terms.push(term(g.int(-12, 12) || 1, `y${p}`));
    for (let c = 0; c < conts; c++) if (g.next() < 0.6) terms.push(term(g.next() < 0.5 ? 1 : g.int(-3, 3) || 1, `x${c}`));
    if (g.next() < 0.4 && conts > 0) {
      // big-M link x ≤ M·y with M beyond x's bound
      terms.length = 0;
      terms.push(term(1, `x${g.int(0, conts - 1)}`), term(-g.int(9, 30), `y${g.int(0, ints - 1)}`));
    }
    if (terms.length === 0) continue;
    const side = g.int(-4, 14) + (g.next() < 0.3 ? 0.5 : 0);
    constraints.push(g.next() < 0.5 ? { name: `r${r}`, terms, ub: side } : { name: `r${r}`, terms, lb: -side });
  }
  return problem({ name: `coef${seed}`, sense: g.next() < 0.5 ? "minimize" : "maximize", variables, objective: { terms: objective }, constraints });
}

/** The model with every row's integer coefficients tightened (no other reduction), and how many changed. */
function tightened(model: LpModel): { model: LpModel; changed: number } {
  const p = new Presolver(model);
  let changed = 0;
  for (let i = 0; i < model.rows; i++) changed += tightenCoefficients(p, i);
  return { model: p.result(model).reduced, changed };
}

/** The least cost over the continuous columns with the integers fixed (null: no point), or the LP relaxation's with none fixed. */
function fixedOptimum(model: LpModel, fixed: Map<number, number>): number | null {
  const engine = new LpEngine({ ...model, integer: new Uint8Array(model.cols) });
  for (const [j, v] of fixed) engine.setColumnBounds(j, v, v);
  const r = engine.solve({ deadline: performance.now() + 5000 });
  if (r.status === "infeasible") return null;
  if (r.status === "unbounded") return Number.NEGATIVE_INFINITY;
  expect(r.status).toBe("optimal");
  return r.objective;
}

function tighteningFailure(p: Problem): string | null {
  const { model } = modelFromProblem(p);
  const t = tightened(model).model;
  for (const point of integerPoints(model)) {
    const before = fixedOptimum(model, point);
    const after = fixedOptimum(t, point);
    const same =
      before === null || after === null || !Number.isFinite(before) ? before === after : Math.abs(before - after) <= 1e-7 * Math.max(1, Math.abs(before));
    if (!same) return `at ${JSON.stringify([...point])} the original gives ${before}, the tightened ${after}`;
  }
  const lpBefore = fixedOptimum(model, new Map());
  const lpAfter = fixedOptimum(t, new Map());
  if (lpBefore !== null && lpAfter !== null && lpAfter < lpBefore - 1e-7 * Math.max(1, Math.abs(lpBefore))) {
    return `the tightened relaxation ${lpAfter} is weaker than the original ${lpBefore}`;
  }
  return null;
}

function solveFailure(p: Problem): string | null {
  const on = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0 });
  const off = solveJaos(p, { timeLimitSeconds: 10, gapTolerance: 0, presolve: false });
  if (on.solver_status !== off.solver_status) return `with presolve ${on.solver_status}, without ${off.solver_status}`;
  if (on.solver_status !== "optimal") return null;
  const tol = 1e-6 * Math.max(1, Math.abs(off.objective_value!));
  return Math.abs(on.objective_value! - off.objective_value!) <= tol ? null : `with presolve ${on.objective_value}, without ${off.objective_value}`;
}

describe("coefficient tightening", () => {
  it("turns x ≤ 20·y with x ≤ 5 into x ≤ 5·y", () => {
    const p = problem({
      variables: [
        { name: "x", lb: 0, ub: 5 },
        { name: "y", type: "binary" },
      ],
      constraints: [{ name: "link", terms: [term(1, "x"), term(-20, "y")], ub: 0 }],
    });
    const t = tightened(modelFromProblem(p).model);
    expect(t.changed).toBe(1);
    const a = t.model.a;
    expect(Array.from(a.value)).toEqual([1, -5]);
    expect(t.model.rowUpper[0]).toBe(0);
  });

  it("takes the big-M from a capacity row when the flow has no bound: x ≤ 20·y with x + z ≤ 4 becomes x ≤ 4·y", () => {
    const p = problem({
      variables: [{ name: "x" }, { name: "z" }, { name: "y", type: "binary" }],
      constraints: [
        { name: "cap", terms: [term(1, "x"), term(1, "z")], ub: 4 },
        { name: "link", terms: [term(1, "x"), term(-20, "y")], ub: 0 },
      ],
    });
    const { model } = modelFromProblem(p);
    const t = tightened(model);
    expect(t.changed).toBe(1);
    expect(t.model.colUpper[0]).toBe(4);
    expect(t.model.a.value[t.model.a.start[2]]).toBe(-4);
    expect(tighteningFailure(p)).toBeNull();
  });

  it("lowers a knapsack coefficient that exceeds its side: 3y0 + 8y1 ≤ 5 becomes 3y0 + 5y1 ≤ 5", () => {
    const p = problem({
      variables: [
        { name: "y0", type: "binary" },
        { name: "y1", type: "binary" },
      ],
      constraints: [{ name: "knap", terms: [term(3, "y0"), term(8, "y1")], ub: 5 }],
    });
    const t = tightened(modelFromProblem(p).model);
    expect(t.changed).toBeGreaterThan(0);
    // the tightened row still cuts y0 = y1 = 1 and keeps y1 = 1 alone
    expect(tighteningFailure(p)).toBeNull();
    expect(fixedOptimum(t.model, new Map()) ?? Number.NaN).toBe(0);
  });

  it("keeps every mixed-integer point of random knapsack and big-M rows", () => {
    let changed = 0;
    for (let seed = 1; seed <= 250; seed++) {
      const p = randomModel(seed);
      changed += tightened(modelFromProblem(p).model).changed;
      const failure = tighteningFailure(p);
      if (failure) {
        const small = shrinkProblem(p, tighteningFailure);
        expect.fail(`seed ${seed}: ${tighteningFailure(small)}\n${JSON.stringify(small)}`);
      }
    }
    // the generator must exercise the step
    expect(changed).toBeGreaterThan(50);
  });

  it("leaves the optimum of random MILPs unchanged against the solve without presolve", () => {
    for (let seed = 1000; seed < 1150; seed++) {
      const p = randomModel(seed);
      const failure = solveFailure(p);
      if (failure) {
        const small = shrinkProblem(p, solveFailure);
        expect.fail(`seed ${seed}: ${solveFailure(small)}\n${JSON.stringify(small)}`);
      }
    }
  });
});
