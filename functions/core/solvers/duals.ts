/**
 * The one sign convention for LP duals and reduced costs (docs/decisions.md, "Duals and reduced costs").
 *
 * For the problem as stated, minimise or maximise, with rows lb ≤ Ax ≤ ub and bounds l ≤ x ≤ u:
 *
 *     c = Aᵀy + d
 *
 * y_i is the change of the optimal objective per unit increase of row i's active side, d_j the same for
 * column j's active bound (sensitivities of the objective as stated). So for minimise, the signs a
 * minimiser's Lagrangian gives: y_i ≥ 0 when the lower side is active, ≤ 0 when the upper side is;
 * d_j ≥ 0 at the lower bound, ≤ 0 at the upper bound; 0 for an inactive row or a basic column. For
 * maximise the identity is the same and every one of those signs flips. (This is HiGHS's own
 * convention; solvers that minimise a negated objective report −y, −d for a maximise problem.)
 *
 * Adapters normalise whatever the solver reports to this with `normaliseDuals`.
 */
import type { Problem } from "../problem/schema.js";
import { checkDuals } from "./checker.js";
import type { SolverStatus } from "./types.js";

export interface LpDuals {
  duals: Record<string, number>;
  reduced_costs: Record<string, number>;
}

/** Whether duals mean anything for the problem: continuous variables and a linear objective only. */
export function isLinearProgram(problem: Problem): boolean {
  return problem.variables.every((v) => v.type === "continuous") && (problem.objective.quadratic ?? []).length === 0;
}

/** c − Aᵀy for every variable, with compensated summation. */
export function reducedCostsOf(problem: Problem, duals: Record<string, number>): Record<string, number> {
  const sums = new Map<string, { s: number; c: number }>();
  const add = (name: string, v: number) => {
    const acc = sums.get(name) ?? { s: 0, c: 0 };
    const t = acc.s + v;
    acc.c += Math.abs(acc.s) >= Math.abs(v) ? acc.s - t + v : v - t + acc.s;
    acc.s = t;
    sums.set(name, acc);
  };
  for (const t of problem.objective.terms) add(t.var, t.coef);
  for (const row of problem.constraints) {
    const y = duals[row.name] ?? 0;
    if (y !== 0) for (const t of row.terms) add(t.var, -t.coef * y);
  }
  const out: Record<string, number> = {};
  for (const v of problem.variables) {
    const acc = sums.get(v.name);
    out[v.name] = acc ? acc.s + acc.c : 0;
  }
  return out;
}

/**
 * What a solver reported, in this module's convention: `reportedFor` "problem" when the solver was
 * given the problem's own sense and reports in this convention already (HiGHS), "minimisation" when it
 * was given min −c for a maximise problem (the CLI adapters' files), whose duals are negated here. `rowDuals` must name every constraint that has terms and a
 * finite side; a row it leaves out (an empty or free row the adapter did not pass on) has dual 0, which
 * is exact for such a row. Without `reducedCosts` they are c − Aᵀy (then the identity holds by
 * construction and the checker still judges their signs). Null when a row the solver saw has no value.
 */
export function normaliseDuals(
  problem: Problem,
  {
    reportedFor,
    rowDuals,
    reducedCosts = null,
  }: { reportedFor: "problem" | "minimisation"; rowDuals: Record<string, number>; reducedCosts?: Record<string, number> | null },
): LpDuals | null {
  const flip = reportedFor === "minimisation" && problem.sense === "maximize" ? -1 : 1;
  const duals: Record<string, number> = {};
  for (const row of problem.constraints) {
    const given = rowDuals[row.name];
    const passedOver = row.terms.length === 0 || (row.lb === null && row.ub === null);
    if (given === undefined && !passedOver) return null;
    if (given !== undefined && !Number.isFinite(given)) return null;
    duals[row.name] = given === undefined ? 0 : flip * given + 0;
  }
  if (!reducedCosts) return { duals, reduced_costs: reducedCostsOf(problem, duals) };
  const reduced: Record<string, number> = {};
  for (const v of problem.variables) {
    const given = reducedCosts[v.name];
    if (given === undefined || !Number.isFinite(given)) return null;
    reduced[v.name] = flip * given + 0;
  }
  return { duals, reduced_costs: reduced };
}

export interface DualFields {
  duals: Record<string, number> | null;
  reduced_costs: Record<string, number> | null;
  duals_verified: boolean | null;
}

/**
 * The result fields for a solve's duals: present only for an LP solved to optimality with a point,
 * and always with the checker's verdict (a failing set is kept, marked false, for inspection).
 */
export function dualFields(problem: Problem, result: { solver_status: SolverStatus; solution: Record<string, number> | null }, lp: LpDuals | null): DualFields {
  if (!lp || result.solver_status !== "optimal" || !result.solution || !isLinearProgram(problem)) {
    return { duals: null, reduced_costs: null, duals_verified: null };
  }
  const verified = checkDuals(problem, { solution: result.solution, duals: lp.duals, reducedCosts: lp.reduced_costs }).length === 0;
  return { ...lp, duals_verified: verified };
}

/**
 * Duals for a solver that treats one-variable rows as bounds (SCIP: such a row's own "dual" is the
 * variable's whole reduced cost). From the duals of the other rows (in this convention), each
 * variable's multiplier g_j = c_j − Σ a_ij y_i over those rows belongs to whichever of its bounds and
 * one-variable rows is active on the side g_j's sign names: a row gets y_i = g_j / a_ij, a bound
 * d_j = g_j. With none active, g_j stays in d_j and the checker judges it. Null when a multi-variable
 * row the solver saw has no value.
 */
export function dualsWithSingletonRows(problem: Problem, solution: Record<string, number>, otherRowDuals: Record<string, number>): LpDuals | null {
  const singletons = problem.constraints.filter((row) => row.terms.length === 1 && (row.lb !== null || row.ub !== null));
  const singletonNames = new Set(singletons.map((row) => row.name));
  const rowDuals: Record<string, number> = {};
  for (const row of problem.constraints) {
    if (singletonNames.has(row.name)) rowDuals[row.name] = 0;
    else if (otherRowDuals[row.name] !== undefined) rowDuals[row.name] = otherRowDuals[row.name]!;
  }
  const base = normaliseDuals(problem, { reportedFor: "problem", rowDuals });
  if (!base) return null;
  const flip = problem.sense === "maximize" ? -1 : 1;
  const rowsOf = new Map<string, typeof singletons>();
  for (const row of singletons) {
    const name = row.terms[0]!.var;
    rowsOf.set(name, [...(rowsOf.get(name) ?? []), row]);
  }
  const active = (value: number, side: number | null) => side !== null && Math.abs(value - side) <= 1e-7 * Math.max(1, Math.abs(side));
  for (const v of problem.variables) {
    const rows = rowsOf.get(v.name);
    const g = base.reduced_costs[v.name]!;
    if (!rows || g === 0) continue;
    const x = solution[v.name] ?? Number.NaN;
    const wantsLower = flip * g > 0;
    if (active(x, wantsLower ? v.lb : v.ub)) continue;
    for (const row of rows) {
      const a = row.terms.reduce((sum, t) => sum + t.coef, 0);
      if (a === 0) continue;
      // a·x ≥ lb bounds x from below when a > 0, from above when a < 0.
      const side = wantsLower === a > 0 ? row.lb : row.ub;
      if (active(a * x, side)) {
        base.duals[row.name] = g / a + 0;
        base.reduced_costs[v.name] = 0;
        break;
      }
    }
  }
  return base;
}
