import { explanationRefuted, refutationMessage } from "../solvers/verification.js";
import type { Verification } from "../solvers/verification-schema.js";
import type { Agreement, Conflict, Row } from "./schemas.js";

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
 *
 * Verdicts agree when no two rows' claims contradict each other (`conflicts`, docs/decisions.md
 * "Comparisons that see conflicts"): an `infeasible` or `unbounded` claim next to a row with a point
 * the verification gate verified (or, for unbounded, a proved optimum); two `optimal` claims at
 * objectives apart by more than the tolerance; a row's proved bound beaten by another row's verified
 * point. A row whose own point broke the model claims nothing (its verdict is `error` already); a row
 * refuted by another's point still counts with what it claimed.
 */
export const SOLUTION_TOLERANCE = 1e-6;

export interface FinishedRow {
  row: Row;
  solution: Record<string, number> | null;
}

export type Sense = "minimize" | "maximize";

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

/** What a row claims: its verdict, or, when another row's point refuted it, what its solver said. */
function claimOf(row: Row): Row["solver_status"] {
  return row.verification?.refuted_by ? row.verification.claimed_status : row.solver_status;
}

/** A row's point that the gate verified (optimal, feasible, or a time limit's incumbent), with its objective. */
function verifiedPoint(f: FinishedRow): number | null {
  const v = f.row.verification;
  const status = f.row.solver_status;
  if (v?.status !== "verified" || f.solution === null || f.row.objective_value === null) return null;
  return status === "optimal" || status === "feasible" || status === "time_limit" ? f.row.objective_value : null;
}

/** The best objective a row proved possible: its dual bound (an optimum's own objective when it has none). */
function provedBound(row: Row): number | null {
  const status = row.solver_status;
  if (status !== "optimal" && status !== "feasible" && status !== "time_limit") return null;
  return row.dual_bound ?? (status === "optimal" ? row.objective_value : null);
}

/** Every contradiction between the rows' claims (see the file comment). */
export function verdictConflicts(finished: FinishedRow[], gapTolerance: number, sense: Sense): Conflict[] {
  const sign = sense === "maximize" ? -1 : 1;
  const points = finished.map((f) => ({ name: f.row.solver_name, z: verifiedPoint(f) })).filter((p): p is { name: string; z: number } => p.z !== null);
  const conflicts: Conflict[] = [];
  const optimal = finished.filter((f) => claimOf(f.row) === "optimal" && f.row.objective_value !== null);
  for (const f of finished) {
    const claim = claimOf(f.row);
    const name = f.row.solver_name;
    if (claim === "infeasible") {
      const against = points.filter((p) => p.name !== name);
      const unbounded = finished.filter((g) => g !== f && claimOf(g.row) === "unbounded").map((g) => g.row.solver_name);
      if (against.length > 0)
        conflicts.push({
          kind: "infeasible_refuted",
          solvers: [name, ...against.map((p) => p.name)],
          message: `${name} said infeasible, yet ${against.map((p) => `${p.name} has a verified point (objective ${p.z})`).join(", ")}`,
        });
      if (unbounded.length > 0)
        conflicts.push({
          kind: "infeasible_vs_unbounded",
          solvers: [name, ...unbounded],
          message: `${name} said infeasible, ${unbounded.join(", ")} unbounded`,
        });
    }
    if (claim === "unbounded") {
      const bounded = optimal.filter((g) => g !== f && verifiedPoint(g) !== null).map((g) => g.row.solver_name);
      if (bounded.length > 0)
        conflicts.push({
          kind: "unbounded_vs_optimal",
          solvers: [name, ...bounded],
          message: `${name} said unbounded, ${bounded.join(", ")} proved an optimum`,
        });
    }
    const bound = provedBound(f.row);
    if (bound !== null) {
      const tol = objectiveTolerance(gapTolerance, [bound]);
      const beating = points.filter((p) => p.name !== name && sign * (bound - p.z) > tol);
      if (beating.length > 0)
        conflicts.push({
          kind: "bound_beaten",
          solvers: [name, ...beating.map((p) => p.name)],
          message: `${name} proved no objective better than ${bound} possible, yet ${beating.map((p) => `${p.name} has a verified point at ${p.z}`).join(", ")}`,
        });
    }
  }
  if (optimal.length >= 2) {
    const objectives = optimal.map((f) => f.row.objective_value!);
    const delta = Math.max(...objectives) - Math.min(...objectives);
    if (delta > objectiveTolerance(gapTolerance, objectives))
      conflicts.push({
        kind: "optimal_objectives_differ",
        solvers: optimal.map((f) => f.row.solver_name),
        message: `optimal at different objectives: ${optimal.map((f) => `${f.row.solver_name} ${f.row.objective_value}`).join(", ")}`,
      });
  }
  return conflicts;
}

export function computeAgreement(finished: FinishedRow[], gapTolerance: number, sense: Sense = "minimize"): Agreement | null {
  const compared = finished.filter((f) => (f.row.solver_status === "optimal" || f.row.solver_status === "feasible") && f.row.objective_value !== null);
  if (compared.length < 2) return null;
  const objectives = compared.map((f) => f.row.objective_value!);
  const delta = Math.max(...objectives) - Math.min(...objectives);
  const tol = objectiveTolerance(gapTolerance, objectives);
  const objectivesAgree = delta <= tol;
  const solutions = compared.map((f) => f.solution).filter((s): s is Record<string, number> => s !== null);
  const identical = solutions.length === compared.length && solutionsIdentical(solutions);
  const conflicts = verdictConflicts(finished, gapTolerance, sense);
  return {
    compared_solvers: compared.map((f) => f.row.solver_name),
    objectives_agree: objectivesAgree,
    solutions_identical: identical,
    max_objective_delta: delta,
    alternative_optima: objectivesAgree && !identical,
    objective_tolerance: tol,
    verdicts_agree: conflicts.length === 0,
    disagreeing_solvers: [...new Set(conflicts.flatMap((c) => c.solvers))],
    conflicts,
  };
}

/**
 * Rows whose `infeasible` verdict another row's verified point refutes, rewritten to say so (verdict
 * `error`, `verification.refuted_by` naming that row and its execution): the rows to write back. A row
 * refuted already is left as it is.
 */
export function refutedRows(finished: FinishedRow[]): FinishedRow[] {
  const witness = finished.find((f) => verifiedPoint(f) !== null);
  if (!witness) return [];
  const out: FinishedRow[] = [];
  for (const f of finished) {
    if (f === witness || f.row.solver_status !== "infeasible") continue;
    const verification: Verification = f.row.verification ?? {
      status: "not_checked",
      max_violation: null,
      where: null,
      message: null,
      claimed_status: "infeasible",
      solver_objective: null,
      retried_with: null,
      cross_check: null,
      refuted_by: null,
    };
    const by = { solver_name: witness.row.solver_name, objective_value: witness.row.objective_value, solution: null, execution_id: witness.row.execution_id };
    const message = refutationMessage("infeasible", by);
    out.push({
      row: {
        ...f.row,
        solver_status: "error",
        error_message: message,
        ...explanationRefuted(f.row.infeasibility),
        verification: { ...verification, status: "violated", where: null, max_violation: null, message, refuted_by: by },
      },
      solution: f.solution,
    });
  }
  return out;
}
