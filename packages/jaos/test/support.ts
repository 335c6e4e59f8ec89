/**
 * Helpers of jaos's own tests: problems written compactly, a point checker that shares no code with
 * the engine, seeded random numbers, and the least left-hand side of a cut.
 */
import { expect } from "vitest";
import type { Cut } from "../src/cuts.js";
import { LpEngine } from "../src/lp.js";
import type { Elimination } from "../src/markowitz.js";
import { type LpModel, maxViolation, modelFromProblem, objectiveValue } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import type { JaosResult, JaosTerm, JaosVariable } from "../src/problem.js";
import { type JaosOptions, solveJaos } from "../src/solve.js";

/** A test problem: a `JaosProblem` with every field present (and mutable, for tests that build one up). */
export interface Problem {
  name: string;
  sense: "minimize" | "maximize";
  variables: { name: string; lb: number | null; ub: number | null; type: JaosVariable["type"] }[];
  objective: { constant: number; terms: JaosTerm[] };
  constraints: { name: string; terms: JaosTerm[]; lb: number | null; ub: number | null }[];
}

/** A problem as tests write it: bounds, types and sides may be left out. */
export interface ProblemInput {
  name?: string;
  sense?: Problem["sense"];
  variables: { name: string; lb?: number | null; ub?: number | null; type?: JaosVariable["type"] }[];
  objective?: { constant?: number; terms?: JaosTerm[] };
  constraints?: { name: string; terms: JaosTerm[]; lb?: number | null; ub?: number | null }[];
}

/**
 * The problem with the usual defaults filled in: a variable continuous in [0, +∞), a row side absent,
 * a zero objective, minimise.
 */
export function problem(input: ProblemInput): Problem {
  return {
    name: input.name ?? "problem",
    sense: input.sense ?? "minimize",
    variables: input.variables.map((v) => ({ name: v.name, lb: v.lb === undefined ? 0 : v.lb, ub: v.ub ?? null, type: v.type ?? "continuous" })),
    objective: { constant: input.objective?.constant ?? 0, terms: [...(input.objective?.terms ?? [])] },
    constraints: (input.constraints ?? []).map((c) => ({ name: c.name, terms: [...c.terms], lb: c.lb ?? null, ub: c.ub ?? null })),
  };
}

/** A term written as `[variable, coefficient]`. */
export type Term = [string, number];

/** A constraint row from `[variable, coefficient]` pairs. */
export const row = (name: string, terms: Term[], lb: number | null, ub: number | null) => ({
  name,
  terms: terms.map(([v, coef]) => ({ var: v, coef })),
  lb,
  ub,
});

/** An LP from its variables, `[variable, cost]` pairs and rows (minimised unless told). */
export function lp(
  variables: ProblemInput["variables"],
  cost: Term[],
  constraints: ProblemInput["constraints"],
  sense: "minimize" | "maximize" = "minimize",
): Problem {
  return problem({ sense, variables, objective: { constant: 0, terms: cost.map(([v, coef]) => ({ var: v, coef })) }, constraints });
}

/**
 * What is wrong with a point, read off the problem as written (binary = [0, 1]): bounds and row sides
 * beyond `tol`·max(1, |side|), integer columns more than `tol` from an integer, and an objective that
 * differs from the recomputed one by more than `tol`·max(1, |recomputed|). Empty when it holds.
 */
export function pointViolations(p: Problem, point: Record<string, number>, objective: number | null, tol = 1e-6): string[] {
  const out: string[] = [];
  const beyond = (value: number, lower: number | null, upper: number | null) =>
    (lower !== null && value < lower - tol * Math.max(1, Math.abs(lower))) || (upper !== null && value > upper + tol * Math.max(1, Math.abs(upper)));
  for (const v of p.variables) {
    const x = point[v.name];
    if (x === undefined || !Number.isFinite(x)) {
      out.push(`${v.name} has no finite value`);
      continue;
    }
    const lower = v.type === "binary" ? Math.max(v.lb ?? 0, 0) : v.lb;
    const upper = v.type === "binary" ? Math.min(v.ub ?? 1, 1) : v.ub;
    if (beyond(x, lower, upper)) out.push(`${v.name} = ${x} is outside [${lower}, ${upper}]`);
    if (v.type !== "continuous" && Math.abs(x - Math.round(x)) > tol) out.push(`${v.name} = ${x} is not integral`);
  }
  if (out.length > 0) return out;
  const value = (terms: JaosTerm[]) => terms.reduce((sum, t) => sum + t.coef * point[t.var]!, 0);
  for (const c of p.constraints) {
    const activity = value(c.terms);
    if (beyond(activity, c.lb, c.ub)) out.push(`row ${c.name}: activity ${activity} is outside [${c.lb}, ${c.ub}]`);
  }
  if (objective !== null) {
    const recomputed = p.objective.constant + value(p.objective.terms);
    if (!(Math.abs(recomputed - objective) <= tol * Math.max(1, Math.abs(recomputed)))) out.push(`objective ${objective}, recomputed ${recomputed}`);
  }
  return out;
}

/**
 * Solves with jaos and checks whatever solution comes back: a returned solution must satisfy the
 * problem and reproduce the reported objective.
 */
export function solveChecked(p: Problem, options: Partial<JaosOptions> = {}): JaosResult {
  const r = solveJaos(p, { timeLimitSeconds: 30, gapTolerance: 1e-6, ...options });
  if (r.solution) {
    const violations = pointViolations(p, r.solution, r.objective_value);
    expect(violations, violations.join("; ")).toEqual([]);
  }
  if (r.solver_status === "optimal" || r.solver_status === "feasible") expect(r.solution).not.toBeNull();
  return r;
}

export function expectObjective(r: JaosResult, expected: number, tol = 1e-6): void {
  expect(r.objective_value).not.toBeNull();
  expect(Math.abs(r.objective_value! - expected)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected)));
}

/** max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum (2, 6), objective 36 (stored as min −3x − 5y). */
export const TEXTBOOK_LP: Problem = problem({
  sense: "maximize",
  variables: [
    { name: "x", lb: 0, ub: null },
    { name: "y", lb: 0, ub: null },
  ],
  objective: {
    constant: 0,
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 5 },
    ],
  },
  constraints: [
    { name: "c1", terms: [{ var: "x", coef: 1 }], ub: 4 },
    { name: "c2", terms: [{ var: "y", coef: 2 }], ub: 12 },
    {
      name: "c3",
      terms: [
        { var: "x", coef: 3 },
        { var: "y", coef: 2 },
      ],
      ub: 18,
    },
  ],
});

/** Random numbers from a seed: `next` in [0, 1), `int` in [lo, hi] both included. */
export interface SeededGenerator {
  next: () => number;
  int: (lo: number, hi: number) => number;
}

/** mulberry32: a seeded generator for random test models, sharing nothing with the engine. */
export function seededGenerator(seed: number): SeededGenerator {
  let state = seed >>> 0;
  const next = () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/**
 * The shape of a random MILP from `seededMilp`; a field left out takes the default (the shape of the
 * sub-MIP and root-restart tests). A range `[lo, hi]` includes both ends.
 */
export interface RandomMilpShape {
  /** Integer columns `x0…`: a fixed count, or a range drawn from; each binary with probability 0.7. */
  columns: number | [number, number];
  /** The range a general integer column's upper bound (lower bound 0) is drawn from. */
  integerUpper: [number, number];
  /** A continuous column `c` in [0, u], u drawn from [1, 8]. */
  continuous: boolean;
  /** The range the row count is drawn from; a row with fewer than two terms is left out. */
  rows: [number, number];
  /**
   * The row count drawn anew before each row (a loop `i < int(lo, hi)`), as mip-start's generator did:
   * kept so its cases stay the ones it was written against.
   */
  rowsRedrawn: boolean;
  /** The probability that a column is in a row. */
  termChance: number;
  /** The range a row coefficient's magnitude is drawn from. */
  coefficient: [number, number];
  /** The probability that a row coefficient is negative (no draw when 0). */
  negativeChance: number;
  /** A row's side is round((base + spread·r)·Σ|coefficient|), r uniform in [0, 1). */
  side: { base: number; spread: number };
  /**
   * Probabilities that a row is `≤ side` and `≥ round(0.3·side)`; the rest are `= side`. No draw when
   * `atMost` is 1.
   */
  rowKinds: { atMost: number; atLeast: number };
  /** The range an objective coefficient is drawn from. */
  objective: [number, number];
  /** The sense, or `random` (minimise with probability 0.5). */
  sense: Problem["sense"] | "random";
}

const DEFAULT_MILP_SHAPE: RandomMilpShape = {
  columns: [15, 30],
  integerUpper: [2, 5],
  continuous: true,
  rows: [5, 12],
  rowsRedrawn: false,
  termChance: 0.5,
  coefficient: [1, 15],
  negativeChance: 0.25,
  side: { base: 0.2, spread: 0.5 },
  rowKinds: { atMost: 0.6, atLeast: 0.4 },
  objective: [-20, 20],
  sense: "random",
};

/**
 * A random MILP of binaries, small general integers and optionally a bounded continuous column, with
 * rows of random terms whose sides follow from the row's total: the cases of the search-equivalence
 * tests. The draws come in a fixed order (columns, rows, objective, sense), so a seed and shape always
 * give the same problem.
 */
export function seededMilp(seed: number, shape: Partial<RandomMilpShape> = {}): Problem {
  const s = { ...DEFAULT_MILP_SHAPE, ...shape };
  const g = seededGenerator(seed);
  const n = typeof s.columns === "number" ? s.columns : g.int(...s.columns);
  const variables: ProblemInput["variables"] = Array.from({ length: n }, (_, j) =>
    g.next() < 0.7 ? { name: `x${j}`, type: "binary" as const } : { name: `x${j}`, lb: 0, ub: g.int(...s.integerUpper), type: "integer" as const },
  );
  if (s.continuous) variables.push({ name: "c", lb: 0, ub: g.int(1, 8), type: "continuous" });
  const constraints: ProblemInput["constraints"] = [];
  const drawRows = () => g.int(...s.rows);
  const rows = s.rowsRedrawn ? null : drawRows();
  for (let i = 0; i < (rows ?? drawRows()); i++) {
    const members = variables.filter(() => g.next() < s.termChance);
    const terms = members.map((v) => ({ var: v.name, coef: (s.negativeChance > 0 && g.next() < s.negativeChance ? -1 : 1) * g.int(...s.coefficient) }));
    if (terms.length < 2) continue;
    const side = Math.round((s.side.base + s.side.spread * g.next()) * terms.reduce((sum, t) => sum + Math.abs(t.coef), 0));
    const kind = s.rowKinds.atMost < 1 ? g.next() : 0;
    if (kind < s.rowKinds.atMost) constraints.push({ name: `r${i}`, terms, ub: side });
    else if (kind < s.rowKinds.atMost + s.rowKinds.atLeast) constraints.push({ name: `r${i}`, terms, lb: Math.round(0.3 * side) });
    else constraints.push({ name: `r${i}`, terms, lb: side, ub: side });
  }
  const objective = { constant: 0, terms: variables.map((v) => ({ var: v.name, coef: g.int(...s.objective) })) };
  const sense = s.sense === "random" ? (g.next() < 0.5 ? "minimize" : "maximize") : s.sense;
  return problem({ sense, variables, objective, constraints });
}

/** Smallest left-hand side of the cut over the model's points with the integers fixed; null if none. */
export function minimumLhs(model: LpModel, cut: Cut, fixed: Map<number, number>): number | null {
  const cost = new Float64Array(model.cols);
  cut.index.forEach((j, k) => {
    cost[j] = cut.value[k]!;
  });
  const engine = new LpEngine({ ...model, cost, offset: 0 });
  for (const [j, v] of fixed) engine.setColumnBounds(j, v, v);
  const r = engine.solve({ deadline: performance.now() + 5000 });
  if (r.status === "infeasible") return null;
  expect(r.status).toBe("optimal");
  return r.objective;
}

/**
 * What goes wrong on this model, or null: the verdicts with presolve on and off differ, an objective
 * differs, a returned point breaks the model, or the reduced LP's optimum does not postsolve to a
 * feasible point at the optimum found without presolve.
 */
export function presolveFailure(p: Problem): string | null {
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
  const tol = 1e-6 * Math.max(1, Math.abs(expected));
  if (!(Math.abs(on.objective_value! - expected) <= tol)) return `objective with presolve ${on.objective_value}, without ${expected}`;
  const { model, sign } = modelFromProblem(p);
  const pre = presolve(model);
  if (pre.status !== "reduced") return `presolve says ${pre.status} (${pre.reason}) where the optimum is ${expected}`;
  const r = new LpEngine(pre.reduced).solve({ deadline: performance.now() + 10_000 });
  if (r.status !== "optimal") return `the reduced LP is ${r.status}`;
  const x = pre.postsolve(r.x!);
  if (maxViolation(model, x) > 1e-6) return `the postsolved point breaks the model by ${maxViolation(model, x)}`;
  const value = sign * objectiveValue(model, x);
  if (!(Math.abs(value - expected) <= tol)) return `the postsolved point's objective ${value}, the optimum ${expected}`;
  return null;
}

/** The model with rows, then columns, dropped one at a time while `fails` still says it fails. */
export function shrinkProblem(p: Problem, fails: (q: Problem) => string | null): Problem {
  let current = p;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = current.constraints.length - 1; i >= 0; i--) {
      const q = { ...current, constraints: current.constraints.filter((_, k) => k !== i) };
      if (fails(q)) {
        current = q;
        changed = true;
      }
    }
    for (let j = current.variables.length - 1; j >= 0 && current.variables.length > 1; j--) {
      const name = current.variables[j]!.name;
      const drop = (terms: Problem["objective"]["terms"]) => terms.filter((t) => t.var !== name);
      const q: Problem = {
        ...current,
        variables: current.variables.filter((_, k) => k !== j),
        objective: { ...current.objective, terms: drop(current.objective.terms) },
        constraints: current.constraints.map((c) => ({ ...c, terms: drop(c.terms) })).filter((c) => c.terms.length > 0),
      };
      if (fails(q)) {
        current = q;
        changed = true;
      }
    }
  }
  return current;
}

/** Every integer assignment within the column boxes (the model's integer columns only; for enumeration tests). */
export function* integerPoints(model: LpModel): Generator<Map<number, number>> {
  const ints = Array.from({ length: model.cols }, (_, j) => j).filter((j) => model.integer[j]);
  const point = new Map<number, number>();
  function* rec(k: number): Generator<Map<number, number>> {
    if (k === ints.length) {
      yield point;
      return;
    }
    const j = ints[k]!;
    for (let v = model.colLower[j]!; v <= model.colUpper[j]!; v++) {
      point.set(j, v);
      yield* rec(k + 1);
    }
  }
  yield* rec(0);
}

/** A cut's left-hand side Σ a·x at a point. */
export function cutLhs(cut: Cut, x: ArrayLike<number>): number {
  let s = 0;
  cut.index.forEach((j, k) => {
    s += cut.value[k]! * x[j]!;
  });
  return s;
}

/** What differs between the retail-shaped models of the tests that draw them; `[lo, hi]` are `int` ranges. */
export interface RetailShape {
  /** How many demand rows. */
  rows: [number, number];
  /** An under column's upper bound when it has one (half of them do not). */
  underUpper: [number, number];
  /** The chance that an integer appears in a demand row, and the range of its coefficient there. */
  integerInRow: { chance: number; coef: [number, number] };
  /** The integer part of a row's demand (its tenths are drawn after it). */
  demand: [number, number];
  /** Further rows (and columns), drawn from the same generator after the demand rows. */
  extras?: (g: SeededGenerator, model: RetailModel) => void;
}

/** A retail-shaped model as it is drawn, before `problem` fills in its defaults. */
export interface RetailModel {
  variables: ProblemInput["variables"];
  objective: JaosTerm[];
  constraints: NonNullable<ProblemInput["constraints"]>;
}

const term = (coef: number, name: string): JaosTerm => ({ var: name, coef });

/**
 * A random small model of the retail shape: 2-3 general integers n_p over a few values, and demand
 * equations Σ a_rp n_p + u_r − o_r = d_r, each with its own under and over column (under dearer than
 * over), then `shape.extras`. The draws come in a fixed order, so one seed and shape give one model.
 */
export function retailShapedProblem(seed: number, shape: RetailShape): Problem {
  const g = seededGenerator(seed);
  const ints = g.int(2, 3);
  const rows = g.int(...shape.rows);
  const model: RetailModel = { variables: [], objective: [], constraints: [] };
  for (let p = 0; p < ints; p++) {
    model.variables.push({ name: `n${p}`, lb: g.int(-1, 0), ub: g.int(2, 4), type: "integer" });
    model.objective.push(term(g.int(1, 4) / 2, `n${p}`));
  }
  for (let r = 0; r < rows; r++) {
    model.variables.push({ name: `u${r}`, lb: 0, ub: g.next() < 0.5 ? Infinity : g.int(...shape.underUpper), type: "continuous" });
    model.variables.push({ name: `o${r}`, lb: 0, ub: Infinity, type: "continuous" });
    model.objective.push(term(g.int(2, 6), `u${r}`), term(1, `o${r}`));
    const terms = [term(1, `u${r}`), term(-1, `o${r}`)];
    for (let p = 0; p < ints; p++) if (g.next() < shape.integerInRow.chance) terms.push(term(g.int(...shape.integerInRow.coef), `n${p}`));
    const demand = g.int(...shape.demand) + g.int(1, 9) / 10;
    model.constraints.push({ name: `demand${r}`, terms, lb: demand, ub: demand });
  }
  shape.extras?.(g, model);
  return problem({ sense: "minimize", variables: model.variables, objective: { constant: 0, terms: model.objective }, constraints: model.constraints });
}

/** An elimination's factors as plain arrays, for `toEqual` between two runs (pivots, L, U, the dense start, repairs). */
export function plainFactors(r: ReturnType<Elimination["run"]>) {
  return {
    pivotRow: [...r.pivotRow],
    pivotCol: [...r.pivotCol],
    pivotValue: [...r.pivotValue],
    lStart: [...r.lStart],
    l: [...r.lIndex.data.subarray(0, r.lIndex.length)].map((i, k) => [i, r.lValue.data[k]]),
    uStart: [...r.uStart],
    u: [...r.uIndex.data.subarray(0, r.uIndex.length)].map((j, k) => [j, r.uValue.data[k]]),
    denseFrom: r.denseFrom,
    deficientPositions: r.deficientPositions,
    replacementRows: r.replacementRows,
  };
}
