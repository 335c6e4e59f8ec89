/**
 * An independent solution checker: given the canonical problem and a solution (name → value), it
 * lists every violated bound, constraint and integrality requirement, and compares a reported
 * objective with the one recomputed from the solution (constant and quadratic terms included).
 *
 * It shares no code with any solver: it reads the problem as written (names, nulls for infinity,
 * binary meaning [0, 1]) and sums in plain floating point with compensated (Neumaier) summation, so
 * that an engine's bug cannot hide behind the same bug here.
 *
 * Tolerances: a bound or row side b is violated when the excess exceeds tolerance·max(1, |b|); the
 * objective when the difference exceeds tolerance·max(1, |recomputed|); integrality when the distance
 * to the nearest integer exceeds `integralityTolerance` (default: the same tolerance).
 */
import type { Problem } from "../problem/schema.js";

export type ViolationKind = "missing_value" | "unknown_variable" | "not_finite" | "bound" | "constraint" | "integrality" | "objective";

export interface Violation {
  kind: ViolationKind;
  /** Variable or constraint name ("objective" for the objective). */
  name: string;
  /** How far outside (absolute). */
  amount: number;
  message: string;
}

export interface CheckOptions {
  /** The objective value the solver reported; checked when given. */
  objective?: number | null;
  tolerance?: number;
  integralityTolerance?: number;
}

/** Neumaier's compensated sum of products. */
class Sum {
  private s = 0;
  private c = 0;
  add(v: number): void {
    const t = this.s + v;
    if (Math.abs(this.s) >= Math.abs(v)) this.c += this.s - t + v;
    else this.c += v - t + this.s;
    this.s = t;
  }
  get value(): number {
    return this.s + this.c;
  }
}

function excess(value: number, lower: number | null, upper: number | null, tol: number): { amount: number; side: "lower" | "upper" } | null {
  if (lower !== null && value < lower - tol * Math.max(1, Math.abs(lower))) return { amount: lower - value, side: "lower" };
  if (upper !== null && value > upper + tol * Math.max(1, Math.abs(upper))) return { amount: value - upper, side: "upper" };
  return null;
}

export function checkSolution(problem: Problem, solution: Record<string, number>, options: CheckOptions = {}): Violation[] {
  const tol = options.tolerance ?? 1e-6;
  const intTol = options.integralityTolerance ?? tol;
  const out: Violation[] = [];
  const value = new Map<string, number>();
  const known = new Set(problem.variables.map((v) => v.name));
  for (const name of Object.keys(solution)) {
    if (!known.has(name)) out.push({ kind: "unknown_variable", name, amount: 0, message: `the solution names "${name}", which is not a variable` });
  }
  for (const v of problem.variables) {
    const x = solution[v.name];
    if (x === undefined) {
      out.push({ kind: "missing_value", name: v.name, amount: 0, message: `no value for "${v.name}"` });
      continue;
    }
    if (!Number.isFinite(x)) {
      out.push({ kind: "not_finite", name: v.name, amount: Infinity, message: `"${v.name}" = ${x}` });
      continue;
    }
    value.set(v.name, x);
    let lower = v.lb;
    let upper = v.ub;
    if (v.type === "binary") {
      lower = lower === null ? 0 : Math.max(lower, 0);
      upper = upper === null ? 1 : Math.min(upper, 1);
    }
    const e = excess(x, lower, upper, tol);
    if (e)
      out.push({
        kind: "bound",
        name: v.name,
        amount: e.amount,
        message: `"${v.name}" = ${x} is outside [${lower ?? "-inf"}, ${upper ?? "inf"}] by ${e.amount}`,
      });
    if (v.type !== "continuous") {
      const dist = Math.abs(x - Math.round(x));
      if (dist > intTol) out.push({ kind: "integrality", name: v.name, amount: dist, message: `"${v.name}" = ${x} is not integral` });
    }
  }
  if (out.some((v) => v.kind === "missing_value" || v.kind === "not_finite")) return out;

  for (const c of problem.constraints) {
    const sum = new Sum();
    for (const t of c.terms) sum.add(t.coef * value.get(t.var)!);
    const act = sum.value;
    const e = excess(act, c.lb, c.ub, tol);
    if (e)
      out.push({
        kind: "constraint",
        name: c.name,
        amount: e.amount,
        message: `constraint "${c.name}": activity ${act} violates its ${e.side} side by ${e.amount}`,
      });
  }

  if (options.objective !== undefined && options.objective !== null) {
    const recomputed = objectiveOf(problem, value);
    const diff = Math.abs(recomputed - options.objective);
    if (!(diff <= tol * Math.max(1, Math.abs(recomputed)))) {
      out.push({ kind: "objective", name: "objective", amount: diff, message: `reported objective ${options.objective}, recomputed ${recomputed}` });
    }
  }
  return out;
}

/** constant + Σ c_j x_j + Σ q·x_a·x_b. */
export function objectiveOf(problem: Problem, value: Map<string, number> | Record<string, number>): number {
  const get = (name: string) => (value instanceof Map ? value.get(name) : value[name]) ?? NaN;
  const sum = new Sum();
  sum.add(problem.objective.constant);
  for (const t of problem.objective.terms) sum.add(t.coef * get(t.var));
  for (const q of problem.objective.quadratic ?? []) sum.add(q.coef * get(q.var1) * get(q.var2));
  return sum.value;
}
