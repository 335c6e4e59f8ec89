import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import { checkFarkas, modelFromProblem } from "@incumbent/jaos";

/**
 * Checkable evidence for the "infeasible" and "unbounded" answers a solver cannot be trusted on by
 * itself (CBC 2.10.8 calls the unbounded gas11 infeasible; CBC and glpsol call a MILP unbounded from its
 * LP relaxation alone; glpsol's presolver answers "no dual feasible solution", which proves neither).
 * The adapter asks the same solver easier questions and checks the answers here in exact terms of the
 * canonical problem, so no verdict rests on an unverified claim:
 *
 *  1. Farkas: the LP over multipliers of the rows and bounds (each in [0, 1]) whose combination cancels
 *     every column and whose right-hand side is positive — "0 ≥ something positive". Multipliers that
 *     pass the check (jaos's checker, on the unscaled problem) prove the LP relaxation, and with it the
 *     problem, infeasible.
 *  2. Feasibility: the problem with its objective dropped. A point that satisfies every bound, row and
 *     integrality (checked here) → the problem is feasible. "Infeasible" is believed for an LP only with
 *     a Farkas certificate; for a MILP, a finished search's "integer infeasible" stands (no short
 *     certificate exists for it).
 *  3. Recession: the LP over directions d that keep any feasible point feasible (a finite bound of a
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

/**
 * A row without terms whose bounds exclude 0: the problem is infeasible, and the row is its own Farkas
 * certificate. Null when there is none.
 */
export function emptyRowConflict(problem: Problem): Problem["constraints"][number] | null {
  return problem.constraints.find((c) => c.terms.every((t) => t.coef === 0) && ((c.lb !== null && c.lb > 0) || (c.ub !== null && c.ub < 0))) ?? null;
}

/** The problem without rows that have no terms (given no conflict, they constrain nothing). */
export function withoutEmptyRows(problem: Problem): Problem {
  const kept = problem.constraints.filter((c) => c.terms.some((t) => t.coef !== 0));
  return kept.length === problem.constraints.length ? problem : { ...problem, constraints: kept };
}

/** Width of the range `boxedFeasibilityProblem` gives an integer column on each side without a bound. */
export const FEASIBILITY_BOX = 1e4;

/**
 * The feasibility problem with each infinite bound of an integer column made finite, FEASIBILITY_BOX
 * from its other bound (or from 0), or null when there is none. A branch and bound over free integers may never find a point (glpsol
 * branches on for ever with a zero objective) while the boxed problem closes at once; any point of it
 * is a point of the problem.
 */
export function boxedFeasibilityProblem(problem: Problem): Problem | null {
  const open = (v: Problem["variables"][number]) => v.type === "integer" && (v.lb === null || v.ub === null);
  if (!problem.variables.some(open)) return null;
  const variables = problem.variables.map((v) => {
    if (!open(v)) return v;
    const anchor = v.lb ?? v.ub ?? 0;
    return { ...v, lb: v.lb ?? anchor - FEASIBILITY_BOX, ub: v.ub ?? anchor + FEASIBILITY_BOX };
  });
  return { ...feasibilityProblem(problem), name: `${problem.name}_boxed_feasibility`, variables };
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

const FARKAS_ROW_LOWER = (i: number) => `row${i}_lower`;
const FARKAS_ROW_UPPER = (i: number) => `row${i}_upper`;

/**
 * The Farkas LP of the problem's LP relaxation: a multiplier in [0, 1] for each finite side of each row
 * and each column bound; every column's combined coefficient is 0; maximise the combined right-hand
 * side. Its optimum is positive exactly when the relaxation is infeasible (and 0 otherwise).
 */
export function farkasProblem(problem: Problem): Problem {
  const { model } = modelFromProblem(feasibilityProblem(problem));
  const variables: Problem["variables"] = [];
  const objective: Problem["objective"]["terms"] = [];
  const columns: Problem["constraints"] = problem.variables.map((_, j) => ({ name: `column${j}`, terms: [], lb: 0, ub: 0 }));
  const multiplier = (name: string, rhs: number, entries: [number, number][]) => {
    variables.push({ name, lb: 0, ub: 1, type: "continuous" });
    if (rhs !== 0) objective.push({ var: name, coef: rhs });
    for (const [j, coef] of entries) if (coef !== 0) columns[j]!.terms.push({ var: name, coef });
  };
  const rowEntries: [number, number][][] = problem.constraints.map(() => []);
  for (let j = 0; j < model.cols; j++) {
    for (let k = model.a.start[j]!; k < model.a.start[j + 1]!; k++) rowEntries[model.a.index[k]!]!.push([j, model.a.value[k]!]);
  }
  for (let i = 0; i < model.rows; i++) {
    const entries = rowEntries[i]!;
    if (Number.isFinite(model.rowLower[i]!)) multiplier(FARKAS_ROW_LOWER(i), model.rowLower[i]!, entries);
    if (Number.isFinite(model.rowUpper[i]!))
      multiplier(
        FARKAS_ROW_UPPER(i),
        -model.rowUpper[i]!,
        entries.map(([j, a]) => [j, -a]),
      );
  }
  for (let j = 0; j < model.cols; j++) {
    if (Number.isFinite(model.colLower[j]!)) multiplier(`column${j}_lower`, model.colLower[j]!, [[j, 1]]);
    if (Number.isFinite(model.colUpper[j]!)) multiplier(`column${j}_upper`, -model.colUpper[j]!, [[j, -1]]);
  }
  // A problem of free columns and no rows has no multiplier at all; one idle column keeps the LP valid.
  if (variables.length === 0) variables.push({ name: "none", lb: 0, ub: 0, type: "continuous" });
  return { name: `${problem.name}_farkas`, sense: "maximize", variables, objective: { constant: 0, terms: objective }, constraints: columns };
}

/**
 * Do the Farkas LP's values prove `problem` infeasible? Only the row multipliers are read; the best
 * bound multipliers follow from them, and jaos's checker tests the resulting interval argument on the
 * unscaled problem (integer bounds rounded inward, which is valid for the integer problem).
 */
export function provesInfeasible(problem: Problem, values: Record<string, number>): boolean {
  const { model } = modelFromProblem(feasibilityProblem(problem));
  const y = new Float64Array(model.rows);
  for (let i = 0; i < model.rows; i++) y[i] = (values[FARKAS_ROW_LOWER(i)] ?? 0) - (values[FARKAS_ROW_UPPER(i)] ?? 0);
  return checkFarkas(model, y) !== null;
}

/**
 * Largest dual infeasibility taken as zero, relative to the terms it is computed from: the solvers'
 * own dual feasibility tolerance. A reduced cost that small cannot stand for an improving direction.
 */
const DUAL_TOLERANCE = 1e-7;

/**
 * Does the solver's own dual prove its LP optimum? For any row multipliers y, cᵀx = dᵀx + yᵀAx with
 * d = c − Aᵀy, so the least value of dᵀx over the column bounds plus the least of yᵀr over the row
 * bounds is a lower bound (weak duality; −∞ when a needed bound is infinite). The claim is proved when
 * that bound meets the objective to 1e-7 relative. `rowDuals` are by constraint name, in the
 * minimisation sense (the sense CLI solvers are given the problem in).
 */
export function provesOptimal(problem: Problem, objective: number, rowDuals: Record<string, number>): boolean {
  const { model, sign } = modelFromProblem(problem);
  const y = problem.constraints.map((c) => rowDuals[c.name] ?? 0);
  const largest = y.reduce((m, v) => Math.max(m, Math.abs(v)), 1);
  let bound = model.offset;
  let magnitude = Math.abs(model.offset);
  /** Adds coef·(the side of [lower, upper] that minimises it); false when that side is infinite. */
  const add = (coef: number, lower: number, upper: number, negligible: number): boolean => {
    if (Math.abs(coef) <= negligible) return true;
    const side = coef > 0 ? lower : upper;
    if (!Number.isFinite(side)) return false;
    bound += coef * side;
    magnitude += Math.abs(coef * side);
    return true;
  };
  for (let j = 0; j < model.cols; j++) {
    let d = model.cost[j]!;
    let size = Math.abs(d);
    for (let k = model.a.start[j]!; k < model.a.start[j + 1]!; k++) {
      const t = y[model.a.index[k]!]! * model.a.value[k]!;
      d -= t;
      size += Math.abs(t);
    }
    if (!add(d, model.colLower[j]!, model.colUpper[j]!, DUAL_TOLERANCE * Math.max(1, size))) return false;
  }
  for (let i = 0; i < model.rows; i++) if (!add(y[i]!, model.rowLower[i]!, model.rowUpper[i]!, DUAL_TOLERANCE * largest)) return false;
  return sign * objective - bound <= 1e-7 * Math.max(1, Math.abs(objective), magnitude);
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

export type AuxiliaryPurpose = "farkas" | "feasibility" | "recession";

/** What an adapter's auxiliary solve answers: what the solver said and, when optimal, the column values. */
export interface AuxiliaryAnswer {
  /**
   * `infeasible`: the LP, or a MILP's LP stage, was declared infeasible (believed with a Farkas
   * certificate only); `integer_infeasible`: a finished integer search found no point.
   */
  status: "optimal" | "infeasible" | "integer_infeasible" | "other";
  values: Record<string, number> | null;
  /** The solver's own words, for the error message when nothing could be settled. */
  words: string;
}

export type SolveAuxiliary = (aux: Problem, purpose: AuxiliaryPurpose) => Promise<AuxiliaryAnswer>;

/** What a solver claimed and the adapter does not take on its word. */
export type Claim = "infeasible" | "unbounded" | "infeasible_or_unbounded";

/**
 * A settled claim; `certificate` says what proved it: a checked Farkas certificate, a feasible point
 * with a checked improving ray, or (null) a finished integer search, which has no short certificate.
 */
export type Settled = { status: "infeasible" | "unbounded"; certificate: "farkas" | "ray" | null } | { status: "error"; message: string };

/**
 * Settles a solver's claim with the same solver: `solveAux` runs the Farkas LP (first, when the claim is
 * infeasibility), the feasibility problem and the recession LP, as needed. `said` is the solver's claim in
 * words, for the message when nothing could be proved.
 */
export async function settleClaim(problem: Problem, { claim, said, solveAux }: { claim: Claim; said: string; solveAux: SolveAuxiliary }): Promise<Settled> {
  let farkas: boolean | null = null;
  const farkasProves = async () => {
    if (farkas === null) {
      const answer = await solveAux(farkasProblem(problem), "farkas");
      farkas = answer.status === "optimal" && answer.values !== null && provesInfeasible(problem, answer.values);
    }
    return farkas;
  };
  if (claim === "infeasible" && (await farkasProves())) return { status: "infeasible", certificate: "farkas" };

  const boxed = boxedFeasibilityProblem(problem);
  const inBox = boxed && (await solveAux(boxed, "feasibility"));
  const foundInBox = inBox?.status === "optimal" && inBox.values !== null && pointViolation(problem, inBox.values).worst <= POINT_TOLERANCE;
  const feasibility = foundInBox ? inBox : await solveAux(feasibilityProblem(problem), "feasibility");
  if (feasibility.status === "integer_infeasible" && hasIntegers(problem)) return { status: "infeasible", certificate: null };
  if (feasibility.status === "infeasible" || feasibility.status === "integer_infeasible") {
    if (await farkasProves()) return { status: "infeasible", certificate: "farkas" };
    return { status: "error", message: `${said}; it found no point without the objective either, but no Farkas certificate confirms infeasibility` };
  }
  if (feasibility.status !== "optimal" || !feasibility.values) {
    return { status: "error", message: `${said}; checking feasibility without the objective did not settle it: ${feasibility.words}` };
  }
  const off = pointViolation(problem, feasibility.values);
  if (off.worst > POINT_TOLERANCE) {
    return {
      status: "error",
      message: `${said}; the point found without the objective violates ${off.where} by ${off.worst.toExponential(2)} (relative), so nothing is proved`,
    };
  }
  const recession = await solveAux(recessionProblem(problem), "recession");
  if (recession.status === "optimal" && recession.values && isImprovingRay(checkRay(problem, recession.values)))
    return { status: "unbounded", certificate: "ray" };
  return {
    status: "error",
    message: `${said}; yet the problem has a feasible point and no improving direction was found, so the solver's answer is wrong and the optimum unknown`,
  };
}

/**
 * An optimum a solver claimed, at a point already checked feasible: for an LP, proved by the solver's
 * duals; else the recession LP decides — an improving ray means the problem is unbounded (CBC 2.10.8
 * calls some unbounded LPs optimal, at a point near 1e20; HiGHS 1.15 some unbounded MILPs over free
 * integers), no ray means it is bounded and the claim stands. A MILP has no duals to give (null).
 */
export async function checkLpOptimum(
  problem: Problem,
  { objective, rowDuals, solveAux }: { objective: number; rowDuals: Record<string, number> | null; solveAux: SolveAuxiliary },
): Promise<"optimal" | "unbounded"> {
  if (rowDuals && provesOptimal(problem, objective, rowDuals)) return "optimal";
  const recession = await solveAux(recessionProblem(problem), "recession");
  return recession.status === "optimal" && recession.values && isImprovingRay(checkRay(problem, recession.values)) ? "unbounded" : "optimal";
}
