/**
 * `npm run bench -- auto [--limit 30] [--solvers highs,scip,…] [--save file.json] [--from file.json] [--write] [--study]`:
 * how well `auto` learns from comparisons (issue 29, Build 2). Every instance of the scale set is solved
 * once by each solver (the toolkit, warm, one at a time, time limit `--limit` seconds, gap 1e-4); a run is
 * solved right when its status and objective match the manifest's known answer (objective within 1e-4
 * relative for a MILP, 1e-5 for an LP), else it counts at the time limit. The instances, sorted by name,
 * are split alternately: the even ones (0, 2, …) are the history, as an organization's comparisons; on the
 * odd ones (held back) `auto` chooses from that history alone (solvers/recommendation/recommender.ts),
 * and the table shows how often it picked the fastest solver and its total time against always-HiGHS
 * and against the best solver in hindsight. It is measured twice: with every feature of the history, and
 * with the history as the service reads it from comparison records (no nonzero or integer counts there).
 *
 * `--save` keeps the measured runs, `--from` reuses them (no solving); `--write` writes every instance's
 * runs as the public benchmark table shipped with the service (solvers/recommendation/public-benchmark.json);
 * `--study` shows how the neighbourhood was chosen (leave-one-out on the history only).
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../functions/core/config.js";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { numericsOf } from "../../functions/core/problem/numerics.js";
import { type Problem, problemStats } from "../../functions/core/problem/schema.js";
import { featuresOf, sizesOfStats } from "../../functions/core/solvers/recommendation/features.js";
import { countedSeconds, type Observation } from "../../functions/core/solvers/recommendation/observations.js";
import type { PublicBenchmark } from "../../functions/core/solvers/recommendation/public-benchmark.js";
import { recommend, type Tuning } from "../../functions/core/solvers/recommendation/recommender.js";
import { expressibilityGap } from "../../functions/core/solvers/registry.js";
import type { SolverName } from "../../functions/core/solvers/types.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { REPO_ROOT } from "../support/machine.js";
import { instanceSetDir, objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { table } from "./_stats.js";

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = args[i + 1] ?? fallback;
  args.splice(i, 2);
  return value;
}

function flag(args: string[], name: string): boolean {
  const i = args.indexOf(`--${name}`);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
}

const PUBLIC_TABLE = path.join(REPO_ROOT, "functions/core/solvers/recommendation/public-benchmark.json");

interface Measured {
  limit: number;
  solvers: SolverName[];
  measured_at: string;
  observations: Observation[];
}

async function measure(solversAsked: string | null, limit: number, filter: string[]): Promise<Measured> {
  const entries = readManifest(instanceSetDir("scale")).filter((m) => filter.length === 0 || filter.some((a) => m.file.includes(a)));
  const config = loadConfig({});
  const toolkit = await createSolverToolkit(config, { warm: true });
  await toolkit.prepare();
  const observations: Observation[] = [];
  let solvers: SolverName[] = [];
  try {
    const available = (await toolkit.inventory()).filter((s) => s.available).map((s) => s.name as SolverName);
    solvers = solversAsked ? (solversAsked.split(",") as SolverName[]).filter((s) => available.includes(s)) : available;
    for (const entry of entries) {
      const problem = readProblemFile(readInstance(entry), { format: "auto", filename: entry.file }) as Problem;
      const stats = problemStats(problem);
      const features = featuresOf(sizesOfStats(stats), numericsOf(problem));
      const runs: Observation["runs"] = [];
      for (const solver of solvers) {
        if (expressibilityGap(solver, stats.problem_class) !== null) continue;
        const started = performance.now();
        const r = await toolkit.solve(solver, {
          problem,
          settings: { timeLimitSeconds: limit, gapTolerance: 1e-4, threads: 1 },
          killGraceSeconds: config.killGraceSeconds,
        });
        const wall = (performance.now() - started) / 1000;
        const seconds = r.solver_time_seconds ?? wall;
        const tol = stats.problem_class === "MILP" ? 1e-4 : 1e-5;
        const solved =
          r.solver_status === entry.expectedStatus && (entry.expectedObjective === null || objectiveMatches(r.objective_value, entry.expectedObjective, tol));
        runs.push({ solver, seconds, solved, time_limit_seconds: limit });
        console.error(`[auto bench] ${entry.file} ${solver}: ${r.solver_status}${solved ? "" : " (not solved right)"} in ${seconds.toFixed(2)} s`);
      }
      observations.push({ id: entry.file, source: "public", features, runs });
    }
  } finally {
    await toolkit.close();
  }
  return { limit, solvers, measured_at: new Date().toISOString(), observations };
}

const secondsOf = (o: Observation, solver: string): number | null => {
  const run = o.runs.find((r) => r.solver === solver);
  return run ? countedSeconds(run) : null;
};

export default async function bench(argv: string[]): Promise<void> {
  const args = [...argv];
  const limit = Number(option(args, "limit", "30"));
  const solversAsked = option(args, "solvers", "");
  const save = option(args, "save", "");
  const from = option(args, "from", "");
  const write = flag(args, "write");
  const study = flag(args, "study");
  const measured: Measured = from ? JSON.parse(readFileSync(from, "utf8")) : await measure(solversAsked || null, limit, args);
  if (save) writeFileSync(save, JSON.stringify(measured, null, 1));
  if (write) {
    const shipped: PublicBenchmark = {
      generated_by: `npm run bench -- auto --write (test/bench/auto.ts), time limit ${measured.limit} s, solvers ${measured.solvers.join(", ")}`,
      measured_at: measured.measured_at,
      machine_note: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), one solve at a time, 1 thread each`,
      observations: measured.observations.map(({ id, features, runs }) => ({ id, features, runs })),
    };
    writeFileSync(PUBLIC_TABLE, `${JSON.stringify(shipped, null, 1)}\n`);
  }

  // The fixed split: sorted by name, even positions are the history, odd ones held back.
  const sorted = [...measured.observations].sort((a, b) => (a.id < b.id ? -1 : 1));
  const history = sorted.filter((_, i) => i % 2 === 0).map((o) => ({ ...o, source: "organization" as const }));
  const heldBack = sorted.filter((_, i) => i % 2 === 1);
  console.log(
    `scale set, ${measured.solvers.join(", ")}, limit ${measured.limit} s; history ${history.length} instances (even positions by name), held back ${heldBack.length}\n`,
  );
  evaluate("with every feature", history, heldBack, true);
  // A comparison record keeps no nonzero or integer counts: the history as `auto` reads it in the service.
  const recorded = history.map((o) => ({ ...o, features: { ...o.features, log_nonzeros: null, integer_share: null } }));
  evaluate("with the history as comparison records keep it (no nonzeros, no integer share)", recorded, heldBack, false);
  if (study) studyNeighbourhoods(history, sorted);
}

/**
 * How K_NEAREST and MAX_DISTANCE were chosen: leave-one-out on the history alone (each history instance
 * judged by the others), never on the held-back half; and what a public table of every instance would do
 * for an organization without comparisons (leave-one-out over all of them).
 */
function studyNeighbourhoods(history: Observation[], all: Observation[]): void {
  const judge = (tests: Observation[], pool: Observation[], tuning: Tuning, as: "organization" | "public") => {
    let total = 0;
    let fastest = 0;
    for (const o of tests) {
      const others = pool.filter((x) => x.id !== o.id);
      const available = new Set(o.runs.map((x) => x.solver));
      const r = recommend({
        features: o.features,
        available,
        organization: as === "organization" ? others : [],
        public: as === "public" ? others : [],
        tuning,
      });
      if (!r) continue;
      const t = secondsOf(o, r.solver)!;
      total += t;
      if (t === Math.min(...o.runs.map(countedSeconds))) fastest++;
    }
    return `fastest on ${fastest} of ${tests.length}, total ${total.toFixed(1)} s`;
  };
  console.log("\nleave-one-out on the history (how the neighbourhood was chosen):");
  for (const k of [3, 5, 7, 9, 15])
    for (const maxDistance of [0.5, 1, 1.5, 3]) console.log(`  k ${k}, within ${maxDistance}: ${judge(history, history, { k, maxDistance }, "organization")}`);
  const highs = all.reduce((sum, o) => sum + (secondsOf(o, "highs") ?? 0), 0);
  const best = all.reduce((sum, o) => sum + Math.min(...o.runs.map(countedSeconds)), 0);
  console.log(
    `\na public table of all ${all.length} instances, leave-one-out: auto ${judge(all, all, {}, "public")}; always-HiGHS total ${highs.toFixed(1)} s; best in hindsight ${best.toFixed(1)} s`,
  );
}

function evaluate(title: string, history: Observation[], heldBack: Observation[], printRows: boolean): void {
  const rows: (string | number)[][] = [];
  const totals = { auto: 0, highs: 0, best: 0 };
  const fastest = { auto: 0, highs: 0 };
  const bases: Record<string, number> = {};
  for (const o of heldBack) {
    const solvers = o.runs.map((r) => r.solver);
    const r = recommend({ features: o.features, available: new Set(solvers), organization: history, public: [] });
    if (!r) continue;
    const best = Math.min(...o.runs.map(countedSeconds));
    const autoTime = secondsOf(o, r.solver)!;
    const highsTime = secondsOf(o, "highs") ?? best;
    totals.auto += autoTime;
    totals.highs += highsTime;
    totals.best += best;
    if (autoTime === best) fastest.auto++;
    if (highsTime === best) fastest.highs++;
    bases[r.basis] = (bases[r.basis] ?? 0) + 1;
    const winner = o.runs.find((run) => countedSeconds(run) === best)!.solver;
    rows.push([o.id, o.features.problem_class, winner, best.toFixed(2), r.solver, autoTime.toFixed(2), highsTime.toFixed(2), r.basis]);
  }
  if (printRows) console.log(table(["held-back instance", "class", "fastest", "best s", "auto picked", "auto s", "HiGHS s", "basis"], rows));
  const n = rows.length;
  console.log(
    [
      `\n${title}:`,
      `auto picked the fastest on ${fastest.auto} of ${n}; always-HiGHS was the fastest on ${fastest.highs} of ${n}`,
      `total time: auto ${totals.auto.toFixed(1)} s, always-HiGHS ${totals.highs.toFixed(1)} s, best in hindsight ${totals.best.toFixed(1)} s` +
        ` (auto ${(totals.auto / totals.best).toFixed(2)}×, HiGHS ${(totals.highs / totals.best).toFixed(2)}× the best)`,
      `auto decided by: ${Object.entries(bases)
        .map(([b, k]) => `${b} ${k}`)
        .join(", ")}`,
    ].join("\n"),
  );
}
