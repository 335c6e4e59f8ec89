import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeMps } from "../../../functions/core/problem/mps.js";
import { hasQuadratic, type Problem } from "../../../functions/core/problem/schema.js";
import { originalObjective, type WrittenProblem } from "../../../functions/core/problem/write-common.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { settleInfeasibleOrUnbounded, type AuxiliaryAnswer } from "./certificates.js";
import { parseGlpkLog, parseGlpkProgressLine, parseGlpkRaw, type GlpkLogSummary, type GlpkMessage, type GlpkRawSolution } from "./glpk-output.js";
import { runChild, type ChildRunOutcome } from "./process.js";
import { blankResult, finish, lastLines, noProgress, stoppedResult } from "./result.js";
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
 * Verdicts: the LP presolver's "no dual feasible solution" proves neither infeasible nor unbounded, so
 * that LP is solved again with `--nopresol`, whose simplex tells. A MILP whose LP relaxation is
 * unbounded is settled with certificates (certificates.ts).
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

export function glpkArguments(file: string, rawFile: string, settings: SolveSettings, presolve = true): string[] {
  const args = ["--freemps", file, "--tmlim", String(glpkTimeLimit(settings.timeLimitSeconds)), "--mipgap", String(settings.gapTolerance)];
  if (!presolve) args.push("--nopresol");
  return [...args, "-w", rawFile];
}

export function createGlpkAdapter(options: GlpkOptions = {}): SolverAdapter {
  const command = options.command ?? "glpsol";
  let probed: Promise<ProbeResult> | null = null;
  let runs = 0;

  async function run(problem: Problem, settings: SolveSettings, context: SolveContext, purpose: string, presolve = true): Promise<GlpkRun> {
    const written = writeMps(problem, { safeNames: true, omitObjectiveConstant: true, sense: "minimize" });
    const stem = path.join(context.workDir, `glpk-${purpose}-${++runs}`);
    await writeFile(`${stem}.mps`, written.text);
    const progress = noProgress();
    let searchStarted: number | null = null;
    let searchSeconds: number | null = null;
    const outcome = await runChild({
      command,
      args: glpkArguments(`${stem}.mps`, `${stem}.raw`, settings, presolve),
      cwd: context.workDir,
      deadlineMs: (glpkTimeLimit(settings.timeLimitSeconds) + context.killGraceSeconds) * 1000,
      signal: context.signal,
      onLine: (line) => {
        // glpsol flushes each line, so arrival times measure its search to the millisecond.
        if (searchStarted === null && /^GLPK (?:Simplex|Integer) Optimizer/.test(line)) searchStarted = performance.now();
        if (/^Time used:/.test(line) && searchStarted !== null) searchSeconds = (performance.now() - searchStarted) / 1000;
        const update = parseGlpkProgressLine(line);
        if (!update) return;
        progress.incumbent = update.incumbent === null ? null : originalObjective(written, update.incumbent);
        progress.bound = update.bound === null ? null : originalObjective(written, update.bound);
        progress.nodes = update.nodes;
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
  const said = (r: GlpkRun, kind: GlpkMessage) => r.log.messages.some((m) => m.kind === kind);
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
      let main = await run(problem, settings, context, "solve");
      const firstEcho = main.log.echoedArgs;
      let searchSeconds = main.searchSeconds ?? 0;
      if (!main.outcome.stopped && main.raw?.kind === "lp" && said(main, "no_dual_feasible")) {
        // Presolve proved only that the dual is infeasible; the simplex without it decides.
        main = await run(problem, { ...settings, timeLimitSeconds: remaining() }, context, "nopresol", false);
        searchSeconds += main.searchSeconds ?? 0;
      }
      if (main.outcome.stopped) return finish(stoppedResult(main.outcome.stopped, main.progress, version, settings.timeLimitSeconds, "glpsol"), started);

      const result = blankResult("error", version);
      result.settings_applied = firstEcho ? { command_line: firstEcho, tmlim: glpkTimeLimit(settings.timeLimitSeconds), mipgap: settings.gapTolerance } : null;
      result.solver_time_seconds = searchSeconds;
      result.iterations = main.log.iterations;
      const raw = main.raw;
      if (!raw) {
        result.error_message = `glpsol wrote no solution (exit ${main.outcome.exitCode ?? main.outcome.exitSignal}): ${lastLines(main.outcome.stdout + main.outcome.stderr)}`;
        return finish(result, started);
      }
      const toOriginal = (v: number | null) => (v === null ? null : originalObjective(main.written, v));
      const fillIncumbent = () => {
        result.objective_value = toOriginal(raw.objective);
        result.solution = values(main);
      };

      if (raw.kind === "lp") {
        if (raw.primal === "feasible" && raw.dual === "feasible") {
          result.solver_status = "optimal";
          fillIncumbent();
          result.dual_bound = result.objective_value;
        } else if (raw.primal === "feasible" && raw.dual === "no_feasible") result.solver_status = "unbounded";
        else if (raw.primal === "no_feasible" || said(main, "no_primal_feasible")) result.solver_status = "infeasible";
        else if (said(main, "time_limit")) {
          result.solver_status = "time_limit";
          if (raw.primal === "feasible") fillIncumbent();
        } else result.error_message = words(main);
        return finish(result, started);
      }

      result.nodes = main.log.nodes;
      const bound = () => toOriginal(main.log.bound);
      if (raw.primal === "optimal" || (raw.primal === "feasible" && said(main, "mip_gap"))) {
        result.solver_status = "optimal";
        fillIncumbent();
        result.dual_bound = raw.primal === "optimal" ? result.objective_value : bound();
      } else if (raw.primal === "no_feasible") result.solver_status = "infeasible";
      else if (said(main, "time_limit")) {
        result.solver_status = "time_limit";
        if (raw.primal === "feasible") fillIncumbent();
        result.dual_bound = bound();
      } else if (raw.primal === "feasible") {
        result.solver_status = "feasible";
        fillIncumbent();
        result.dual_bound = bound();
        result.error_message = words(main);
      } else if (said(main, "lp_unbounded") || said(main, "no_dual_feasible")) {
        // The LP relaxation is unbounded: the MILP is infeasible or unbounded, glpsol cannot say which.
        const settled = await settleInfeasibleOrUnbounded(problem, `glpsol: the LP relaxation is unbounded`, async (aux, purpose): Promise<AuxiliaryAnswer> => {
          // Without the LP presolver, whose undecided answers leave the raw status undefined.
          const r = await run(aux, { ...settings, timeLimitSeconds: remaining() }, context, purpose, false);
          result.solver_time_seconds = (result.solver_time_seconds ?? 0) + (r.searchSeconds ?? 0);
          const state = r.raw?.primal;
          const solved = state === "optimal" || (r.raw?.kind === "lp" && state === "feasible" && r.raw.dual === "feasible");
          return { status: solved ? "optimal" : state === "no_feasible" ? "infeasible" : "other", values: solved ? values(r) : null, words: words(r) };
        });
        if (settled.status === "error") result.error_message = settled.message;
        else result.solver_status = settled.status;
      } else result.error_message = words(main);
      return finish(result, started);
    },
  };
}
