import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import loadHighs, { type Highs, type HighsCallbackMap, type Model, type ModelData, type VariableType } from "highs";
import { hasOpenIntegerColumn, type Problem } from "../../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { dualFields, normaliseDuals } from "../../../functions/core/solvers/duals.js";
import { namedSolution, toMatrixForm, type MatrixForm } from "./matrix-form.js";
import { checkLpOptimum, pointViolation, POINT_TOLERANCE, settleClaim, type AuxiliaryAnswer } from "./certificates.js";
import { blankResult } from "./result.js";
import type { AdapterResult, Progress, TypeScriptEngine } from "./types.js";

/**
 * HiGHS compiled to WebAssembly (npm `highs`), for machines without Python. It runs inside the Node
 * child (node-child.ts), as any TypeScript engine does. The build is single-threaded and rejects thread
 * options, so `threads` reads back as 1 whatever was asked.
 */

let runtime: Promise<Highs> | null = null;
const highs = (): Promise<Highs> => (runtime ??= loadHighs());

/** The npm package's version (its `exports` hide package.json, so read it beside the entry point). */
function packageVersion(): string {
  const entry = createRequire(import.meta.url).resolve("highs");
  const manifest = path.join(path.dirname(entry), "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** The model HiGHS reads; without `objective`, a feasibility model (zero costs). */
function modelData(h: Highs, form: MatrixForm, { objective }: { objective: boolean }): ModelData {
  const inf = h.infinity;
  const data: ModelData = {
    numCols: form.numCols,
    numRows: form.numRows,
    sense: form.sense === "maximize" ? h.constants.objectiveSense.maximize : h.constants.objectiveSense.minimize,
    offset: objective ? form.offset : 0,
    colCost: objective ? form.colCost : new Array<number>(form.numCols).fill(0),
    colLower: form.colLower.map((v) => v ?? -inf),
    colUpper: form.colUpper.map((v) => v ?? inf),
    rowLower: form.rowLower.map((v) => v ?? -inf),
    rowUpper: form.rowUpper.map((v) => v ?? inf),
    matrix: { format: "csr", numRows: form.numRows, numCols: form.numCols, starts: form.rowStarts, indices: form.rowIndices, values: form.rowValues },
    integrality: form.integrality.some((t) => t === 1) ? (form.integrality as VariableType[]) : undefined,
  };
  if (!objective || form.qValues.length === 0) return data;
  // ½x'Qx with Q's lower triangle by columns: coef·xi·xj (i<j) is Q[j,i] = coef; coef·xi² is Q[i,i] = 2·coef.
  const columns: [number, number][][] = Array.from({ length: form.numCols }, () => []);
  form.qRow.forEach((i, k) => {
    const j = form.qCol[k]!;
    columns[i]!.push([j, i === j ? 2 * form.qValues[k]! : form.qValues[k]!]);
  });
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (const col of columns) {
    for (const [row, v] of col.sort((a, b) => a[0] - b[0])) {
      indices.push(row);
      values.push(v);
    }
    starts.push(indices.length);
  }
  return { ...data, hessian: { format: "triangular", dimension: form.numCols, starts, indices, values } };
}

interface WasmRun {
  status: number;
  primalFeasible: boolean;
  objective: number;
  dualBound: number;
  nodes: number;
  iterations: number;
  seconds: number;
  solution: number[];
  /** Row duals and reduced costs when HiGHS holds a feasible dual solution (HiGHS's convention is duals.ts's). */
  duals: { rows: number[]; columns: number[] } | null;
  applied: Record<string, number | string | boolean>;
}

function runOnce(
  h: Highs,
  { form, settings, ...options }: { form: MatrixForm; settings: SolveSettings; presolve: boolean; objective: boolean; report?: (p: Progress) => void },
): WasmRun {
  const model: Model = h.createModel(modelData(h, form, { objective: options.objective }));
  try {
    model.options.set({ output_flag: false, time_limit: settings.timeLimitSeconds, mip_rel_gap: settings.gapTolerance });
    // The verification gate's repeat of a big-M trickle: HiGHS judges integrality with this tolerance.
    const mipTolerance = Math.min(settings.integralityTolerance ?? Number.POSITIVE_INFINITY, settings.feasibilityTolerance ?? Number.POSITIVE_INFINITY);
    if (Number.isFinite(mipTolerance)) model.options.set("mip_feasibility_tolerance", mipTolerance);
    if (settings.feasibilityTolerance !== undefined) model.options.set("primal_feasibility_tolerance", settings.feasibilityTolerance);
    if (!options.presolve) model.options.set("presolve", "off");
    const report = options.report;
    const cb = h.constants.callbackType;
    const callbacks: HighsCallbackMap | undefined = report
      ? {
          [cb.mipImprovingSolution]: (e) =>
            void report({
              incumbent: e.data.objective_function_value ?? null,
              bound: e.data.mip_dual_bound ?? null,
              nodes: Number(e.data.mip_node_count ?? 0),
            }),
          [cb.mipLogging]: (e) =>
            void report({ incumbent: e.data.mip_primal_bound ?? null, bound: e.data.mip_dual_bound ?? null, nodes: Number(e.data.mip_node_count ?? 0) }),
        }
      : undefined;
    try {
      model.run(callbacks);
    } catch (err) {
      // The package throws when HiGHS returns an error status ("Solve error"); the model status says what happened.
      if (!(err instanceof Error && err.name === "HighsError")) throw err;
    }
    const info = (name: string) => Number(model.info.get(name));
    return {
      status: model.getModelStatus(),
      primalFeasible: info("primal_solution_status") === h.constants.solutionStatus.feasible,
      objective: info("objective_function_value"),
      dualBound: info("mip_dual_bound"),
      nodes: info("mip_node_count"),
      iterations: ["simplex_iteration_count", "ipm_iteration_count", "qp_iteration_count"].reduce((s, n) => s + Math.max(0, info(n)), 0),
      seconds: model.getRunTime(),
      solution: Array.from(model.getSolution().colValue),
      duals:
        info("dual_solution_status") === h.constants.solutionStatus.feasible
          ? { rows: Array.from(model.getSolution().rowDual), columns: Array.from(model.getSolution().colDual) }
          : null,
      applied: {
        time_limit: model.options.get("time_limit") as number,
        mip_rel_gap: model.options.get("mip_rel_gap") as number,
        threads: 1,
        ...(Number.isFinite(mipTolerance) ? { mip_feasibility_tolerance: model.options.get("mip_feasibility_tolerance") as number } : {}),
        ...(settings.feasibilityTolerance !== undefined ? { primal_feasibility_tolerance: model.options.get("primal_feasibility_tolerance") as number } : {}),
      },
    };
  } finally {
    model.dispose();
  }
}

/**
 * As natively (solve_highs.run_with_presolve_choice): a "Solve error" is solved again without presolve;
 * with an integer column unbounded on a side,
 * HiGHS's presolve can stall a search that ends at once without it, yet alone proves some such MILPs
 * infeasible. Half the time without presolve, then the rest with it; the runs' times are summed.
 */
function runWithPresolveChoice(
  h: Highs,
  { problem, form, settings, report }: { problem: Problem; form: MatrixForm; settings: SolveSettings; report?: (p: Progress) => void },
): WasmRun {
  if (!hasOpenIntegerColumn(problem)) {
    const run = runOnce(h, { form, settings, presolve: true, objective: true, report });
    if (run.status !== h.constants.modelStatus.solveError) return run;
    // Presolve can end an infeasible LP over free columns in "Solve error"; without it HiGHS decides.
    return runOnce(h, {
      form,
      settings: { ...settings, timeLimitSeconds: Math.max(0.001, settings.timeLimitSeconds - run.seconds) },
      presolve: false,
      objective: true,
      report,
    });
  }
  const half = runOnce(h, { form, settings: { ...settings, timeLimitSeconds: settings.timeLimitSeconds / 2 }, presolve: false, objective: true, report });
  if (half.status !== h.constants.modelStatus.timeLimit) return half;
  const rest = runOnce(h, {
    form,
    settings: { ...settings, timeLimitSeconds: Math.max(0.001, settings.timeLimitSeconds - half.seconds) },
    presolve: true,
    objective: true,
    report,
  });
  return { ...rest, seconds: half.seconds + rest.seconds, iterations: half.iterations + rest.iterations, nodes: half.nodes + rest.nodes };
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) && Math.abs(v) < 1e19 ? v : null);

export const highsWasmEngine: TypeScriptEngine = {
  async version() {
    const h = await highs();
    return `HiGHS ${h.version.string} (wasm, npm highs ${packageVersion()})`;
  },

  async solve(problem: Problem, settings: SolveSettings, report): Promise<AdapterResult> {
    const h = await highs();
    const version = await this.version();
    const form = toMatrixForm(problem);
    const isMip = form.integrality.some((t) => t === 1);
    if (isMip && form.qValues.length > 0) return blankResult("error", version, "HiGHS does not solve problems with both integer variables and quadratic terms");
    const S = h.constants.modelStatus;
    const first = runWithPresolveChoice(h, { problem, form, settings, report });
    let final = first;
    let status: number = first.status;
    if (status === S.unboundedOrInfeasible) {
      // Only "one of the two" is proved; without presolve HiGHS usually tells which.
      final = runOnce(h, {
        form,
        settings: { ...settings, timeLimitSeconds: Math.max(0.001, settings.timeLimitSeconds - first.seconds) },
        presolve: false,
        objective: true,
      });
      status = final.status;
    }
    let relaxationOptimum = false;
    if (status === S.infeasible && isMip) {
      // As natively (solve_highs.integral_relaxation_optimum): an integral LP-relaxation optimum refutes
      // HiGHS's integer infeasibility and is the MILP's optimum.
      const left = Math.max(0.001, settings.timeLimitSeconds - first.seconds);
      const relaxed = runOnce(h, {
        form: { ...form, integrality: form.integrality.map(() => 0 as const) },
        settings: { ...settings, timeLimitSeconds: left },
        presolve: true,
        objective: true,
      });
      if (
        relaxed.status === S.optimal &&
        relaxed.primalFeasible &&
        relaxed.solution.every((v, j) => !form.integrality[j] || Math.abs(v - Math.round(v)) <= 1e-9)
      ) {
        [final, status, relaxationOptimum] = [relaxed, S.optimal, true];
      }
    }
    const result = blankResult("error", version);
    result.settings_applied = first.applied;
    result.solver_time_seconds = first.seconds + (final === first ? 0 : final.seconds);
    result.iterations = first.iterations + (final === first ? 0 : final.iterations);
    result.nodes = isMip ? Math.max(0, final.nodes) : null;
    const fill = () => {
      if (final.primalFeasible) {
        result.objective_value = finiteOrNull(final.objective);
        result.solution = namedSolution(form, final.solution);
      }
      result.dual_bound = isMip && !relaxationOptimum ? finiteOrNull(final.dualBound) : status === S.optimal ? result.objective_value : null;
    };
    if (status === S.optimal && final.primalFeasible) {
      result.solver_status = "optimal";
      fill();
      if (!isMip && final.duals) {
        const rows = Object.fromEntries(problem.constraints.map((c, i) => [c.name, final.duals!.rows[i]!]));
        const reported = normaliseDuals(problem, { reportedFor: "problem", rowDuals: rows, reducedCosts: namedSolution(form, final.duals.columns) });
        Object.assign(result, dualFields(problem, result, reported));
      }
      if (isMip && hasOpenIntegerColumn(problem) && result.solution && pointViolation(problem, result.solution).worst <= POINT_TOLERANCE) {
        // As natively (python-solve.ts): an "optimum" of a MILP over free integers may be a ray's point.
        const left = Math.max(0.001, settings.timeLimitSeconds - result.solver_time_seconds);
        const recession = async (aux: Problem): Promise<AuxiliaryAnswer> => {
          const auxForm = toMatrixForm(aux);
          const r = runOnce(h, { form: auxForm, settings: { ...settings, timeLimitSeconds: left }, presolve: true, objective: true });
          return r.status === S.optimal && r.primalFeasible
            ? { status: "optimal", values: namedSolution(auxForm, r.solution), words: "" }
            : { status: "other", values: null, words: "" };
        };
        if ((await checkLpOptimum(problem, { objective: result.objective_value ?? 0, rowDuals: null, solveAux: recession })) === "unbounded") {
          Object.assign(result, { solver_status: "unbounded", objective_value: null, dual_bound: null, solution: null });
        }
      }
    } else if (status === S.infeasible) result.solver_status = "infeasible";
    else if (status === S.unbounded) result.solver_status = "unbounded";
    else if (status === S.timeLimit) {
      result.solver_status = "time_limit";
      fill();
    } else if (status === S.unboundedOrInfeasible) {
      // Still undecided: settled with certificates from further HiGHS runs, as the CLI adapters do.
      let left = settings.timeLimitSeconds - result.solver_time_seconds;
      const settled = await settleClaim(problem, {
        claim: "infeasible_or_unbounded",
        said: "HiGHS: infeasible or unbounded",
        solveAux: async (aux): Promise<AuxiliaryAnswer> => {
          const auxForm = toMatrixForm(aux);
          const r = runWithPresolveChoice(h, { problem: aux, form: auxForm, settings: { ...settings, timeLimitSeconds: Math.max(0.001, left) } });
          left -= r.seconds;
          result.solver_time_seconds! += r.seconds;
          const integer = auxForm.integrality.some((t) => t === 1);
          if (r.status === S.optimal && r.primalFeasible) return { status: "optimal", values: namedSolution(auxForm, r.solution), words: "" };
          if (r.status === S.infeasible) return { status: integer ? "integer_infeasible" : "infeasible", values: null, words: "" };
          return { status: "other", values: null, words: `HiGHS model status ${r.status}` };
        },
      });
      if (settled.status === "error") result.error_message = settled.message;
      else Object.assign(result, { solver_status: settled.status, certificate: settled.certificate });
    } else if (final.primalFeasible && status !== S.solveError && status !== S.modelError) {
      result.solver_status = "feasible";
      fill();
      result.error_message = `HiGHS stopped early (model status ${status})`;
    } else {
      result.error_message = `HiGHS ended with model status ${status}`;
    }
    return result;
  },
};
