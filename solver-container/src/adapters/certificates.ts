import type { Problem } from "../../../functions/core/problem/schema.js";

/**
 * Checkable evidence for "infeasible or unbounded" answers a solver cannot be trusted on by itself
 * (CBC 2.10.8 calls the unbounded gas11 infeasible; CBC and glpsol call a MILP unbounded from its LP
 * relaxation alone). The adapter asks the same solver two easier questions and checks the answers here
 * in exact terms of the canonical problem, so no verdict rests on an unverified claim:
 *
 *  1. Feasibility: the problem with its objective dropped. Proved infeasible → the problem is infeasible.
 *     A point that satisfies every bound, row and integrality (checked here) → the problem is feasible.
 *  2. Recession: the LP over directions d that keep any feasible point feasible (a finite bound of a
 *     row or variable becomes the same-side bound 0), boxed to [-1, 1], minimising the objective along d.
 *     A verified d with negative objective change is an improving ray.
 *
 * Feasible point + improving ray ⇒ unbounded. For a MILP this holds too when the data are rational
 * (they are: decimal numbers from a file or JSON): the integer hull of a rational polyhedron, when not
 * empty, has the same recession cone as the polyhedron (Meyer, 1974).
 */

/** Relative tolerance for a point: rows and bounds as a simplex code's feasibility test would take them. */
export const POINT_TOLERANCE = 1e-6;
/** Relative tolerance for a ray's rows, against the magnitude of the terms that cancel in them. */
export const RAY_TOLERANCE = 1e-7;

export function feasibilityProblem(problem: Problem): Problem {
  return { ...problem, name: `${problem.name}_feasibility`, sense: "minimize", objective: { constant: 0, terms: [] } };
}

/** The recession LP, always in minimisation form: its objective is the original's improvement along d. */
export function recessionProblem(problem: Problem): Problem {
  const sign = problem.sense === "minimize" ? 1 : -1;
  return {
    name: `${problem.name}_recession`,
    sense: "minimize",
    variables: problem.variables.map((v) => ({
      name: v.name,
      type: "continuous" as const,
      lb: v.lb !== null || v.type === "binary" ? 0 : -1,
      ub: v.ub !== null || v.type === "binary" ? 0 : 1,
    })),
    objective: { constant: 0, terms: problem.objective.terms.map((t) => ({ var: t.var, coef: sign * t.coef })) },
    constraints: problem.constraints.map((c) => ({ name: c.name, terms: c.terms, lb: c.lb === null ? null : 0, ub: c.ub === null ? null : 0 })),
  };
}

export interface Violation {
  /** Largest violation divided by its scale; 0 when everything holds. */
  worst: number;
  where: string | null;
}

function activity(terms: Problem["constraints"][number]["terms"], x: (name: string) => number): { value: number; scale: number } {
  let value = 0;
  let scale = 0;
  for (const t of terms) {
    const term = t.coef * x(t.var);
    value += term;
    scale += Math.abs(term);
  }
  return { value, scale };
}

/** How far `point` (missing names = 0, as CBC omits zero columns) is from satisfying `problem`. */
export function pointViolation(problem: Problem, point: Record<string, number>): Violation {
  const x = (name: string) => point[name] ?? 0;
  let worst = 0;
  let where: string | null = null;
  const note = (amount: number, scale: number, label: string) => {
    const relative = amount / Math.max(1, scale);
    if (relative > worst) [worst, where] = [relative, label];
  };
  for (const v of problem.variables) {
    const value = x(v.name);
    const lb = v.type === "binary" ? Math.max(0, v.lb ?? 0) : v.lb;
    const ub = v.type === "binary" ? Math.min(1, v.ub ?? 1) : v.ub;
    if (lb !== null) note(lb - value, Math.abs(lb), `lower bound of ${v.name}`);
    if (ub !== null) note(value - ub, Math.abs(ub), `upper bound of ${v.name}`);
    if (v.type !== "continuous") note(Math.abs(value - Math.round(value)), 1, `integrality of ${v.name}`);
  }
  for (const c of problem.constraints) {
    const { value, scale } = activity(c.terms, x);
    if (c.lb !== null) note(c.lb - value, Math.max(scale, Math.abs(c.lb)), `row ${c.name} (lower side)`);
    if (c.ub !== null) note(value - c.ub, Math.max(scale, Math.abs(c.ub)), `row ${c.name} (upper side)`);
  }
  return { worst, where };
}

export interface RayCheck {
  /** Change of the objective along the ray, in minimisation terms (negative = improving). */
  improvement: number;
  /** Its scale: the sum of |c_j d_j|. */
  scale: number;
  violation: Violation;
}

export function checkRay(problem: Problem, ray: Record<string, number>): RayCheck {
  const d = (name: string) => ray[name] ?? 0;
  let worst = 0;
  let where: string | null = null;
  const note = (amount: number, scale: number, label: string) => {
    // Directions are normalised to |d| <= 1, so an absolute floor of 1e-12 is below any solver's noise.
    const relative = amount / Math.max(scale, 1e-12);
    if (amount > 1e-12 && relative > worst) [worst, where] = [relative, label];
  };
  for (const v of problem.variables) {
    const value = d(v.name);
    if (v.lb !== null || v.type === "binary") note(-value, 1, `direction of ${v.name} (lower bound)`);
    if (v.ub !== null || v.type === "binary") note(value, 1, `direction of ${v.name} (upper bound)`);
  }
  for (const c of problem.constraints) {
    const { value, scale } = activity(c.terms, d);
    if (c.lb !== null) note(-value, scale, `row ${c.name} along the ray (lower side)`);
    if (c.ub !== null) note(value, scale, `row ${c.name} along the ray (upper side)`);
  }
  const sign = problem.sense === "minimize" ? 1 : -1;
  const { value, scale } = activity(problem.objective.terms, d);
  return { improvement: sign * value, scale, violation: { worst, where } };
}

/** Does `ray` prove, together with a feasible point, that `problem` is unbounded? */
export function isImprovingRay(check: RayCheck): boolean {
  return check.violation.worst <= RAY_TOLERANCE && check.improvement < -1e-9 * Math.max(1, check.scale);
}

/** What an adapter's auxiliary solve answers: a proved status and, when optimal, the column values. */
export interface AuxiliaryAnswer {
  status: "optimal" | "infeasible" | "other";
  values: Record<string, number> | null;
  /** The solver's own words, for the error message when nothing could be settled. */
  words: string;
}

export type Settled = { status: "infeasible" | "unbounded" } | { status: "error"; message: string };

/**
 * Settles an infeasible-or-unbounded question with the same solver: `solveAux` runs the feasibility
 * problem and then the recession LP. `claim` is what the solver said first, for the message.
 */
export async function settleInfeasibleOrUnbounded(
  problem: Problem,
  claim: string,
  solveAux: (aux: Problem, purpose: "feasibility" | "recession") => Promise<AuxiliaryAnswer>,
): Promise<Settled> {
  const feasibility = await solveAux(feasibilityProblem(problem), "feasibility");
  if (feasibility.status === "infeasible") return { status: "infeasible" };
  if (feasibility.status !== "optimal" || !feasibility.values) {
    return { status: "error", message: `${claim}; checking feasibility without the objective did not settle it: ${feasibility.words}` };
  }
  const off = pointViolation(problem, feasibility.values);
  if (off.worst > POINT_TOLERANCE) {
    return {
      status: "error",
      message: `${claim}; the point found without the objective violates ${off.where} by ${off.worst.toExponential(2)} (relative), so nothing is proved`,
    };
  }
  const recession = await solveAux(recessionProblem(problem), "recession");
  if (recession.status === "optimal" && recession.values && isImprovingRay(checkRay(problem, recession.values))) return { status: "unbounded" };
  return {
    status: "error",
    message: `${claim}; yet the problem has a feasible point and no improving direction was found, so the solver's answer is wrong and the optimum unknown`,
  };
}
