import { readFile, writeFile } from "node:fs/promises";
import { dualFields, normaliseDuals } from "../../../functions/core/solvers/duals.js";
import path from "node:path";
import { writeMps } from "../../../functions/core/problem/mps.js";
import { hasIntegers, hasOpenIntegerColumn, hasQuadratic, type Problem } from "../../../functions/core/problem/schema.js";
import { originalObjective, type WrittenProblem } from "../../../functions/core/problem/write-common.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { checkLpOptimum, pointViolation, POINT_TOLERANCE, settleClaim, type SolveAuxiliary } from "./certificates.js";
import {
  glpkClaim,
  parseGlpkHeuristicLine,
  parseGlpkLog,
  parseGlpkProgressLine,
  parseGlpkRaw,
  type GlpkLogSummary,
  type GlpkRawSolution,
} from "./glpk-output.js";
import { ranOutOfMemory, runChild, type ChildRunOutcome } from "./process.js";
import { blankResult, finish, lastLines, memoryLimitMessage, noProgress, stoppedResult } from "./result.js";
import type { ProbeResult, Progress, SolveContext, SolverAdapter } from "./types.js";

/**
 * GLPK through glpsol. The problem goes in as free MPS (glpsol's fixed reader rejects tabs), with safe
 * names, as a minimisation and without the objective constant: glpsol reads an objective-row RHS with
 * the opposite sign from HiGHS, CBC and SCIP, so the constant is added back here instead.
 *
 * Settings: `--tmlim` (whole seconds only: the limit is rounded up, and the kill switch counts from
 * that), `--mipgap`. glpsol has no threads option; it is single-threaded.
 *
 * Time: glpsol's own "Time used" has 0.1 s resolution, so `solver_time_seconds` is measured from its
 * streamed log instead, from the "GLPK ... Optimizer" line to the "Time used" line (it flushes each line).
 *
 * Verdicts: `glpkClaim` reads what a run claims (glpk-output.ts). An optimum is reported with its point
 * checked against the problem; an integer infeasibility from a finished search stands on glpsol's word;
 * every other claim — infeasible, unbounded, "no dual feasible solution" — is proved with a Farkas
 * certificate, or a feasible point and an improving ray, from auxiliary glpsol runs (certificates.ts),
 * or answered as `error` with glpsol's words.
 *
 * GLPK 5.0's MIP presolver can loop for ever tightening bounds when an integer column has an infinite
 * bound and the rows contradict each other (it ignores `--tmlim` there), so such MILPs run with
 * `--nointopt`: the LP relaxation is solved first, and its infeasibility is proved as an LP's.
 */

export interface GlpkOptions {
  command?: string;
}

interface GlpkRun {
  outcome: ChildRunOutcome;
  log: GlpkLogSummary;
  raw: GlpkRawSolution | null;
  written: WrittenProblem;
  progress: Progress;
  /** Search time measured from glpsol's streamed lines ("... Optimizer" to "Time used"). */
  searchSeconds: number | null;
}

export function glpkTimeLimit(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

export interface GlpkSwitches {
  /** The LP presolver (glpsol's default); off for auxiliary LPs. */
  presolve: boolean;
  /** The MIP presolver (glpsol's default); off when an integer column has an infinite bound. */
  mipPresolve: boolean;
  /**
   * `--xcheck`: the final basis's solution recomputed in exact arithmetic, for auxiliary LPs whose
   * point or multipliers are checked (on gas11 glpsol's own point misses a bound by 6e-5; this one by 2e-10).
   */
  exactCheck?: boolean;
}

/** glpsol's command line: the MPS file it reads, the raw solution file it writes, and how it solves. */
export function glpkArguments({
  mpsFile,
  rawFile,
  settings,
  switches = { presolve: true, mipPresolve: true },
  memoryMb,
}: {
  mpsFile: string;
  rawFile: string;
  settings: SolveSettings;
  switches?: GlpkSwitches;
  memoryMb?: number;
}): string[] {
  const args = ["--freemps", mpsFile, "--tmlim", String(glpkTimeLimit(settings.timeLimitSeconds)), "--mipgap", String(settings.gapTolerance)];
  // glpsol's own allocation limit ends a run with "memory allocation limit exceeded"; the data
  // ceiling the process runs under (process.ts) is the backstop.
  if (memoryMb && memoryMb > 0) args.push("--memlim", String(Math.max(1, Math.floor(memoryMb))));
  if (!switches.presolve) args.push("--nopresol");
  if (!switches.mipPresolve) args.push("--nointopt");
  if (switches.exactCheck) args.push("--xcheck");
  return [...args, "-w", rawFile];
}

export function createGlpkAdapter(options: GlpkOptions = {}): SolverAdapter {
  const command = options.command ?? "glpsol";
  let probed: Promise<ProbeResult> | null = null;
  let runs = 0;

  /** One glpsol run; `purpose` names its files and says whether it streams progress (the solve itself does). */
  async function run({
    problem,
    settings,
    context,
    purpose,
    presolve = true,
    mipPresolve = true,
  }: {
    problem: Problem;
    settings: SolveSettings;
    context: SolveContext;
    purpose: string;
    presolve?: boolean;
    mipPresolve?: boolean;
  }): Promise<GlpkRun> {
    // Auxiliary LPs (run without presolve) get their basis checked exactly: their points are checked.
    const switches = { presolve, mipPresolve: mipPresolve && !hasOpenIntegerColumn(problem), exactCheck: !presolve && !hasIntegers(problem) };
    const written = writeMps(problem, { safeNames: true, omitObjectiveConstant: true, sense: "minimize" });
    const stem = path.join(context.workDir, `glpk-${purpose}-${++runs}`);
    await writeFile(`${stem}.mps`, written.text);
    const progress = noProgress();
    // Only the solve itself streams to the recorder: auxiliary runs (certificates) solve other problems.
    const sink = purpose === "solve" || purpose === "nointopt" ? context.progress : undefined;
    let searchStarted: number | null = null;
    let searchSeconds: number | null = null;
    const outcome = await runChild({
      command,
      args: glpkArguments({ mpsFile: `${stem}.mps`, rawFile: `${stem}.raw`, settings, switches, memoryMb: context.memoryMb }),
      cwd: context.workDir,
      deadlineMs: (glpkTimeLimit(settings.timeLimitSeconds) + context.killGraceSeconds) * 1000,
      signal: context.signal,
      memoryMb: context.memoryMb,
      onLine: (line) => {
        // glpsol flushes each line, so arrival times measure its search to the millisecond.
        if (searchStarted === null && /^GLPK (?:Simplex|Integer) Optimizer/.test(line)) searchStarted = performance.now();
        if (/^Time used:/.test(line) && searchStarted !== null) searchSeconds = (performance.now() - searchStarted) / 1000;
        sink?.line(line);
        const heuristic = parseGlpkHeuristicLine(line);
        if (heuristic !== null && (progress.incumbent === null || originalObjective(written, heuristic) !== progress.incumbent)) {
          // An incumbent found between two progress lines; glpsol's next progress line confirms it.
          sink?.point({ ...progress, incumbent: originalObjective(written, heuristic) });
        }
        const update = parseGlpkProgressLine(line);
        if (!update) return;
        progress.incumbent = update.incumbent === null ? null : originalObjective(written, update.incumbent);
        progress.bound = update.bound === null ? null : originalObjective(written, update.bound);
        progress.nodes = update.nodes;
        sink?.point({ ...progress });
      },
    });
    const rawText = await readFile(`${stem}.raw`, "utf8").catch(() => null);
    let raw: GlpkRawSolution | null = null;
    try {
      raw = rawText === null ? null : parseGlpkRaw(rawText);
    } catch {
      raw = null;
    }
    const log = parseGlpkLog(outcome.stdout);
    return { outcome, log, raw, written, progress, searchSeconds: searchSeconds ?? log.timeUsedSeconds };
  }

  const values = (r: GlpkRun): Record<string, number> => {
    const out: Record<string, number> = {};
    r.written.columnNames.forEach((name, j) => {
      out[name] = r.raw?.values[j] ?? 0;
    });
    return out;
  };
  /** Row duals of a basic or interior-point solution, by constraint name (the file is a minimisation). */
  const duals = (r: GlpkRun): Record<string, number> | null =>
    r.raw && r.raw.rowDuals.length > 0 ? Object.fromEntries(r.written.rowNames.map((name, i) => [name, r.raw!.rowDuals[i] ?? 0])) : null;
  const words = (r: GlpkRun) => `glpsol: ${r.log.messages.map((m) => m.text).join("; ") || lastLines(r.outcome.stdout + r.outcome.stderr, 3)}`;

  const probe = (): Promise<ProbeResult> =>
    (probed ??= (async () => {
      const out = await runChild({ command, args: ["--version"], cwd: process.cwd(), deadlineMs: 10_000 });
      const version = parseGlpkLog(out.stdout).version;
      if (out.spawnError || !version) return { available: false, version: null, detail: out.spawnError ?? `"${command} --version" printed no version` };
      return { available: true, version: `GLPK ${version}` };
    })());

  return {
    name: "glpk",
    probe,
    async solve(problem, settings, context) {
      const started = performance.now();
      const info = await probe();
      const version = info.version;
      if (!info.available) return finish(blankResult("error", null, `GLPK is not available: ${info.detail}`), started);
      if (hasQuadratic(problem)) return finish(blankResult("error", version, "glpsol does not take quadratic objective terms"), started);

      const remaining = () => Math.max(1, settings.timeLimitSeconds - (performance.now() - started) / 1000);
      let main = await run({ problem, settings, context, purpose: "solve" });
      const mipPresolved = hasIntegers(problem) && !hasOpenIntegerColumn(problem);
      const suspect =
        (main.raw === null && !ranOutOfMemory(main.outcome)) ||
        (glpkClaim(main.raw, main.log) === "optimal" && pointViolation(problem, values(main)).worst > POINT_TOLERANCE);
      if (!main.outcome.stopped && mipPresolved && suspect) {
        // GLPK 5.0's MIP preprocessor can claim an optimum at a point that violates a row ("INTEGER
        // OPTIMAL SOLUTION FOUND BY MIP PREPROCESSOR") or fail an assertion ("q->lb < q->ub", npp3.c):
        // the search without it decides.
        main = await run({ problem, settings: { ...settings, timeLimitSeconds: remaining() }, context, purpose: "nointopt", mipPresolve: false });
      }
      if (main.outcome.stopped)
        return finish(
          stoppedResult(main.outcome.stopped, { progress: main.progress, version, limitSeconds: settings.timeLimitSeconds, solverName: "glpsol" }),
          started,
        );

      const result = blankResult("error", version);
      const echoed = main.log.echoedArgs;
      result.settings_applied = echoed ? { command_line: echoed, tmlim: glpkTimeLimit(settings.timeLimitSeconds), mipgap: settings.gapTolerance } : null;
      result.solver_time_seconds = main.searchSeconds ?? 0;
      result.iterations = main.log.iterations;
      if (hasIntegers(problem)) result.nodes = main.log.nodes;
      const raw = main.raw;
      if (!raw && ranOutOfMemory(main.outcome)) {
        result.error_message = memoryLimitMessage("glpsol", context.memoryMb);
        return finish(result, started);
      }
      if (!raw) {
        result.error_message = `glpsol wrote no solution (exit ${main.outcome.exitCode ?? main.outcome.exitSignal}): ${lastLines(main.outcome.stdout + main.outcome.stderr)}`;
        return finish(result, started);
      }
      const toOriginal = (v: number | null) => (v === null ? null : originalObjective(main.written, v));
      const mipBound = () => (raw.kind === "mip" ? toOriginal(main.log.bound) : null);
      /** The run's point as the incumbent, when it satisfies the problem; the violation otherwise. */
      const takeIncumbent = (): string | null => {
        const point = values(main);
        const off = pointViolation(problem, point);
        if (off.worst > POINT_TOLERANCE) return `${off.where} by ${off.worst.toExponential(2)} (relative)`;
        result.objective_value = toOriginal(raw.objective);
        result.solution = point;
        return null;
      };

      const auxiliary: SolveAuxiliary = async (aux, purpose) => {
        const r = await run({ problem: aux, settings: { ...settings, timeLimitSeconds: remaining() }, context, purpose, presolve: false });
        result.solver_time_seconds = (result.solver_time_seconds ?? 0) + (r.searchSeconds ?? 0);
        const answer = r.outcome.stopped ? "unknown" : glpkClaim(r.raw, r.log);
        const status = answer === "optimal" || answer === "infeasible" || answer === "integer_infeasible" ? answer : "other";
        return { status, values: status === "optimal" ? values(r) : null, words: words(r) };
      };

      const claim = glpkClaim(raw, main.log);
      if (claim === "optimal") {
        const off = takeIncumbent();
        if (off !== null) result.error_message = `${words(main)}; yet its optimum violates ${off}`;
        else if (
          raw.kind !== "mip" &&
          (await checkLpOptimum(problem, { objective: result.objective_value!, rowDuals: duals(main), solveAux: auxiliary })) === "unbounded"
        ) {
          result.solver_status = "unbounded";
          result.objective_value = null;
          result.solution = null;
        } else {
          result.solver_status = "optimal";
          result.dual_bound = raw.kind === "mip" && raw.primal === "feasible" ? mipBound() : result.objective_value;
          // A problem without rows has no row lines in the file, and nothing for a dual to say.
          const rowDuals = raw.kind === "mip" ? null : main.written.rowNames.length === 0 ? {} : duals(main);
          Object.assign(result, dualFields(problem, result, rowDuals && normaliseDuals(problem, { reportedFor: "minimisation", rowDuals })));
        }
      } else if (claim === "integer_infeasible") {
        result.solver_status = "infeasible";
      } else if (claim === "time_limit") {
        result.solver_status = "time_limit";
        if (raw.primal === "feasible") takeIncumbent();
        result.dual_bound = mipBound();
      } else if (claim === "integer_feasible") {
        const off = takeIncumbent();
        result.dual_bound = mipBound();
        if (off === null) result.solver_status = "feasible";
        result.error_message = words(main);
      } else if (claim === "infeasible" || claim === "unbounded" || claim === "infeasible_or_unbounded") {
        const subject = raw.kind === "mip" ? "the LP relaxation" : "the LP";
        const said = {
          infeasible: `glpsol: ${subject} has no feasible point`,
          unbounded: `glpsol: ${subject} is unbounded`,
          infeasible_or_unbounded: `glpsol: ${subject} is infeasible or unbounded (no dual feasible solution)`,
        }[claim];
        const settled = await settleClaim(problem, { claim, said, solveAux: auxiliary });
        if (settled.status === "error") result.error_message = settled.message;
        else Object.assign(result, { solver_status: settled.status, certificate: settled.certificate });
      } else result.error_message = words(main);
      return finish(result, started);
    },
  };
}
