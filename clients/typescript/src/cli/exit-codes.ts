import type { ComparisonDetail, ExecutionView, SolverStatus } from "../types.js";

/**
 * The exit code says the verdict, so a script can branch on it without parsing output. Documented in
 * the README (Command line) and by `incumbent --help`.
 */
export const EXIT = {
  optimal: 0,
  /** the solver's error verdict, a failed or cancelled run, a refused request, an unreachable service */
  error: 1,
  /** bad arguments, or no URL or API key */
  usage: 2,
  infeasible: 3,
  unbounded: 4,
  /** stopped by the time limit, with or without a solution */
  time_limit: 5,
  /** a solution not proven optimal (stopped by the gap tolerance or another limit) */
  feasible: 6,
  /** a comparison whose solvers reached different verdicts or objectives */
  disagreement: 7,
  /** `status` of an execution or comparison still queued or running */
  running: 8,
} as const;

export const EXIT_CODE_HELP = `Exit codes: 0 optimal, 1 error, 2 usage, 3 infeasible, 4 unbounded, 5 time limit,
6 feasible (not proven optimal), 7 solvers disagree (compare), 8 still running (status).`;

export function verdictExit(status: SolverStatus): number {
  return EXIT[status];
}

export function executionExit(view: ExecutionView): number {
  if (view.status === "queued" || view.status === "running") return EXIT.running;
  if (view.status !== "completed" || !view.result) return EXIT.error;
  return verdictExit(view.result.status);
}

/**
 * A comparison's verdict: the one its solvers share. A failed comparison or a row in error is an error;
 * rows that reached different verdicts, or objectives that do not agree, are a disagreement. Rows of
 * solvers that cannot express the model (unsupported) do not vote.
 */
export function comparisonExit(detail: ComparisonDetail): number {
  if (detail.status === "pending" || detail.status === "running") return EXIT.running;
  if (detail.status !== "completed") return EXIT.error;
  const voting = detail.results.filter((r) => r.solver_status !== "unsupported");
  if (voting.length === 0 || voting.some((r) => r.solver_status === null || r.solver_status === "error")) return EXIT.error;
  const verdicts = new Set(voting.map((r) => r.solver_status));
  if (verdicts.size > 1 || detail.agreement?.objectives_agree === false) return EXIT.disagreement;
  const [verdict] = verdicts;
  return verdict && verdict in EXIT ? EXIT[verdict as keyof typeof EXIT] : EXIT.error;
}
