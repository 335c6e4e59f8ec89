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

function limitOf(tolerance: number, size: number): number {
  return tolerance * Math.max(1, size);
}

/**
 * Bounds, integrality and rows of `point` (every variable named; a missing or non-finite value, or a
 * name the problem lacks, is a violation of kind "value"). Integrality here is the distance to the
 * nearest integer only; the rounded point is a second assessment (roundedPoint).
 */
export function assessPoint(problem: Problem, point: Record<string, number>): PointAssessment {
  const violations: Finding[] = [];
  let maxViolation = 0;
  const note = (f: Finding, tolerance: number) => {
    if (f.scaled > maxViolation) maxViolation = f.scaled;
    if (f.scaled > tolerance) violations.push(f);
  };
  const known = new Set<string>();
  let valuesMissing = false;
  for (const v of problem.variables) {
    known.add(v.name);
    const x = point[v.name];
    if (x === undefined || !Number.isFinite(x)) {
      valuesMissing = true;
      note(
        { kind: "value", name: v.name, scaled: Infinity, amount: Infinity, message: `"${v.name}" has ${x === undefined ? "no value" : `the value ${x}`}` },
        0,
      );
      continue;
    }
    const binary = v.type === "binary";
    const lower = binary ? Math.max(v.lb ?? 0, 0) : v.lb;
    const upper = binary ? Math.min(v.ub ?? 1, 1) : v.ub;
    if (lower !== null && x < lower) {
      const amount = lower - x;
      note(
        {
          kind: "bound",
          name: v.name,
          scaled: amount / Math.max(1, Math.abs(lower)),
          amount,
          message: `"${v.name}" = ${fmt(x)} is below its lower bound ${fmt(lower)} by ${fmt(amount)}`,
        },
        FEASIBILITY_TOLERANCE,
      );
    }
    if (upper !== null && x > upper) {
      const amount = x - upper;
      note(
        {
          kind: "bound",
          name: v.name,
          scaled: amount / Math.max(1, Math.abs(upper)),
          amount,
          message: `"${v.name}" = ${fmt(x)} is above its upper bound ${fmt(upper)} by ${fmt(amount)}`,
        },
        FEASIBILITY_TOLERANCE,
      );
    }
    if (v.type !== "continuous") {
      const distance = Math.abs(x - Math.round(x));
      if (distance > 0) {
        note(
          {
            kind: "integrality",
            name: v.name,
            scaled: distance,
            amount: distance,
            message: `integer variable "${v.name}" = ${fmt(x)} is ${fmt(distance)} from an integer`,
          },
          INTEGRALITY_TOLERANCE,
        );
      }
    }
  }
  for (const name of Object.keys(point)) {
    if (!known.has(name))
      note({ kind: "value", name, scaled: Infinity, amount: Infinity, message: `the point names "${name}", which is not a variable of the model` }, 0);
  }
  if (valuesMissing) return { violations: sortWorstFirst(violations), maxViolation, objective: Number.NaN, objectiveSize: 1 };

  for (const c of problem.constraints) {
    const activity = new Sum();
    let size = 0;
    for (const t of c.terms) {
      const term = t.coef * point[t.var]!;
      activity.add(term);
      size += Math.abs(term);
    }
    const a = activity.value;
    if (c.lb !== null && a < c.lb) {
      const amount = c.lb - a;
      const rowSize = Math.max(1, Math.abs(c.lb), size);
      note(
        {
          kind: "constraint",
          name: c.name,
          scaled: amount / rowSize,
          amount,
          message: `row "${c.name}" has activity ${fmt(a)}, below its lower side ${fmt(c.lb)} by ${fmt(amount)}`,
        },
        FEASIBILITY_TOLERANCE,
      );
    }
    if (c.ub !== null && a > c.ub) {
      const amount = a - c.ub;
      const rowSize = Math.max(1, Math.abs(c.ub), size);
      note(
        {
          kind: "constraint",
          name: c.name,
          scaled: amount / rowSize,
          amount,
          message: `row "${c.name}" has activity ${fmt(a)}, above its upper side ${fmt(c.ub)} by ${fmt(amount)}`,
        },
        FEASIBILITY_TOLERANCE,
      );
    }
  }
  const { value, size } = objectiveWithSize(problem, point);
  return { violations: sortWorstFirst(violations), maxViolation, objective: value, objectiveSize: size };
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
  const out: Record<string, number> = { ...point };
  const moved: string[] = [];
  for (const v of problem.variables) {
    if (v.type === "continuous") continue;
    const x = point[v.name];
    if (x === undefined || !Number.isFinite(x)) continue;
    const nearest = Math.round(x) + 0; // + 0: never -0
    if (nearest !== x && Math.abs(x - nearest) <= INTEGRALITY_TOLERANCE) {
      out[v.name] = nearest;
      moved.push(v.name);
    }
  }
  return { point: out, moved };
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
