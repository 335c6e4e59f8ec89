import { invalid } from "../errors.js";
import { hasIntegers, type Problem } from "../problem/schema.js";
import { checkSolution, objectiveOf } from "./checker.js";
import type { Basis, WarmStart } from "./types.js";

/**
 * MIP starts (settings.initial_solution, issue 29): checked before use, handed to the solvers that take
 * one, and reported as the result's `warm_start`. The start is judged by the service's own checker
 * (checker.ts), never by a solver's word: its objective is reported only when it satisfies the model.
 * A start that breaks the model is still handed to solvers that repair starts (HiGHS, SCIP); CBC's
 * mipstart fixes the given integers and solves for the rest, so it gets it too and says in its log.
 */

/** What an adapter did with the start, and what the solver said of it (null: it says nothing). */
export interface StartUse {
  /** The start reached the solver. */
  passed: boolean;
  /** The solver's own word on whether it took the start as an incumbent; null when it gives none. */
  solverAccepted: boolean | null;
  /** Why it was not passed, or what the solver said. */
  note?: string;
}

/** The start as checked against the model. */
export interface StartAssessment {
  /** The values of the problem's variables (names the problem has not are left out). */
  values: Record<string, number>;
  /** Names the start gives that are not variables of the problem. */
  unknown: string[];
  /** Every variable has a value. */
  complete: boolean;
  /** Complete and satisfying every bound, row and integrality requirement. */
  feasible: boolean;
  /** The objective at the start when it is feasible, else null. */
  objective: number | null;
  /** The first violation the checker found (a partial start: how many values are missing). */
  problem: string | null;
}

/** The names of a start that are not variables of the problem, in the start's order. */
export function unknownStartNames(problem: Problem, start: Record<string, number>): string[] {
  const known = new Set(problem.variables.map((v) => v.name));
  return Object.keys(start).filter((name) => !known.has(name));
}

/** The 422 for a start naming variables the problem has not (at most ten named in the message). */
export function assertStartNamesKnown(problem: Problem, start: Record<string, number> | undefined): void {
  if (!start) return;
  const unknown = unknownStartNames(problem, start);
  if (unknown.length === 0) return;
  const shown = unknown
    .slice(0, 10)
    .map((n) => `"${n}"`)
    .join(", ");
  const more = unknown.length > 10 ? ` and ${unknown.length - 10} more` : "";
  throw invalid(["body", "settings", "initial_solution"], `not variables of the problem: ${shown}${more}`);
}

/** The 422 for a basis naming variables or constraints the problem has not. */
export function assertBasisNamesKnown(problem: Problem, basis: Basis | undefined): void {
  if (!basis) return;
  const columns = new Set(problem.variables.map((v) => v.name));
  const rows = new Set(problem.constraints.map((c) => c.name));
  const unknown = [...Object.keys(basis.columns).filter((n) => !columns.has(n)), ...Object.keys(basis.rows).filter((n) => !rows.has(n))];
  if (unknown.length === 0) return;
  const shown = unknown
    .slice(0, 10)
    .map((n) => `"${n}"`)
    .join(", ");
  throw invalid(
    ["body", "settings", "initial_basis"],
    `not variables or constraints of the problem: ${shown}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ""}`,
  );
}

/** A starting basis's `warm_start`: used on LPs only; accepted when the solver took it as a valid basis. */
export function basisWarmStart(problem: Problem, solver: string, use: StartUse | undefined): WarmStart {
  const note = hasIntegers(problem)
    ? "ignored: a starting basis is used on LPs only"
    : !use
      ? `ignored: ${solver} takes no starting basis`
      : !use.passed
        ? (use.note ?? `ignored by ${solver}`)
        : use.note;
  const accepted = !hasIntegers(problem) && use?.passed === true && use.solverAccepted !== false;
  return { accepted, objective_of_start: null, ...(note ? { note } : {}) };
}

export function assessStart(problem: Problem, start: Record<string, number>): StartAssessment {
  const unknown = new Set(unknownStartNames(problem, start));
  const values = Object.fromEntries(Object.entries(start).filter(([name]) => !unknown.has(name)));
  const missing = problem.variables.length - Object.keys(values).length;
  const base = { values, unknown: [...unknown], complete: missing === 0 };
  if (missing > 0) return { ...base, feasible: false, objective: null, problem: `the start leaves ${missing} of ${problem.variables.length} variables out` };
  const violations = checkSolution(problem, values);
  if (violations.length > 0) return { ...base, feasible: false, objective: null, problem: violations[0]!.message };
  return { ...base, feasible: true, objective: objectiveOf(problem, values), problem: null };
}

/** The settings' start as an adapter gets it: only on a MILP, and only the problem's names. */
export function startForSolver(problem: Problem, assessment: StartAssessment | null): Record<string, number> | undefined {
  return assessment && hasIntegers(problem) && Object.keys(assessment.values).length > 0 ? assessment.values : undefined;
}

/**
 * The result's `warm_start`: `accepted` is the solver's word when it gives one, else "feasible and
 * passed"; `objective_of_start` only for a start that satisfies the model.
 */
export function warmStartOf(problem: Problem, { solver, assessment, use }: { solver: string; assessment: StartAssessment; use?: StartUse }): WarmStart {
  const notes: string[] = [];
  if (assessment.unknown.length > 0) notes.push(`ignored ${assessment.unknown.length} names that are not variables of the problem`);
  if (!hasIntegers(problem)) notes.push("ignored: a MIP start is used on problems with integer variables only");
  else if (!use) notes.push(`ignored: ${solver} takes no MIP start`);
  else if (!use.passed) notes.push(use.note ?? `ignored by ${solver}`);
  else if (use.note) notes.push(use.note);
  if (!assessment.feasible && assessment.problem) {
    notes.push(assessment.complete ? `the start is infeasible: ${assessment.problem}` : assessment.problem);
  }
  const passed = hasIntegers(problem) && use?.passed === true;
  const accepted = passed && (use!.solverAccepted ?? assessment.feasible);
  return { accepted, objective_of_start: assessment.objective, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
}
