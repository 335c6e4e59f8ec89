/**
 * `npm run bench -- jaos [--time-limit 60] [--gap 1e-6] [--kind LP|MILP] [--only a.mps,b.mps]`
 *
 * Every manifest instance solved by jaos (in this process) and by native HiGHS (highspy, through the
 * HiGHS adapter's Python runner, one thread), one after the other in the same run. Times are each
 * solver's own solve time (model already in memory; HiGHS's getRunTime, jaos's solver_time_seconds).
 * Per kind it prints the ratio of shifted geometric means, shift 1 s:
 *
 *     sgm(t) = (Π (t_i + 1))^(1/k) − 1,   ratio = sgm(jaos) / sgm(HiGHS)
 *
 * and, for reference, the geometric mean of the per-instance ratios (t_jaos + 1) / (t_HiGHS + 1).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readLp } from "../../functions/core/problem/lp.js";
import { readMps } from "../../functions/core/problem/mps.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { solveJaos } from "../../functions/core/solvers/jaos/index.js";
import { createHighsAdapter } from "../../solver-container/src/adapters/highs.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { objectiveMatches, readManifest, type ManifestEntry } from "../support/manifest.js";

interface Row {
  entry: ManifestEntry;
  jaos: { status: string; seconds: number; objective: number | null; nodes: number | null };
  highs: { status: string; seconds: number; objective: number | null; nodes: number | null } | null;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function load(entry: ManifestEntry): Problem {
  const text = readFileSync(entry.path, "utf8");
  return entry.file.endsWith(".lp") ? readLp(text) : readMps(text);
}

const shiftedGeomean = (times: number[]) => Math.exp(times.reduce((s, t) => s + Math.log(t + 1), 0) / times.length) - 1;

function verdict(entry: ManifestEntry, status: string, objective: number | null): string {
  if (status !== entry.expectedStatus) return status === "time_limit" ? "limit" : "WRONG";
  if (status === "optimal" && !objectiveMatches(objective, entry.expectedObjective!)) return "WRONG";
  return "ok";
}

export default async function bench(args: string[]): Promise<void> {
  const timeLimit = Number(option(args, "time-limit") ?? 60);
  const gap = Number(option(args, "gap") ?? 1e-6);
  const kind = option(args, "kind");
  const only = option(args, "only")?.split(",");
  const entries = readManifest().filter((e) => (!kind || e.kind === kind) && (!only || only.includes(e.file)));

  const python = new PythonRuntime({ pythonPath: resolvePythonPath(process.env.SOLVER_PYTHON ?? ".venv/bin/python") });
  await python.startHost().catch(() => undefined);
  const highs = createHighsAdapter(python, "native");
  const probe = await highs.probe();
  if (!probe.available) console.log(`native HiGHS not available (${probe.detail ?? "?"}): jaos times only`);
  const workDir = mkdtempSync(path.join(tmpdir(), "bench-jaos-"));
  const settings = { timeLimitSeconds: timeLimit, gapTolerance: gap, threads: 1 };

  console.log(`jaos vs ${probe.version ?? "HiGHS"} — own solve times, time limit ${timeLimit} s, gap ${gap}, one thread`);
  console.log(`${"instance".padEnd(20)}${"kind".padEnd(6)}${"jaos s".padStart(9)} ${"".padEnd(6)}${"HiGHS s".padStart(9)} ${"".padEnd(6)}${"(tj+1)/(th+1)".padStart(14)}  nodes jaos/HiGHS`);
  const rows: Row[] = [];
  try {
    for (const entry of entries) {
      const problem = load(entry);
      const j = solveJaos(problem, { timeLimitSeconds: timeLimit, gapTolerance: gap });
      const row: Row = {
        entry,
        jaos: { status: j.solver_status, seconds: j.solver_time_seconds ?? timeLimit, objective: j.objective_value, nodes: j.nodes },
        highs: null,
      };
      if (probe.available) {
        const h = await highs.solve(problem, settings, { workDir, killGraceSeconds: 10 });
        row.highs = { status: h.solver_status, seconds: h.solver_time_seconds ?? (h.wall_time_ms ?? 0) / 1000, objective: h.objective_value, nodes: h.nodes };
      }
      rows.push(row);
      const ratio = row.highs ? ((row.jaos.seconds + 1) / (row.highs.seconds + 1)).toFixed(2) : "-";
      console.log(
        `${entry.file.padEnd(20)}${entry.kind.padEnd(6)}${row.jaos.seconds.toFixed(3).padStart(9)} ${verdict(entry, row.jaos.status, row.jaos.objective).padEnd(6)}` +
          `${row.highs ? row.highs.seconds.toFixed(3).padStart(9) : "-".padStart(9)} ${row.highs ? verdict(entry, row.highs.status, row.highs.objective).padEnd(6) : "".padEnd(6)}` +
          `${ratio.padStart(14)}  ${row.jaos.nodes ?? "-"}/${row.highs?.nodes ?? "-"}`,
      );
    }
  } finally {
    await python.stopHost().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }

  for (const k of ["LP", "MILP"] as const) {
    const group = rows.filter((r) => r.entry.kind === k && r.highs);
    if (group.length === 0) continue;
    const sj = shiftedGeomean(group.map((r) => r.jaos.seconds));
    const sh = shiftedGeomean(group.map((r) => r.highs!.seconds));
    const perInstance = Math.exp(group.reduce((s, r) => s + Math.log((r.jaos.seconds + 1) / (r.highs!.seconds + 1)), 0) / group.length);
    console.log(
      `${k.padEnd(5)} ${group.length} instances: shifted geometric mean (shift 1 s) jaos ${sj.toFixed(4)} s, HiGHS ${sh.toFixed(4)} s, ` +
        `ratio ${(sj / sh).toFixed(2)}${k === "LP" ? " (goal < 10)" : ""}; geometric mean of (tj+1)/(th+1) ${perInstance.toFixed(3)}`,
    );
  }
}
