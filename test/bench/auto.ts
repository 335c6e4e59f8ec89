/**
 * `npm run bench -- auto [--limit 30] [--solvers highs,scip,…] [--splits 20] [--save file.json] [--from file.json] [--write] [--rows]
 *  [--losses] [--selection best|one-se] [--no-service]`:
 * how well `auto` learns from comparisons (issue 29, Build 2). Every instance of the scale set is solved
 * once by each solver (the toolkit, warm, one at a time, time limit `--limit` seconds, gap 1e-4); a run is
 * solved right when its status and objective match the manifest's known answer (objective within 1e-4
 * relative for a MILP, 1e-5 for an LP), else it counts at the time limit. `auto`'s choice is priced as the
 * service runs it: a chosen solver other than the default that ends in an error or a wrong answer well before
 * its limit falls back to the default (its own time plus the default's, capped at the limit; _auto-splits.ts).
 *
 * Evaluated over several splits: the stated one (sorted by name, even positions the history, odd ones
 * held back) and `--splits` seeded random half splits stratified by class (test/bench/_auto-splits.ts).
 * In each split the history half plays an organization's comparisons and `auto` chooses for each
 * held-back instance from it alone. Every parameter (k, radius, shrinkage, confidence, distance weights,
 * structure features) is chosen only from the history half of each split, by leave-one-out inside it,
 * never from the held-back half (two ways of choosing, both reported: the least leave-one-out total, and
 * the one-standard-error rule). Reported per split and in aggregate: how often `auto` beats, ties or
 * loses to always-HiGHS on "picked the fastest" and on "total time closer to the best in hindsight".
 *
 * `--save` keeps the measured runs, `--from` reuses them (no solving; structure counts missing from an
 * older file are computed from the instance files); `--write` writes every instance's runs as the public
 * benchmark table shipped with the service (solvers/recommendation/public-benchmark.json); `--rows` prints
 * the stated split's held-back choices with their reasons; `--losses` prints, in every split, the held-back
 * choices that cost or saved more than LOSS_SECONDS against always-HiGHS, with the reasons they were made for.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../functions/core/config.js";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { numericsOf } from "../../functions/core/problem/numerics.js";
import { type Problem, problemStats } from "../../functions/core/problem/schema.js";
import { featuresOf, sizesOfStats } from "../../functions/core/solvers/recommendation/features.js";
import type { Observation } from "../../functions/core/solvers/recommendation/observations.js";
import type { PublicBenchmark } from "../../functions/core/solvers/recommendation/public-benchmark.js";
import {
  CONFIDENCE,
  DISTANCE_WEIGHTED,
  FAILURE_PRIOR,
  K_NEAREST,
  MAX_DISTANCE,
  PRIOR,
  SCALE,
  SHRINKAGE,
  STRUCTURE,
  UNSEEN_FAILURES,
} from "../../functions/core/solvers/recommendation/recommender.js";
import { structureCountsOf, structureShares } from "../../functions/core/solvers/recommendation/structure.js";
import { expressibilityGap } from "../../functions/core/solvers/registry.js";
import type { SolverName } from "../../functions/core/solvers/types.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { REPO_ROOT } from "../support/machine.js";
import { instanceSetDir, objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { table } from "./_stats.js";
import {
  chooseByLeaveOneOut,
  describeSetting,
  evaluateSplit,
  judge,
  type Outcome,
  type Selection,
  type Setting,
  type Split,
  settingsGrid,
  splitsOf,
} from "./_auto-splits.js";

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

export interface Measured {
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
      const features = featuresOf({ ...sizesOfStats(stats), structure: structureCountsOf(problem) }, numericsOf(problem));
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

/** Structure shares for a saved file measured before they existed: computed from the instance files (no solving). */
export function withStructure(measured: Measured): Measured {
  if (measured.observations.every((o) => o.features.set_share != null || o.features.problem_class !== "MILP")) return measured;
  const entries = new Map(readManifest(instanceSetDir("scale")).map((m) => [m.file, m]));
  const observations = measured.observations.map((o) => {
    const entry = entries.get(o.id);
    if (!entry) return o;
    const problem = readProblemFile(readInstance(entry), { format: "auto", filename: entry.file }) as Problem;
    return { ...o, features: { ...o.features, ...structureShares(structureCountsOf(problem)) } };
  });
  return { ...measured, observations };
}

export default async function bench(argv: string[]): Promise<void> {
  const args = [...argv];
  const limit = Number(option(args, "limit", "30"));
  const solversAsked = option(args, "solvers", "");
  const save = option(args, "save", "");
  const from = option(args, "from", "");
  const splitCount = Number(option(args, "splits", "20"));
  const write = flag(args, "write");
  const rows = flag(args, "rows");
  const losses = flag(args, "losses");
  // One selection only, and no service-constants look: a replay in half the time or less on a loaded machine.
  const only = option(args, "selection", "");
  const skipService = flag(args, "no-service");
  const measured: Measured = withStructure(from ? JSON.parse(readFileSync(from, "utf8")) : await measure(solversAsked || null, limit, args));
  if (save) writeFileSync(save, JSON.stringify(measured, null, 1));
  if (write) {
    const shipped: PublicBenchmark = {
      generated_by: `npm run bench -- auto --write (test/bench/auto.ts), time limit ${measured.limit} s, solvers ${measured.solvers.join(", ")}`,
      measured_at: measured.measured_at,
      machine_note: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), one solve at a time, 1 thread each`,
      observations: measured.observations.map(({ id, features, runs }) => ({ id, features, runs })),
    };
    writeFileSync(PUBLIC_TABLE, `${JSON.stringify(shipped, null, 2)}\n`);
  }
  console.log(
    `scale set, ${measured.observations.length} instances, ${measured.solvers.join(", ")}, limit ${measured.limit} s, measured ${measured.measured_at}\n` +
      "Every parameter is chosen only from the history half of each split (leave-one-out inside the history), never from the held-back half.\n",
  );
  const grid = settingsGrid();
  const splits = splitsOf(measured.observations, splitCount);
  for (const selection of ["best", "one-se"] as const) if (!only || only === selection) evaluateSplits(splits, grid, selection, { rows, losses });
  if (!skipService) serviceSetting(measured.observations, grid);
}

/** Each split: the setting chosen on its history by `selection`, judged on its held-back half; per split and in aggregate. */
function evaluateSplits(splits: Split[], grid: Setting[], selection: Selection, print: { rows: boolean; losses: boolean }): void {
  const perSplit: (string | number)[][] = [];
  const tally = { fastest: { beat: 0, tie: 0, lose: 0 }, total: { beat: 0, tie: 0, lose: 0 } };
  const sums = { auto: 0, highs: 0, best: 0, autoFastest: 0, highsFastest: 0, n: 0 };
  const chosenCount = new Map<string, number>();
  for (const split of splits) {
    const { setting, outcome: o } = evaluateSplit(split, grid, selection);
    const fastest = verdict(o.autoFastest - o.highsFastest);
    const total = verdict(o.highs - o.auto);
    tally.fastest[fastest]++;
    tally.total[total]++;
    sums.auto += o.auto;
    sums.highs += o.highs;
    sums.best += o.best;
    sums.autoFastest += o.autoFastest;
    sums.highsFastest += o.highsFastest;
    sums.n += o.n;
    chosenCount.set(describeSetting(setting), (chosenCount.get(describeSetting(setting)) ?? 0) + 1);
    perSplit.push([
      split.name,
      describeSetting(setting),
      `${o.autoFastest} / ${o.highsFastest} of ${o.n}`,
      fastest,
      o.auto.toFixed(1),
      o.highs.toFixed(1),
      o.best.toFixed(1),
      total,
    ]);
    if (print.rows && split === splits[0]) printPicks(split.heldBack, o);
    if (print.losses) printSwings(split.name, selection, o);
  }
  console.log(`\nsettings chosen on each history by leave-one-out, selection "${selection}":`);
  console.log(
    table(
      ["split", "chosen on the history (nested leave-one-out)", "fastest: auto / HiGHS", "auto vs HiGHS", "auto s", "HiGHS s", "best s", "auto vs HiGHS"],
      perSplit,
    ),
  );
  console.log(
    [
      `\nover ${splits.length} splits (${sums.n} held-back choices), selection "${selection}":`,
      `picked the fastest: auto beats always-HiGHS on ${tally.fastest.beat}, ties ${tally.fastest.tie}, loses ${tally.fastest.lose}` +
        ` (in all: auto ${sums.autoFastest}, HiGHS ${sums.highsFastest} of ${sums.n})`,
      `total time closer to the best in hindsight: auto beats always-HiGHS on ${tally.total.beat}, ties ${tally.total.tie}, loses ${tally.total.lose}` +
        ` (summed: auto ${sums.auto.toFixed(1)} s = ${(sums.auto / sums.best).toFixed(2)}× the best, HiGHS ${sums.highs.toFixed(1)} s = ${(sums.highs / sums.best).toFixed(2)}×, best ${sums.best.toFixed(1)} s)`,
      `settings chosen: ${[...chosenCount].map(([k, n]) => `${n}× ${k}`).join("; ")}`,
    ].join("\n"),
  );
}

/** How far from always-HiGHS a held-back choice must land to be printed by `--losses`. */
const LOSS_SECONDS = 2;

function printSwings(name: string, selection: Selection, o: Outcome): void {
  for (const p of o.picks) {
    const delta = p.seconds - p.highs;
    if (Math.abs(delta) < LOSS_SECONDS) continue;
    console.log(
      `[${selection}] ${name}: ${p.id} ${p.solver}${p.fellBackTo ? ` (fell back to ${p.fellBackTo})` : ""} ${p.seconds.toFixed(2)} s vs HiGHS ${p.highs.toFixed(2)} s (${delta > 0 ? "lost" : "saved"} ${Math.abs(delta).toFixed(1)} s) — ${p.reason}`,
    );
  }
}

const verdict = (margin: number): "beat" | "tie" | "lose" => (margin > 1e-9 ? "beat" : margin < -1e-9 ? "lose" : "tie");

function printPicks(heldBack: Observation[], o: Outcome): void {
  console.log("the stated split's held-back choices:");
  for (const p of o.picks) console.log(`  ${p.id}: ${p.solver}${p.fellBackTo ? ` (fell back to ${p.fellBackTo})` : ""} (${p.basis}) — ${p.reason}`);
  console.log(`  (${heldBack.length} held back)\n`);
}

/**
 * The service's constants (recommender.ts) are the setting leave-one-out over every instance likes (there is
 * no held-back half for the service); and what the same setting would do as a shipped public table for an
 * organization without comparisons (leave-one-out over all instances: in-sample for the setting).
 */
function serviceSetting(all: Observation[], grid: Setting[]): void {
  const { setting, outcome } = chooseByLeaveOneOut(all, grid, "best");
  const conservative = chooseByLeaveOneOut(all, grid, "one-se");
  const shipped: Setting = {
    tuning: {
      k: K_NEAREST,
      maxDistance: MAX_DISTANCE,
      shrinkage: SHRINKAGE,
      confidence: CONFIDENCE,
      distanceWeighted: DISTANCE_WEIGHTED,
      scale: SCALE,
      prior: PRIOR,
      failurePrior: FAILURE_PRIOR,
      unseenFailures: UNSEEN_FAILURES,
    },
    structure: STRUCTURE,
  };
  const now = judge(all, all, shipped);
  const line = (o: Outcome) =>
    `fastest on ${o.autoFastest} of ${o.n} (HiGHS ${o.highsFastest}); total ${o.auto.toFixed(1)} s against always-HiGHS ${o.highs.toFixed(1)} s, best ${o.best.toFixed(1)} s`;
  console.log(`\nleave-one-out over all ${all.length} instances likes: ${describeSetting(setting)}: ${line(outcome)}`);
  console.log(`  and by the one-standard-error rule: ${describeSetting(conservative.setting)}: ${line(conservative.outcome)}`);
  console.log(`the service's constants (${describeSetting(shipped)}), leave-one-out over all: ${line(now)}`);
}
