import type { Agreement, Row } from "./schemas.js";

/**
 * The agreement block (spec: Agreement block), once two or more rows end optimal or feasible.
 *
 * Objectives agree when every pair is within
 *     tol = max(gap_tolerance, 1e-6) · max(1, |z_min|, |z_max|)
 * Each solver stops once its relative gap is below gap_tolerance, so its objective may sit up to that
 * fraction of the scale away from the true optimum; two correct answers can differ by as much. The
 * 1e-6 floor covers solvers' feasibility tolerances when the gap asked for is 0. (SCIP's own test
 * harness uses max(1e-4, 1e-5·max(|pb|,1)) as a reference point: with the default gap of 1e-4 our
 * tolerance is the same order and never tighter than what the solvers were told to prove.)
 *
 * Solutions are identical when every variable's values are within 1e-6·max(1,|v|) of each other.
 */
export const SOLUTION_TOLERANCE = 1e-6;

export interface FinishedRow {
  row: Row;
  solution: Record<string, number> | null;
}

export function objectiveTolerance(gapTolerance: number, objectives: number[]): number {
  const scale = Math.max(1, ...objectives.map((z) => Math.abs(z)));
  return Math.max(gapTolerance, 1e-6) * scale;
}

export function solutionsIdentical(solutions: Record<string, number>[]): boolean {
  if (solutions.length < 2) return true;
  const [first, ...rest] = solutions;
  const names = new Set<string>(solutions.flatMap((s) => Object.keys(s)));
  for (const other of rest) {
    for (const name of names) {
      const a = first![name] ?? 0;
      const b = other[name] ?? 0;
      if (Math.abs(a - b) > SOLUTION_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b))) return false;
    }
  }
  return true;
}

export function computeAgreement(finished: FinishedRow[], gapTolerance: number): Agreement | null {
  const compared = finished.filter((f) => (f.row.solver_status === "optimal" || f.row.solver_status === "feasible") && f.row.objective_value !== null);
  if (compared.length < 2) return null;
  const objectives = compared.map((f) => f.row.objective_value!);
  const delta = Math.max(...objectives) - Math.min(...objectives);
  const tol = objectiveTolerance(gapTolerance, objectives);
  const objectivesAgree = delta <= tol;
  const solutions = compared.map((f) => f.solution).filter((s): s is Record<string, number> => s !== null);
  const identical = solutions.length === compared.length && solutionsIdentical(solutions);
  return {
    compared_solvers: compared.map((f) => f.row.solver_name),
    objectives_agree: objectivesAgree,
    solutions_identical: identical,
    max_objective_delta: delta,
    alternative_optima: objectivesAgree && !identical,
    objective_tolerance: tol,
  };
}
