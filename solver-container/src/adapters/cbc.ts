import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeMps } from "../../../functions/core/problem/mps.js";
import type { Problem } from "../../../functions/core/problem/schema.js";
import { hasIntegers, hasOpenIntegerColumn, hasQuadratic } from "../../../functions/core/problem/schema.js";
import { originalObjective, type WrittenProblem } from "../../../functions/core/problem/write-common.js";
import { dualFields, normaliseDuals } from "../../../functions/core/solvers/duals.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import type { StartUse } from "../../../functions/core/solvers/warm-start.js";
import { parseCbcLog, parseCbcProgressLine, parseCbcSavedSolution, parseCbcSolution, type CbcLogSummary, type CbcSolutionFile } from "./cbc-output.js";
import { checkLpOptimum, emptyRowConflict, pointViolation, POINT_TOLERANCE, settleClaim, withoutEmptyRows, type SolveAuxiliary } from "./certificates.js";
import { lineBuffered, ranOutOfMemory, runChild, type ChildRunOutcome } from "./process.js";
import { blankResult, finish, lastLines, memoryLimitMessage, noProgress, stoppedResult } from "./result.js";
import type { ProbeResult, Progress, SolveContext, SolverAdapter } from "./types.js";

/**
 * COIN-OR CBC through its command line: the problem goes in as free MPS with safe names (C1.., R1..),
 * as a minimisation and without the objective constant, both put back on the way out.
 *
 * Settings: `sec` (with `timeMode elapsed`, else CBC counts CPU seconds), `ratio` (relative gap),
 * `threads` when more than one (CBC's default, no threads, is its serial code path), `integerTolerance`
 * when the settings name one.
 *
 * Verdicts: CBC 2.10.8 calls the unbounded gas11 "infeasible", with or without presolve. So an
 * infeasibility that CBC's LP stage declares is proved with a Farkas certificate, and any "unbounded"
 * with a feasible point and an improving ray (certificates.ts), before it is reported; an "Integer
 * infeasible" from a completed search stands.
 */

export interface CbcOptions {
  command?: string;
}

interface CbcRun {
  outcome: ChildRunOutcome;
  log: CbcLogSummary;
  solution: CbcSolutionFile | null;
  /** `saveSolution`'s objective, column values and row duals in full precision (null when CBC saved none). */
  saved: { objective: number; values: number[]; rowDuals: number[] } | null;
  written: WrittenProblem;
  /** With a MIP start: what CBC said of it (null: nothing). */
  start: StartUse | null;
  progress: Progress;
}

/**
 * MILPs with at most this many columns are solved without CBC's preprocessing. On such small problems
 * CBC 2.10.8's preprocessing returns wrong optima (min 5a − 4b − 5c − 5 over binaries a, b and c ∈ {1, 2}
 * with 2b + 4c ≤ 7 and 1 ≤ 4a − 3b + 2c ≤ 3: "Optimal" −9 where −10 is), which no check after the
 * fact catches, and buys nothing; on the manifest's larger MILPs it is what makes CBC fast.
 */
export const CBC_PREPROCESS_MIN_COLUMNS = 100;

/**
 * `solu` writes the verdict and 8 significant digits; `saveSolution` the same values as doubles (see
 * parseCbcSavedSolution), which are the ones reported and checked.
 */
export function cbcArguments({
  mpsFile,
  solutionFile,
  settings,
  preprocess = true,
  startFile,
}: {
  mpsFile: string;
  solutionFile: string;
  settings: SolveSettings;
  preprocess?: boolean;
  /** A MIP start file (settings.initialSolution) for the solve itself. */
  startFile?: string;
}): string[] {
  const args = [mpsFile, "timeMode", "elapsed", "sec", String(settings.timeLimitSeconds), "ratio", String(settings.gapTolerance)];
  if (settings.threads > 1) args.push("threads", String(settings.threads));
  // The verification gate's repeat of a big-M trickle (CBC's default is 1e-7).
  if (settings.integralityTolerance !== undefined) args.push("integerTolerance", String(settings.integralityTolerance));
  // And of a row held only within a tolerance relative to its big terms (CBC's default is 1e-7).
  if (settings.feasibilityTolerance !== undefined) args.push("primalTolerance", String(settings.feasibilityTolerance));
  if (!preprocess) args.push("preprocess", "off");
  // A MIP start (settings.initialSolution), as CBC's own solution listing: "index name value" per line.
  if (startFile) args.push("mips", startFile);
  return [...args, "solve", "solu", solutionFile, "saveSolution", `${solutionFile}.bin`];
}

/** A MIP start in CBC's solution-listing format, by the file's safe column names. */
export function mipStartText(written: WrittenProblem, start: Record<string, number>): string {
  const lines: string[] = [];
  written.columnNames.forEach((name, j) => {
    const value = start[name];
    if (value !== undefined) lines.push(`${j} ${written.fileColumnNames[j]} ${value}`);
  });
  return `${lines.join("\n")}\n`;
}

/** CBC's word on a MIP start, from its log: "MIPStart provided solution with cost …" or "… could not be used …". */
export function cbcStartUse(log: string): StartUse {
  if (/MIPStart provided solution with cost/i.test(log)) return { passed: true, solverAccepted: true };
  if (/mipstart values could not be used to build a solution/i.test(log))
    return { passed: true, solverAccepted: false, note: "CBC could not build a solution from the start" };
  return { passed: true, solverAccepted: null };
}

/** One CBC run's problem, settings and context; `purpose` names its files. */
interface CbcRunRequest {
  problem: Problem;
  settings: SolveSettings;
  context: SolveContext;
  purpose: string;
}

export function createCbcAdapter(options: CbcOptions = {}): SolverAdapter {
  const command = options.command ?? "cbc";
  let probed: Promise<ProbeResult> | null = null;
  let runs = 0;

  /** One CBC run; `purpose` names its files and says whether it streams progress (the solve itself does). */
  async function run({ problem, settings, context, purpose, preprocess = true }: CbcRunRequest & { preprocess?: boolean }): Promise<CbcRun> {
    const written = writeMps(problem, { safeNames: true, omitObjectiveConstant: true, sense: "minimize" });
    const stem = path.join(context.workDir, `cbc-${purpose}-${++runs}`);
    await writeFile(`${stem}.mps`, written.text);
    // Only the solve itself gets the start: auxiliary runs (certificates) solve other problems.
    const startFile = purpose.startsWith("solve") && settings.initialSolution ? `${stem}.start` : undefined;
    if (startFile) await writeFile(startFile, mipStartText(written, settings.initialSolution!));
    const progress = noProgress();
    // Only the solve itself streams to the recorder: auxiliary runs (certificates) solve other problems.
    const sink = purpose.startsWith("solve") ? context.progress : undefined;
    const outcome = await runChild({
      // Line-buffered only when someone records the progress: else the lines are read at the end anyway.
      ...(sink
        ? lineBuffered(command, cbcArguments({ mpsFile: `${stem}.mps`, solutionFile: `${stem}.sol`, settings, preprocess, startFile }))
        : { command, args: cbcArguments({ mpsFile: `${stem}.mps`, solutionFile: `${stem}.sol`, settings, preprocess, startFile }) }),
      cwd: context.workDir,
      deadlineMs: (settings.timeLimitSeconds + context.killGraceSeconds) * 1000,
      signal: context.signal,
      memoryMb: context.memoryMb,
      onLine: (line) => {
        sink?.line(line);
        const update = parseCbcProgressLine(line);
        if (!update) return;
        if (update.incumbent !== undefined) progress.incumbent = originalObjective(written, update.incumbent);
        if (update.bound !== undefined) progress.bound = originalObjective(written, update.bound);
        if (update.nodes !== undefined) progress.nodes = update.nodes;
        sink?.point({ ...progress });
      },
    });
    const solutionText = await readFile(`${stem}.sol`, "utf8").catch(() => null);
    const binary = await readFile(`${stem}.sol.bin`).catch(() => null);
    const saved = binary ? parseCbcSavedSolution(binary) : null;
    return {
      outcome,
      log: parseCbcLog(outcome.stdout),
      solution: solutionText ? parseCbcSolution(solutionText) : null,
      saved:
        saved && saved.columnValues.length === written.columnNames.length && saved.rowDuals.length === written.rowNames.length
          ? { objective: saved.objective, values: saved.columnValues, rowDuals: saved.rowDuals }
          : null,
      written,
      progress,
      start: startFile ? cbcStartUse(outcome.stdout) : null,
    };
  }

  /**
   * The run's column values by original name: full precision when CBC saved them (8 digits neither
   * cancel a Farkas combination to 1e-9 nor describe a point far from the origin), else the text file's.
   */
  const values = (r: CbcRun): Record<string, number> => {
    const out: Record<string, number> = {};
    r.written.fileColumnNames.forEach((fileName, j) => {
      out[r.written.columnNames[j]!] = r.saved?.values[j] ?? r.solution?.values.get(fileName) ?? 0; // the text lists nonzero columns only
    });
    return out;
  };
  const duals = (r: CbcRun): Record<string, number> | null =>
    r.saved ? Object.fromEntries(r.written.rowNames.map((name, i) => [name, r.saved!.rowDuals[i]!])) : null;
  const objectiveOf = (r: CbcRun) => originalObjective(r.written, r.saved?.objective ?? r.solution?.objective ?? Number.NaN);
  const pointIsOff = (problem: Problem, r: CbcRun) => pointViolation(problem, values(r)).worst > POINT_TOLERANCE;

  /**
   * CBC's MILP preprocessing goes wrong on small problems: it hands back a point its own postprocessing
   * found infeasible ("Cgl0013I Postprocessed model is infeasible - possible tolerance issue - try
   * without preprocessing") under the verdict "Optimal", and calls feasible problems "Integer
   * infeasible" ("Pre-processing says infeasible or unbounded"). Small MILPs run without it (see
   * CBC_PREPROCESS_MIN_COLUMNS); a larger one's suspect answer is repeated without it, as CBC advises,
   * in the time left. Without preprocessing CBC can crash where its bound tightening finds the problem
   * infeasible (a segmentation fault writing the solution): then the other run's answer stands, to be
   * settled like any other.
   */
  async function runChecked({ problem, settings, context, purpose }: CbcRunRequest): Promise<CbcRun> {
    const milp = hasIntegers(problem);
    const preprocess = !milp || problem.variables.length > CBC_PREPROCESS_MIN_COLUMNS;
    const first = await run({ problem, settings, context, purpose, preprocess });
    if (first.outcome.stopped || !milp) return first;
    const suspect = preprocess
      ? first.log.preprocessingVerdict || (first.solution?.hasIncumbent === true && pointIsOff(problem, first))
      : first.solution === null && !ranOutOfMemory(first.outcome);
    if (!suspect) return first;
    const left = Math.max(1, settings.timeLimitSeconds - first.outcome.elapsedMs / 1000);
    const second = await run({ problem, settings: { ...settings, timeLimitSeconds: left }, context, purpose: `${purpose}-again`, preprocess: !preprocess });
    return second.solution || second.outcome.stopped || !first.solution ? second : first;
  }

  const words = (r: CbcRun) =>
    `CBC: ${r.solution?.headline ?? "no solution file"}${r.log.result ? ` (${r.log.result})` : ""}; ${lastLines(r.outcome.stdout, 3)}`;

  const probe = (): Promise<ProbeResult> =>
    (probed ??= (async () => {
      const out = await runChild({ command, args: ["-quit"], cwd: process.cwd(), deadlineMs: 10_000 });
      const log = parseCbcLog(out.stdout);
      if (out.spawnError || !log.version) return { available: false, version: null, detail: out.spawnError ?? `"${command} -quit" printed no version` };
      const built = /^Build Date:\s*(.+?)\s*$/m.exec(out.stdout)?.[1];
      return { available: true, version: `CBC ${log.version}`, build: built ? `built ${built}` : undefined };
    })());

  return {
    name: "cbc",
    probe,
    async solve(given, settings, context) {
      const started = performance.now();
      const info = await probe();
      const version = info.version;
      if (!info.available) return finish(blankResult("error", null, `CBC is not available: ${info.detail}`), started);
      if (hasQuadratic(given)) return finish(blankResult("error", version, "CBC does not take quadratic objective terms"), started);
      // An empty row whose sides exclude 0 is its own Farkas certificate.
      if (emptyRowConflict(given)) return finish({ ...blankResult("infeasible", version), certificate: "farkas" }, started);
      // CBC abandons some problems with empty rows ("Stopped on difficulties"); they constrain nothing.
      const problem = withoutEmptyRows(given);

      const main = await runChecked({ problem, settings, context, purpose: "solve" });
      if (main.outcome.stopped)
        return finish(
          stoppedResult(main.outcome.stopped, { progress: main.progress, version, limitSeconds: settings.timeLimitSeconds, solverName: "CBC" }),
          started,
        );

      const result = blankResult("error", version);
      result.settings_applied = main.log.echoed;
      if (main.start) result.start_use = main.start;
      result.solver_time_seconds = main.log.wallSeconds;
      result.iterations = main.log.iterations;
      result.nodes = main.log.nodes;
      const sol = main.solution;
      if (!sol && ranOutOfMemory(main.outcome)) {
        result.error_message = memoryLimitMessage("CBC", context.memoryMb);
        return finish(result, started);
      }
      if (!sol) {
        result.error_message = `CBC wrote no solution (exit ${main.outcome.exitCode ?? main.outcome.exitSignal}): ${lastLines(main.outcome.stdout + main.outcome.stderr)}`;
        return finish(result, started);
      }
      const toOriginal = (v: number | null) => (v === null ? null : originalObjective(main.written, v));
      const fillIncumbent = () => {
        result.objective_value = objectiveOf(main);
        // The raw values: the verification gate rounds integers only where the rounded point passes.
        result.solution = values(main);
      };

      const auxiliary: SolveAuxiliary = async (aux, purpose) => {
        const remaining = Math.max(1, settings.timeLimitSeconds - (performance.now() - started) / 1000);
        const r = await runChecked({ problem: aux, settings: { ...settings, timeLimitSeconds: remaining }, context, purpose });
        result.solver_time_seconds = (result.solver_time_seconds ?? 0) + (r.log.wallSeconds ?? 0);
        const s = r.solution?.status;
        return {
          status: s === "optimal" || s === "infeasible" || s === "integer_infeasible" ? s : "other",
          values: s === "optimal" ? values(r) : null,
          words: words(r),
        };
      };

      const lpStageInfeasible = sol.status === "infeasible";
      const unboundedClaim = sol.status === "unbounded";
      const integerInfeasible = sol.status === "integer_infeasible";
      if (sol.status === "optimal" && pointIsOff(problem, main)) {
        const off = pointViolation(problem, values(main));
        result.error_message = `${words(main)}; yet its optimum violates ${off.where} by ${off.worst.toExponential(2)} (relative)`;
      } else if (
        sol.status === "optimal" &&
        !hasIntegers(problem) &&
        (await checkLpOptimum(problem, { objective: objectiveOf(main), rowDuals: duals(main), solveAux: auxiliary })) === "unbounded"
      ) {
        result.solver_status = "unbounded";
      } else if (sol.status === "optimal") {
        result.solver_status = "optimal";
        fillIncumbent();
        // A search stopped within the gap tolerance prints its bound; a closed one's bound is its optimum.
        const bound = hasIntegers(problem) ? (main.log.bestPossible ?? main.log.lowerBound) : null;
        result.dual_bound = bound === null ? result.objective_value : toOriginal(bound);
        const rowDuals = duals(main);
        Object.assign(result, dualFields(given, result, rowDuals && normaliseDuals(given, { reportedFor: "minimisation", rowDuals })));
      } else if (integerInfeasible && main.log.undecidedRemarks.length === 0 && !hasOpenIntegerColumn(problem)) {
        // A finished search over bounded integers. With an integer column unbounded on a side, CBC
        // can end its search at once on an unbounded relaxation (at a "continuous objective" near
        // 1e11) and call an unbounded MILP integer infeasible: that claim is settled below.
        result.solver_status = "infeasible";
      } else if (lpStageInfeasible || unboundedClaim || integerInfeasible) {
        // CBC's claim is checked before it is believed (see the file comment).
        const said = `CBC said "${sol.headline}"${main.log.undecidedRemarks.length ? ` (${main.log.undecidedRemarks.join("; ")})` : ""}`;
        const claim = lpStageInfeasible ? "infeasible" : unboundedClaim ? "unbounded" : "infeasible_or_unbounded";
        const settled = await settleClaim(problem, { claim, said, solveAux: auxiliary });
        if (settled.status === "error") result.error_message = settled.message;
        else Object.assign(result, { solver_status: settled.status, certificate: settled.certificate });
      } else if (sol.status.startsWith("stopped_on")) {
        // A MILP's listed values are an integer solution. An LP's are wherever simplex stopped, an
        // incumbent only if feasible, which is checked (CBC marks such an LP "Stopped on iterations").
        const usable = sol.hasIncumbent && !pointIsOff(problem, main);
        if (usable) fillIncumbent();
        result.dual_bound = hasIntegers(problem) ? toOriginal(main.log.bestPossible ?? main.log.lowerBound) : null;
        if (sol.status === "stopped_on_time" || main.log.result?.startsWith("Stopped on time")) result.solver_status = "time_limit";
        else if (usable) {
          result.solver_status = "feasible";
          result.error_message = `CBC: ${sol.headline}`;
        } else {
          result.objective_value = null;
          result.dual_bound = null;
          result.error_message = words(main);
        }
      } else {
        result.error_message = words(main);
      }
      return finish(result, started);
    },
  };
}
