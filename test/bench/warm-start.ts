/**
 * `npm run bench -- warm-start [instance-substring …] [--repeats N]`: what a MIP start is worth when
 * a model's data changes a little between two solves (a trigger's `warm_start: "previous_run"`,
 * issue 29). Per instance: the MILP is solved once (the "previous run"); its objective coefficients are
 * then perturbed by up to ±2 % (so the previous solution stays feasible but is no longer known optimal),
 * and the perturbed MILP is solved cold and warm (the previous solution as settings.initialSolution),
 * alternately, `repeats` times, through the same adapters the worker uses. Reported per solver that
 * takes a start: whether it was accepted, the median time to the first incumbent it streamed, to an
 * incumbent within 1 % of the optimum, and the median total time, cold and warm, with warm / cold as
 * ratios (below 1: the start helped). A solver finds some poor incumbent fast on its own; the second
 * measure is the one a warm start is for.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import type { SolveSettings, SolverName } from "../../functions/core/solvers/types.js";
import { createAdapters } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import type { AdapterResult, SolveContext } from "../../solver-container/src/adapters/types.js";
import { readInstance } from "../support/manifest.js";
import { median, table } from "./_stats.js";

const SOLVERS: SolverName[] = ["highs", "scip", "cbc"];
const DEFAULT_INSTANCES = ["p0548.mps.gz", "dcmulti.mps.gz", "misc03.mps.gz", "bell5.mps.gz"];
const LIMIT = 60;
const PERTURBATION = 0.02;

/** A deterministic pseudo-random sequence (mulberry32), so every run perturbs the same way. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same model with each objective coefficient scaled by a factor in [1 − p, 1 + p]. */
function perturbed(problem: Problem, seed: number): Problem {
  const next = random(seed);
  return {
    ...problem,
    objective: { ...problem.objective, terms: problem.objective.terms.map((t) => ({ ...t, coef: t.coef * (1 + PERTURBATION * (2 * next() - 1)) })) },
  };
}

interface Timed {
  result: AdapterResult;
  firstIncumbentMs: number | null;
  /** Every incumbent streamed, with when (ms after the solve began). */
  incumbents: { ms: number; value: number }[];
  totalMs: number;
}

/** When the solve first held an incumbent within 1 % of `best` (its end when it streamed none that close). */
function nearOptimalMs(t: Timed, best: number): number {
  const close = (v: number) => Math.abs(v - best) <= 0.01 * Math.max(1, Math.abs(best));
  return t.incumbents.find((i) => close(i.value))?.ms ?? t.totalMs;
}

export default async function bench(args: string[]): Promise<void> {
  const repeatsAt = args.indexOf("--repeats");
  const repeats = repeatsAt >= 0 ? Number(args[repeatsAt + 1]) : 3;
  const filters = args.filter((a, i) => !a.startsWith("--") && i !== repeatsAt + 1);
  const instances = filters.length > 0 ? filters.map((f) => (f.includes(".") ? f : `${f}.mps.gz`)) : DEFAULT_INSTANCES;
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  const workDir = mkdtempSync(path.join(tmpdir(), "incumbent-bench-warm-"));
  await python.startHost();
  const adapters = createAdapters({ python });
  const settings = (start?: Record<string, number>): SolveSettings => ({
    timeLimitSeconds: LIMIT,
    gapTolerance: 1e-4,
    threads: 1,
    ...(start ? { initialSolution: start } : {}),
  });

  const timed = async (solver: SolverName, problem: Problem, s: SolveSettings): Promise<Timed> => {
    const started = performance.now();
    let firstIncumbentMs: number | null = null;
    const incumbents: { ms: number; value: number }[] = [];
    const context: SolveContext = {
      workDir: mkdtempSync(path.join(workDir, "solve-")),
      killGraceSeconds: 5,
      progress: {
        point: (p) => {
          if (p.incumbent === null) return;
          const ms = performance.now() - started;
          firstIncumbentMs ??= ms;
          if (incumbents.at(-1)?.value !== p.incumbent) incumbents.push({ ms, value: p.incumbent });
        },
        line: () => undefined,
      },
    };
    const result = await adapters.get(solver)!.solve(problem, s, context);
    const totalMs = performance.now() - started;
    // A solve that streamed no incumbent but ended with one found it at the end.
    return { result, firstIncumbentMs: firstIncumbentMs ?? (result.solution ? totalMs : null), incumbents, totalMs };
  };

  const rows: (string | number)[][] = [];
  try {
    for (const [n, file] of instances.entries()) {
      const base = readMps(readInstance(file));
      const changed = perturbed(base, 29 + n);
      for (const solver of SOLVERS) {
        await python.startHost();
        const previous = await timed(solver, base, settings());
        if (!previous.result.solution) {
          rows.push([file, solver, `previous run: ${previous.result.solver_status}`, ...Array<string>(10).fill("")]);
          continue;
        }
        const cold: Timed[] = [];
        const warm: Timed[] = [];
        for (let r = 0; r < repeats; r++) {
          // Alternating which goes first, so neither always runs on a warmer machine.
          const pair = [() => timed(solver, changed, settings()), () => timed(solver, changed, settings(previous.result.solution!))];
          const order = r % 2 === 0 ? pair : [...pair].reverse();
          const first = await order[0]!();
          const second = await order[1]!();
          (r % 2 === 0 ? cold : warm).push(first);
          (r % 2 === 0 ? warm : cold).push(second);
        }
        const firstInc = (runs: Timed[]) => median(runs.map((t) => t.firstIncumbentMs ?? Number.NaN));
        const total = (runs: Timed[]) => median(runs.map((t) => t.totalMs));
        const accepted = warm.filter((t) => t.result.start_use?.solverAccepted !== false && t.result.start_use?.passed).length;
        // Both within the requested gap of each other (1e-4, relative).
        const agree = (a: number, b: number) => Math.abs(a - b) <= 2e-4 * Math.max(1, Math.abs(a));
        const objectivesAgree = cold.every((c) => warm.every((w) => agree(c.result.objective_value ?? 0, w.result.objective_value ?? 0)));
        const best = cold[0]!.result.objective_value ?? 0;
        const near = (runs: Timed[]) => median(runs.map((t) => nearOptimalMs(t, best)));
        rows.push([
          file,
          solver,
          `${accepted}/${warm.length}${objectivesAgree ? "" : " (objectives differ)"}`,
          firstInc(cold),
          firstInc(warm),
          firstInc(warm) / firstInc(cold),
          near(cold),
          near(warm),
          near(warm) / near(cold),
          total(cold),
          total(warm),
          total(warm) / total(cold),
          cold[0]!.result.solver_status,
        ]);
      }
    }
  } finally {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(
    `\nwarm starts: objective perturbed by up to ±${PERTURBATION * 100} %, the previous solution as the start; medians of ${repeats} cold/warm pairs (times in ms)\n`,
  );
  const headers = ["instance", "solver", "accepted", "first inc. cold", "first inc. warm", "ratio", "≤1 % cold", "≤1 % warm", "ratio"];
  console.log(table([...headers, "total cold", "total warm", "ratio", "verdict"], rows));
  const ratios = (column: number) => rows.map((r) => Number(r[column])).filter(Number.isFinite);
  console.log(`\nmedian warm / cold ratios over ${ratios(5).length} instance × solver pairs:`);
  console.log(
    `  time to the first incumbent ${median(ratios(5)).toFixed(3)}; to one within 1 % of the optimum ${median(ratios(8)).toFixed(3)}; total ${median(ratios(11)).toFixed(3)}`,
  );
}
