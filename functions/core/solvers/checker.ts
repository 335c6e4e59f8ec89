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
export class Sum {
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

/** How far `value` lies outside [lower, upper] beyond the relative tolerance `tol` (null bounds: none), or null inside. */
function excess(
  value: number,
  { lower, upper, tol }: { lower: number | null; upper: number | null; tol: number },
): { amount: number; side: "lower" | "upper" } | null {
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
    const e = excess(x, { lower, upper, tol });
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
    const e = excess(act, { lower: c.lb, upper: c.ub, tol });
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

export type DualViolationKind = "not_an_lp" | "missing_dual" | "dual_sign" | "complementary_slackness" | "stationarity" | "strong_duality";

export interface DualViolation {
  kind: DualViolationKind;
  /** Constraint or variable name ("objective" for strong duality). */
  name: string;
  amount: number;
  message: string;
}

/**
 * Checks LP duals y and reduced costs d against a primal optimum x, in the convention of duals.ts
 * (c = Aᵀy + d; for minimise y, d ≥ 0 on an active lower side, ≤ 0 on an active upper side; flipped
 * for maximise). Tolerances (τ = `tolerance`, default 1e-6; s = max(1, max|c_j|)):
 * - dual feasibility: a value beyond τ·s with the sign of a side that is infinite is wrong;
 * - complementary slackness: |y_i|·(distance of the activity from the side its sign names), and the
 *   same for d_j and bounds, at most τ·max(1, |objective|);
 * - stationarity: |c_j − Σ a_ij y_i − d_j| ≤ τ·max(1, |c_j|, Σ|a_ij y_i|);
 * - strong duality: the dual objective constant + Σ y_i·b_i + Σ d_j·x̂_j (b_i the side y_i's sign
 *   names, x̂_j the bound d_j's sign names) within `strongDualityTolerance` (default 1e-6) relative
 *   (max(1, |objective|)) of the primal objective recomputed from x.
 * The primal point itself is judged by `checkSolution`.
 */
export function checkDuals(
  problem: Problem,
  { solution, duals, reducedCosts }: { solution: Record<string, number>; duals: Record<string, number>; reducedCosts: Record<string, number> },
  options: { tolerance?: number; strongDualityTolerance?: number } = {},
): DualViolation[] {
  const tol = options.tolerance ?? 1e-6;
  const sdTol = options.strongDualityTolerance ?? 1e-6;
  if (problem.variables.some((v) => v.type !== "continuous") || (problem.objective.quadratic ?? []).length > 0) {
    return [{ kind: "not_an_lp", name: "objective", amount: 0, message: "duals are checked on LPs only (continuous variables, linear objective)" }];
  }
  const out: DualViolation[] = [];
  const flip = problem.sense === "maximize" ? -1 : 1;
  let costScale = 1;
  for (const t of problem.objective.terms) costScale = Math.max(costScale, Math.abs(t.coef));
  const zero = tol * costScale;
  const primal = objectiveOf(problem, solution);
  const slackTol = tol * Math.max(1, Math.abs(primal));
  const dual = new Sum();
  dual.add(problem.objective.constant);

  /** One multiplier against its side or bound pair: sign, complementary slackness, dual-objective term. */
  const judge = ({
    what,
    name,
    value,
    at,
    lower,
    upper,
  }: {
    what: string;
    name: string;
    value: number | undefined;
    at: number;
    lower: number | null;
    upper: number | null;
  }) => {
    if (value === undefined || !Number.isFinite(value)) {
      out.push({ kind: "missing_dual", name, amount: 0, message: `no finite ${what} for "${name}"` });
      return;
    }
    const signed = flip * value; // the minimiser's sign
    if (signed === 0) return;
    const side = signed > 0 ? lower : upper;
    if (side === null) {
      if (Math.abs(signed) > zero)
        out.push({
          kind: "dual_sign",
          name,
          amount: Math.abs(value),
          message: `${what} of "${name}" is ${value}, whose sign names its ${signed > 0 ? "lower" : "upper"} side, which is infinite`,
        });
      dual.add(value * at);
      return;
    }
    const product = Math.abs(value) * Math.abs(at - side);
    if (product > slackTol)
      out.push({
        kind: "complementary_slackness",
        name,
        amount: product,
        message: `${what} of "${name}" is ${value} but its ${signed > 0 ? "lower" : "upper"} side ${side} is not active (at ${at})`,
      });
    dual.add(value * side);
  };

  const aty = new Map<string, Sum>();
  const atyAbs = new Map<string, number>();
  for (const row of problem.constraints) {
    const activity = new Sum();
    for (const t of row.terms) activity.add(t.coef * (solution[t.var] ?? Number.NaN));
    const y = duals[row.name];
    judge({ what: "the dual", name: row.name, value: y, at: activity.value, lower: row.lb, upper: row.ub });
    // a zero dual adds nothing to any column's Aᵀy (nor to the magnitudes): its row is skipped
    if (y === undefined || !Number.isFinite(y) || y === 0) continue;
    for (const t of row.terms) {
      const s = aty.get(t.var) ?? new Sum();
      aty.set(t.var, s);
      s.add(t.coef * y);
      atyAbs.set(t.var, (atyAbs.get(t.var) ?? 0) + Math.abs(t.coef * y));
    }
  }
  const cost = new Map<string, number>();
  for (const t of problem.objective.terms) cost.set(t.var, (cost.get(t.var) ?? 0) + t.coef);
  for (const v of problem.variables) {
    const d = reducedCosts[v.name];
    judge({ what: "the reduced cost", name: v.name, value: d, at: solution[v.name] ?? Number.NaN, lower: v.lb, upper: v.ub });
    if (d === undefined || !Number.isFinite(d)) continue;
    const c = cost.get(v.name) ?? 0;
    const residual = Math.abs(c - (aty.get(v.name)?.value ?? 0) - d);
    if (residual > tol * Math.max(1, Math.abs(c), atyAbs.get(v.name) ?? 0))
      out.push({ kind: "stationarity", name: v.name, amount: residual, message: `c − Aᵀy − d = ${residual} for "${v.name}"` });
  }
  const gap = Math.abs(primal - dual.value);
  if (!(gap <= sdTol * Math.max(1, Math.abs(primal))))
    out.push({ kind: "strong_duality", name: "objective", amount: gap, message: `primal objective ${primal}, dual objective ${dual.value}` });
  return out;
}
