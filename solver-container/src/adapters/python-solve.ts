import { hasOpenIntegerColumn, type Problem } from "../../../functions/core/problem/schema.js";
import { checkLpOptimum, pointViolation, POINT_TOLERANCE, type SolveAuxiliary } from "./certificates.js";
import { explanationSearchSeconds, infeasibilityOf, type Member } from "../../../functions/core/solvers/iis/index.js";
import { type Basis, BASIS_STATUSES, type BasisStatus, type Infeasibility, type Ranging, type SolveSettings } from "../../../functions/core/solvers/types.js";
import type { StartUse } from "../../../functions/core/solvers/warm-start.js";
import { namedSolution, toMatrixForm } from "./matrix-form.js";
import { dualFields, dualsWithSingletonRows, type LpDuals, normaliseDuals } from "../../../functions/core/solvers/duals.js";
import type { PythonResult, PythonRuntime, PythonSolverName } from "./python-host.js";
import { blankResult, finish, memoryLimitMessage, stoppedResult } from "./result.js";
import type { AdapterResult, SolveContext } from "./types.js";

const SOLVER_TITLES: Record<PythonSolverName, string> = { scip: "SCIP", highs: "HiGHS" };

/**
 * One solve through the Python runner, from the canonical problem's arrays. The runner decides the
 * verdict (it can re-solve to settle "infeasible or unbounded"); this side maps the solution back to
 * the original names, measures the wall time and applies the kill switch's answer when it fired.
 */
export async function solveInPython(
  runtime: PythonRuntime,
  {
    solver,
    version,
    problem,
    settings,
    context,
  }: { solver: PythonSolverName; version: string | null; problem: Problem; settings: SolveSettings; context: SolveContext },
): Promise<AdapterResult> {
  const started = performance.now();
  const { colNames, ...model } = toMatrixForm(problem);
  const explainSeconds = settings.explainInfeasibility ? explanationSearchSeconds(settings.timeLimitSeconds) : 0;
  const outcome = await runtime.run(
    {
      solver,
      model,
      settings: {
        time_limit: settings.timeLimitSeconds,
        gap: settings.gapTolerance,
        threads: settings.threads,
        memory_mb: context.memoryMb ?? 0,
        solution_pool_size: settings.solutionPoolSize ?? 1,
        ranging: settings.ranging ?? false,
        stream: context.progress !== undefined,
        ...(explainSeconds > 0 ? { explain_infeasibility: true, explain_seconds: explainSeconds } : {}),
        ...(settings.integralityTolerance !== undefined ? { integrality_tolerance: settings.integralityTolerance } : {}),
        ...(settings.feasibilityTolerance !== undefined ? { feasibility_tolerance: settings.feasibilityTolerance } : {}),
        ...(settings.initialSolution ? { initial_solution: startByColumn(colNames, settings.initialSolution) } : {}),
        ...(settings.initialBasis && solver === "highs" ? { initial_basis: basisByIndex(problem, settings.initialBasis) } : {}),
      },
    },
    {
      workDir: context.workDir,
      deadlineMs: (settings.timeLimitSeconds + explainSeconds + context.killGraceSeconds) * 1000,
      signal: context.signal,
      onProgress: context.progress && ((p) => context.progress!.point(p)),
      onLog: context.progress && ((line) => context.progress!.line(line)),
    },
  );

  if (outcome.result) {
    const r = outcome.result;
    const result: AdapterResult = {
      ...blankResult(r.solver_status, r.solver_version ?? version, r.error_message),
      objective_value: r.objective_value,
      dual_bound: r.dual_bound,
      nodes: r.nodes,
      iterations: r.iterations,
      solver_time_seconds: r.solver_time_seconds,
      solution: r.solution ? namedSolution({ colNames }, r.solution) : null,
      settings_applied: r.settings_applied,
      ...(r.start ? { start_use: startUseOf(r.start) } : {}),
      ...(r.basis_start ? { basis_use: startUseOf(r.basis_start) } : {}),
      ...(r.basis ? { basis: namedBasis(problem, r.basis) } : {}),
      ...(r.solution_pool
        ? { solution_pool: r.solution_pool.map((p) => ({ objective_value: p.objective_value, solution: namedSolution({ colNames }, p.solution) })) }
        : {}),
    };
    if (solver === "highs" && (await unboundedAfterAll(runtime, { problem, result, settings, context }))) {
      Object.assign(result, { solver_status: "unbounded", objective_value: null, dual_bound: null, solution: null });
    }
    Object.assign(result, dualFields(problem, result, reportedDuals(problem, colNames, r)));
    if (settings.ranging) result.ranging = solver === "highs" ? namedRanging(problem, { colNames, answer: r, result }) : "unsupported";
    if (r.iis && result.solver_status === "infeasible") result.infeasibility = solverIis(problem, r.iis);
    return finish(result, started);
  }
  if (outcome.stopped) {
    return finish(
      stoppedResult(outcome.stopped, { progress: outcome.progress, version, limitSeconds: settings.timeLimitSeconds, solverName: SOLVER_TITLES[solver] }),
      started,
    );
  }
  // A solve child SIGKILLed by no one here: the kernel's out-of-memory killer (the runner turns a failed
  // allocation under the ceiling into its own memory-limit result).
  const oom = outcome.failure !== null && /killed by signal 9\b/.test(outcome.failure);
  return finish(blankResult("error", version, oom ? memoryLimitMessage(SOLVER_TITLES[solver], context.memoryMb) : outcome.failure), started);
}

const startUseOf = (s: NonNullable<PythonResult["start"]>): StartUse => ({ passed: s.passed, solverAccepted: s.accepted, ...(s.note ? { note: s.note } : {}) });

/**
 * A basis by name as HiGHS numbers it, every column and row given: a name left out starts nonbasic at
 * a finite bound (at zero when free), a row left out basic.
 */
function basisByIndex(problem: Problem, basis: Basis): { col: number[]; row: number[] } {
  const code = (s: BasisStatus) => BASIS_STATUSES.indexOf(s);
  const col = problem.variables.map((v) => {
    const given = basis.columns[v.name];
    if (given) return code(given);
    return code(v.lb !== null ? "lower" : v.ub !== null ? "upper" : "zero");
  });
  const row = problem.constraints.map((c) => code(basis.rows[c.name] ?? "basic"));
  return { col, row };
}

function namedBasis(problem: Problem, basis: { col: number[]; row: number[] }): Basis | undefined {
  if (basis.col.length !== problem.variables.length || basis.row.length !== problem.constraints.length) return undefined;
  const status = (k: number) => BASIS_STATUSES[k] ?? "nonbasic";
  return {
    columns: Object.fromEntries(problem.variables.map((v, j) => [v.name, status(basis.col[j]!)])),
    rows: Object.fromEntries(problem.constraints.map((c, i) => [c.name, status(basis.row[i]!)])),
  };
}

/** A MIP start by column index, as the runners take it (solve_common.start_columns). */
function startByColumn(colNames: string[], start: Record<string, number>): { index: number[]; value: number[] } {
  const index: number[] = [];
  const value: number[] = [];
  colNames.forEach((name, j) => {
    const v = start[name];
    if (v !== undefined) {
      index.push(j);
      value.push(v);
    }
  });
  return { index, value };
}

/** The solver's IIS by name; `verified` is the checker's to set (explain.ts). */
function solverIis(problem: Problem, iis: NonNullable<PythonResult["iis"]>): Infeasibility {
  const members: Member[] = iis.rows.map((row) => ({ kind: "constraint", row }));
  for (const [column, side] of iis.bounds) {
    for (const s of side === "both" ? (["lower", "upper"] as const) : [side]) members.push({ kind: "bound", column, side: s });
  }
  return infeasibilityOf(problem, members, { method: "solver_iis", irreducible: iis.irreducible, verified: null });
}

/** HiGHS's ranging by name, for an LP it solved to optimality (null otherwise). */
function namedRanging(problem: Problem, { colNames, answer, result }: { colNames: string[]; answer: PythonResult; result: AdapterResult }): Ranging | null {
  const g = answer.ranging;
  if (!g || result.solver_status !== "optimal") return null;
  const range = (down: (number | null)[], up: (number | null)[], k: number) => ({ down: down[k] ?? null, up: up[k] ?? null });
  return {
    costs: Object.fromEntries(colNames.map((name, j) => [name, range(g.cost_down, g.cost_up, j)])),
    rhs: Object.fromEntries(problem.constraints.map((c, i) => [c.name, range(g.rhs_down, g.rhs_up, i)])),
  };
}

/** Both Python solvers report duals in the problem's own sense (solve_highs.py, solve_scip.py). */
function reportedDuals(problem: Problem, colNames: string[], r: PythonResult): LpDuals | null {
  if (!r.row_duals || (r.col_duals && r.col_duals.length !== colNames.length)) return null;
  const rows: Record<string, number> = {};
  for (const [index, value] of Object.entries(r.row_duals)) {
    const row = problem.constraints[Number(index)];
    if (row) rows[row.name] = value;
  }
  if (r.col_duals) return normaliseDuals(problem, { reportedFor: "problem", rowDuals: rows, reducedCosts: namedSolution({ colNames }, r.col_duals) });
  // SCIP: no reduced costs, and no duals for one-variable rows (its bounds).
  return r.solution ? dualsWithSingletonRows(problem, namedSolution({ colNames }, r.solution), rows) : null;
}

/**
 * HiGHS 1.15 calls some unbounded MILPs over free integer columns optimal (two runs, two different
 * "optima"). Such an optimum, at a point that satisfies the problem, is checked with the recession LP
 * (certificates.ts): an improving ray makes the MILP unbounded.
 */
async function unboundedAfterAll(
  runtime: PythonRuntime,
  { problem, result, settings, context }: { problem: Problem; result: AdapterResult; settings: SolveSettings; context: SolveContext },
): Promise<boolean> {
  if (result.solver_status !== "optimal" || !result.solution || !hasOpenIntegerColumn(problem)) return false;
  if (pointViolation(problem, result.solution).worst > POINT_TOLERANCE) return false;
  const auxiliary: SolveAuxiliary = async (aux) => {
    const { colNames, ...model } = toMatrixForm(aux);
    const outcome = await runtime.run(
      {
        solver: "highs",
        model,
        settings: { time_limit: settings.timeLimitSeconds, gap: settings.gapTolerance, threads: settings.threads, memory_mb: context.memoryMb ?? 0 },
      },
      { workDir: context.workDir, deadlineMs: (settings.timeLimitSeconds + context.killGraceSeconds) * 1000, signal: context.signal },
    );
    const r = outcome.result;
    if (r?.solver_status === "optimal" && r.solution) return { status: "optimal", values: namedSolution({ colNames }, r.solution), words: "" };
    return { status: "other", values: null, words: r?.error_message ?? outcome.failure ?? "" };
  };
  return (await checkLpOptimum(problem, { objective: result.objective_value ?? 0, rowDuals: null, solveAux: auxiliary })) === "unbounded";
}
