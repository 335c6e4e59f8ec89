import type { Problem } from "../problem/schema.js";
import { Sum } from "./checker.js";
import { FEASIBILITY_TOLERANCE, INTEGRALITY_TOLERANCE, OBJECTIVE_TOLERANCE, type ViolationKindName } from "./verification-schema.js";

/**
 * One point against the model as submitted, in the gate's terms (verification-schema.ts states the
 * tolerances). It shares no code with any solver: names as written, null for infinity, binary meaning
 * [0, 1], compensated sums in plain floating point.
 */

export interface Finding {
  kind: ViolationKindName;
  name: string;
  /** The violation divided by its size (see verification-schema.ts); Infinity for a missing value. */
  scaled: number;
  /** How far outside, absolute. */
  amount: number;
  message: string;
}

export interface PointAssessment {
  /** Findings beyond their tolerance, worst (largest scaled) first. */
  violations: Finding[];
  /** The largest scaled violation over every bound, row and integrality, within tolerance or not. */
  maxViolation: number;
  /** The objective recomputed from the point (NaN when a value is missing). */
  objective: number;
  /** max(1, |constant| + Σ|c_j·x_j| + Σ|q·x_a·x_b|): the objective's size. */
  objectiveSize: number;
}

const fmt = (v: number) => (Number.isInteger(v) || Math.abs(v) >= 1e-3 ? String(Number(v.toPrecision(10))) : v.toExponential(3));

/**
 * What floating point may leave in a row's activity summed from the point (compensated sums; the products
 * rounded once each): far below any solver's tolerance, far above what a wrong point leaves.
 */
export const ROUNDING_ALLOWANCE = 1e-12;

function limitOf(tolerance: number, size: number): number {
  return tolerance * Math.max(1, size);
}

/**
 * Bounds, integrality and rows of `point` (every variable named; a missing or non-finite value, or a
 * name the problem lacks, is a violation of kind "value"). Integrality here is the distance to the
 * nearest integer only; the rounded point is a second assessment (roundedPoint).
 */
/**
 * How a row's violation is scaled.
 * - "solver": by the row's whole size max(1, |side|, Σ_j |a_ij·x_j|), as a solver judges its own point: a
 *   row of big terms relatively. It tells whether the solver kept to its own tolerance.
 * - "reported" (the default, what a reported point must pass): the integer columns hold integers (the
 *   point is the rounded one), so their terms are exact and carry no error a tolerance should absorb; the
 *   row is scaled by its continuous part only, max(1, Σ_{continuous j} |a_ij·x_j|), plus a floating-point
 *   allowance of ROUNDING_ALLOWANCE · (Σ_j |a_ij·x_j| + |side|). A big-M row `x − M·y ≥ L − M` with y = 1
 *   then holds only with x ≥ L − 1e-6, not x ≥ L − 1e-6·M (a bonus the model forbids, taken within a
 *   solver's relative tolerance).
 */
export type RowScale = "solver" | "reported";

export function assessPoint(problem: Problem, point: Record<string, number>, options: { rows?: RowScale } = {}): PointAssessment {
  const strict = (options.rows ?? "reported") === "reported";
  const violations: Finding[] = [];
  let maxViolation = 0;
  /** Records a scaled violation; the finding (and its message) is built only when it is beyond the tolerance. */
  const note = (scaled: number, tolerance: number, finding: () => Finding) => {
    if (scaled > maxViolation) maxViolation = scaled;
    if (scaled > tolerance) violations.push(finding());
  };
  let valuesMissing = false;
  for (const v of problem.variables) {
    const x = point[v.name];
    if (x === undefined || !Number.isFinite(x)) {
      valuesMissing = true;
      note(Infinity, 0, () => ({
        kind: "value",
        name: v.name,
        scaled: Infinity,
        amount: Infinity,
        message: `"${v.name}" has ${x === undefined ? "no value" : `the value ${x}`}`,
      }));
      continue;
    }
    const binary = v.type === "binary";
    const lower = binary ? Math.max(v.lb ?? 0, 0) : v.lb;
    const upper = binary ? Math.min(v.ub ?? 1, 1) : v.ub;
    if (lower !== null && x < lower) {
      const amount = lower - x;
      const scaled = amount / Math.max(1, Math.abs(lower));
      note(scaled, FEASIBILITY_TOLERANCE, () => ({
        kind: "bound",
        name: v.name,
        scaled,
        amount,
        message: `"${v.name}" = ${fmt(x)} is below its lower bound ${fmt(lower)} by ${fmt(amount)}`,
      }));
    }
    if (upper !== null && x > upper) {
      const amount = x - upper;
      const scaled = amount / Math.max(1, Math.abs(upper));
      note(scaled, FEASIBILITY_TOLERANCE, () => ({
        kind: "bound",
        name: v.name,
        scaled,
        amount,
        message: `"${v.name}" = ${fmt(x)} is above its upper bound ${fmt(upper)} by ${fmt(amount)}`,
      }));
    }
    if (v.type !== "continuous") {
      const distance = Math.abs(x - Math.round(x));
      note(distance, INTEGRALITY_TOLERANCE, () => ({
        kind: "integrality",
        name: v.name,
        scaled: distance,
        amount: distance,
        message: `integer variable "${v.name}" = ${fmt(x)} is ${fmt(distance)} from an integer`,
      }));
    }
  }
  // Names the problem lacks: only looked for when the point names more than the problem has.
  if (Object.keys(point).length !== problem.variables.length) {
    const known = new Set(problem.variables.map((v) => v.name));
    for (const name of Object.keys(point)) {
      if (!known.has(name))
        note(Infinity, 0, () => ({
          kind: "value",
          name,
          scaled: Infinity,
          amount: Infinity,
          message: `the point names "${name}", which is not a variable of the model`,
        }));
    }
  }
  if (valuesMissing) return { violations: sortWorstFirst(violations), maxViolation, objective: Number.NaN, objectiveSize: 1 };

  const rows = compiledRows(problem);
  const x = new Float64Array(problem.variables.length);
  problem.variables.forEach((v, j) => {
    x[j] = point[v.name]!;
  });
  for (let i = 0; i < problem.constraints.length; i++) {
    const c = problem.constraints[i]!;
    // Compensated summation, inlined (Neumaier): one row at a time, no allocation.
    let sum = 0;
    let compensation = 0;
    let size = 0;
    let continuousSize = 0;
    for (let k = rows.start[i]!; k < rows.start[i + 1]!; k++) {
      const j = rows.column[k]!;
      const term = rows.coef[k]! * x[j]!;
      const next = sum + term;
      compensation += Math.abs(sum) >= Math.abs(term) ? sum - next + term : term - next + sum;
      sum = next;
      size += Math.abs(term);
      if (!rows.integer[j]) continuousSize += Math.abs(term);
    }
    const a = sum + compensation;
    /** The violation `amount` of side `b`, scaled by the rule in force. */
    const scale = (amount: number, b: number) =>
      strict ? Math.max(0, amount - ROUNDING_ALLOWANCE * (size + Math.abs(b))) / Math.max(1, continuousSize) : amount / Math.max(1, Math.abs(b), size);
    if (c.lb !== null && a < c.lb) {
      const amount = c.lb - a;
      const scaled = scale(amount, c.lb);
      note(scaled, FEASIBILITY_TOLERANCE, () => ({
        kind: "constraint",
        name: c.name,
        scaled,
        amount,
        message: `row "${c.name}" has activity ${fmt(a)}, below its lower side ${fmt(c.lb!)} by ${fmt(amount)}`,
      }));
    }
    if (c.ub !== null && a > c.ub) {
      const amount = a - c.ub;
      const scaled = scale(amount, c.ub);
      note(scaled, FEASIBILITY_TOLERANCE, () => ({
        kind: "constraint",
        name: c.name,
        scaled,
        amount,
        message: `row "${c.name}" has activity ${fmt(a)}, above its upper side ${fmt(c.ub!)} by ${fmt(amount)}`,
      }));
    }
  }
  const { value, size } = objectiveWithSize(problem, point);
  return { violations: sortWorstFirst(violations), maxViolation, objective: value, objectiveSize: size };
}

/** The rows as column indexes and coefficients (compressed by row), built once per problem object (a parsed problem is never changed in place: subproblems and variants are new objects). */
interface CompiledRows {
  start: Int32Array;
  column: Int32Array;
  coef: Float64Array;
  /** 1 for an integer or binary column. */
  integer: Uint8Array;
}
const compiled = new WeakMap<Problem, CompiledRows>();

function compiledRows(problem: Problem): CompiledRows {
  const known = compiled.get(problem);
  if (known) return known;
  const index = new Map(problem.variables.map((v, j) => [v.name, j]));
  let nonzeros = 0;
  for (const c of problem.constraints) nonzeros += c.terms.length;
  const rows: CompiledRows = {
    start: new Int32Array(problem.constraints.length + 1),
    column: new Int32Array(nonzeros),
    coef: new Float64Array(nonzeros),
    integer: Uint8Array.from(problem.variables, (v) => (v.type === "continuous" ? 0 : 1)),
  };
  let k = 0;
  problem.constraints.forEach((c, i) => {
    rows.start[i] = k;
    for (const t of c.terms) {
      rows.column[k] = index.get(t.var)!;
      rows.coef[k++] = t.coef;
    }
  });
  rows.start[problem.constraints.length] = k;
  compiled.set(problem, rows);
  return rows;
}

function sortWorstFirst(findings: Finding[]): Finding[] {
  return findings.sort((a, b) => b.scaled - a.scaled);
}

/** constant + Σ c_j x_j + Σ q·x_a·x_b, and its size max(1, Σ of the terms' absolute values). */
export function objectiveWithSize(problem: Problem, point: Record<string, number>): { value: number; size: number } {
  const sum = new Sum();
  let size = Math.abs(problem.objective.constant);
  sum.add(problem.objective.constant);
  for (const t of problem.objective.terms) {
    const term = t.coef * (point[t.var] ?? Number.NaN);
    sum.add(term);
    size += Math.abs(term);
  }
  for (const q of problem.objective.quadratic ?? []) {
    const term = q.coef * (point[q.var1] ?? Number.NaN) * (point[q.var2] ?? Number.NaN);
    sum.add(term);
    size += Math.abs(term);
  }
  return { value: sum.value, size: Math.max(1, size) };
}

/** A reported objective against the recomputed one: null when it agrees, else the finding. */
export function objectiveFinding(reported: number | null, recomputed: number, size: number): Finding | null {
  if (reported === null || !Number.isFinite(recomputed)) return null;
  const amount = Math.abs(reported - recomputed);
  if (amount <= limitOf(OBJECTIVE_TOLERANCE, size)) return null;
  return {
    kind: "objective",
    name: "objective",
    scaled: amount / size,
    amount,
    message: `the solver's objective ${fmt(reported)} differs from the ${fmt(recomputed)} its point gives by ${fmt(amount)}`,
  };
}

/**
 * The point with each integer and binary variable within INTEGRALITY_TOLERANCE of an integer set to
 * that integer (the value it stands for), and the names of the variables that moved.
 */
export function roundedPoint(problem: Problem, point: Record<string, number>): { point: Record<string, number>; moved: string[] } {
  // Copied only once a value moves: an LP's point (or an exactly integral one) is returned as it is.
  let out: Record<string, number> | null = null;
  const moved: string[] = [];
  for (const v of problem.variables) {
    if (v.type === "continuous") continue;
    const x = point[v.name];
    if (x === undefined || !Number.isFinite(x)) continue;
    const nearest = Math.round(x) + 0; // + 0: never -0
    if (nearest !== x && Math.abs(x - nearest) <= INTEGRALITY_TOLERANCE) {
      out ??= { ...point };
      out[v.name] = nearest;
      moved.push(v.name);
    }
  }
  return { point: out ?? point, moved };
}

/** The rows `names` among the problem's, each with the rounded variables it holds. */
export function roundedVariablesIn(problem: Problem, rows: string[], moved: string[]): string[] {
  const wanted = new Set(rows);
  const movedSet = new Set(moved);
  const found = new Set<string>();
  for (const c of problem.constraints) {
    if (!wanted.has(c.name)) continue;
    for (const t of c.terms) if (movedSet.has(t.var)) found.add(t.var);
  }
  return [...found];
}
