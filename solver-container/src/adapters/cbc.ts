import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeMps } from "../../../functions/core/problem/mps.js";
import type { Problem } from "../../../functions/core/problem/schema.js";
import { hasIntegers, hasQuadratic } from "../../../functions/core/problem/schema.js";
import { originalObjective, type WrittenProblem } from "../../../functions/core/problem/write-common.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { parseCbcLog, parseCbcProgressLine, parseCbcSolution, type CbcLogSummary, type CbcSolutionFile } from "./cbc-output.js";
import { pointViolation, POINT_TOLERANCE, settleInfeasibleOrUnbounded, type AuxiliaryAnswer } from "./certificates.js";
import { runChild, type ChildRunOutcome } from "./process.js";
import { blankResult, finish, lastLines, noProgress, stoppedResult } from "./result.js";
import type { ProbeResult, Progress, SolveContext, SolverAdapter } from "./types.js";

/**
 * COIN-OR CBC through its command line: the problem goes in as free MPS with safe names (C1.., R1..),
 * as a minimisation and without the objective constant, both put back on the way out.
 *
 * Settings: `sec` (with `timeMode elapsed`, else CBC counts CPU seconds), `ratio` (relative gap),
 * `threads` when more than one (CBC's default, no threads, is its serial code path).
 *
 * Verdicts: CBC 2.10.8 calls the unbounded gas11 "infeasible", with or without presolve. So an
 * infeasibility that CBC's LP stage declares, and any "unbounded", is checked with certificates
 * (certificates.ts) before it is reported; an "Integer infeasible" from a completed search stands.
 */

export interface CbcOptions {
  command?: string;
}

interface CbcRun {
  outcome: ChildRunOutcome;
  log: CbcLogSummary;
  solution: CbcSolutionFile | null;
  written: WrittenProblem;
  progress: Progress;
}

export function cbcArguments(file: string, solutionFile: string, settings: SolveSettings): string[] {
  const args = [file, "timeMode", "elapsed", "sec", String(settings.timeLimitSeconds), "ratio", String(settings.gapTolerance)];
  if (settings.threads > 1) args.push("threads", String(settings.threads));
  return [...args, "solve", "solu", solutionFile];
}

export function createCbcAdapter(options: CbcOptions = {}): SolverAdapter {
  const command = options.command ?? "cbc";
  let probed: Promise<ProbeResult> | null = null;
  let runs = 0;

  async function run(problem: Problem, settings: SolveSettings, context: SolveContext, purpose: string): Promise<CbcRun> {
    const written = writeMps(problem, { safeNames: true, omitObjectiveConstant: true, sense: "minimize" });
    const stem = path.join(context.workDir, `cbc-${purpose}-${++runs}`);
    await writeFile(`${stem}.mps`, written.text);
    const progress = noProgress();
    const outcome = await runChild({
      command,
      args: cbcArguments(`${stem}.mps`, `${stem}.sol`, settings),
      cwd: context.workDir,
      deadlineMs: (settings.timeLimitSeconds + context.killGraceSeconds) * 1000,
      signal: context.signal,
      onLine: (line) => {
        const update = parseCbcProgressLine(line);
        if (!update) return;
        if (update.incumbent !== undefined) progress.incumbent = originalObjective(written, update.incumbent);
        if (update.bound !== undefined) progress.bound = originalObjective(written, update.bound);
        if (update.nodes !== undefined) progress.nodes = update.nodes;
      },
    });
    const solutionText = await readFile(`${stem}.sol`, "utf8").catch(() => null);
    return { outcome, log: parseCbcLog(outcome.stdout), solution: solutionText ? parseCbcSolution(solutionText) : null, written, progress };
  }

  const values = (r: CbcRun): Record<string, number> => {
    const out: Record<string, number> = {};
    r.written.fileColumnNames.forEach((fileName, j) => {
      out[r.written.columnNames[j]!] = r.solution?.values.get(fileName) ?? 0; // CBC lists nonzero columns only
    });
    return out;
  };

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
    async solve(problem, settings, context) {
      const started = performance.now();
      const info = await probe();
      const version = info.version;
      if (!info.available) return finish(blankResult("error", null, `CBC is not available: ${info.detail}`), started);
      if (hasQuadratic(problem)) return finish(blankResult("error", version, "CBC does not take quadratic objective terms"), started);

      const main = await run(problem, settings, context, "solve");
      if (main.outcome.stopped) return finish(stoppedResult(main.outcome.stopped, main.progress, version, settings.timeLimitSeconds, "CBC"), started);

      const result = blankResult("error", version);
      result.settings_applied = main.log.echoed;
      result.solver_time_seconds = main.log.wallSeconds;
      result.iterations = main.log.iterations;
      result.nodes = main.log.nodes;
      const sol = main.solution;
      if (!sol) {
        result.error_message = `CBC wrote no solution (exit ${main.outcome.exitCode ?? main.outcome.exitSignal}): ${lastLines(main.outcome.stdout + main.outcome.stderr)}`;
        return finish(result, started);
      }
      const toOriginal = (v: number | null) => (v === null ? null : originalObjective(main.written, v));
      const fillIncumbent = () => {
        result.objective_value = toOriginal(sol.objective);
        result.solution = values(main);
      };

      const lpStageInfeasible = sol.status === "infeasible";
      const unboundedClaim = sol.status === "unbounded";
      const integerInfeasible = sol.status === "integer_infeasible";
      if (sol.status === "optimal") {
        result.solver_status = "optimal";
        fillIncumbent();
        // A search stopped within the gap tolerance prints its bound; a closed one's bound is its optimum.
        const bound = hasIntegers(problem) ? (main.log.bestPossible ?? main.log.lowerBound) : null;
        result.dual_bound = bound === null ? result.objective_value : toOriginal(bound);
      } else if (integerInfeasible && main.log.undecidedRemarks.length === 0) {
        result.solver_status = "infeasible";
      } else if (lpStageInfeasible || unboundedClaim || integerInfeasible) {
        // CBC's claim is checked before it is believed (see the file comment).
        const claim = `CBC said "${sol.headline}"${main.log.undecidedRemarks.length ? ` (${main.log.undecidedRemarks.join("; ")})` : ""}`;
        let extraSeconds = 0;
        const settled = await settleInfeasibleOrUnbounded(problem, claim, async (aux, purpose): Promise<AuxiliaryAnswer> => {
          const remaining = Math.max(1, settings.timeLimitSeconds - (performance.now() - started) / 1000);
          const r = await run(aux, { ...settings, timeLimitSeconds: remaining }, context, purpose);
          extraSeconds += r.log.wallSeconds ?? 0;
          const s = r.solution?.status;
          return {
            status: s === "optimal" ? "optimal" : s === "infeasible" || s === "integer_infeasible" ? "infeasible" : "other",
            values: s === "optimal" ? values(r) : null,
            words: words(r),
          };
        });
        result.solver_time_seconds = (result.solver_time_seconds ?? 0) + extraSeconds;
        if (settled.status === "error") result.error_message = settled.message;
        else result.solver_status = settled.status;
      } else if (sol.status.startsWith("stopped_on")) {
        // A MILP's listed values are an integer solution. An LP's are wherever simplex stopped, an
        // incumbent only if feasible, which is checked (CBC marks such an LP "Stopped on iterations").
        const usable = sol.hasIncumbent && (hasIntegers(problem) || pointViolation(problem, values(main)).worst <= POINT_TOLERANCE);
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
