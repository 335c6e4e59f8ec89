/**
 * `npm run bench -- gate [--set scale|main] [--solvers highs,scip,…] [--limit 60] [instance-substring …]`:
 * what the verification gate costs (issue 24: under 2 % of solve time). Each instance is solved once
 * per solver through `verifiedSolve`, with the solve port timed: the gate's own time is the call's
 * time minus the time inside the port's solves (numerics, the point check, the bound rule; a repeat or
 * a cross-check would be a solve, and is counted as one), as CPU time of this process (on a loaded
 * machine the wall time of a few milliseconds of work is mostly waiting for a core) and as wall time. It prints per row the solve and gate times,
 * the solver's own verdict beside the reported one, the verification and the largest violation, then
 * the total gate time over the total solve time. The solves run one at a time in this process's
 * toolkit (warm, as a worker's).
 */
import { loadConfig } from "../../functions/core/config.js";
import { readProblemFile } from "../../functions/core/problem/index.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import type { SolverName } from "../../functions/core/solvers/types.js";
import { verifiedSolve } from "../../functions/core/solvers/verification.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { instanceSetDir, readInstance, readManifest } from "../support/manifest.js";
import { table } from "./_stats.js";

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = args[i + 1] ?? fallback;
  args.splice(i, 2);
  return value;
}

export default async function bench(argv: string[]): Promise<void> {
  const args = [...argv];
  const set = option(args, "set", "scale");
  const solvers = option(args, "solvers", "highs").split(",") as SolverName[];
  const limit = Number(option(args, "limit", "60"));
  const entries = readManifest(instanceSetDir(set)).filter((m) => args.length === 0 || args.some((a) => m.file.includes(a)));
  const config = loadConfig({});
  const toolkit = await createSolverToolkit(config, { warm: true });
  await toolkit.prepare();
  const rows: (string | number)[][] = [];
  let solveMs = 0;
  let gateMs = 0;
  let gateWallMs = 0;
  let changed = 0;
  try {
    const available = (await toolkit.inventory()).filter((s) => s.available).map((s) => s.name as SolverName);
    for (const entry of entries) {
      const problem = readProblemFile(readInstance(entry), { format: "auto", filename: entry.file }) as Problem;
      for (const solver of solvers) {
        let inSolves = 0;
        let cpuInSolves = 0;
        let solves = 0;
        let claimed = "";
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        const out = await verifiedSolve({
          problem,
          solver,
          settings: { timeLimitSeconds: limit, gapTolerance: 1e-4, threads: 1 },
          crossCheckers: available,
          solve: async (name, p, s) => {
            const t = performance.now();
            const cpu = process.cpuUsage();
            try {
              const r = await toolkit.solve(name, { problem: p, settings: s, killGraceSeconds: config.killGraceSeconds });
              if (solves === 0) claimed = r.solver_status;
              return r;
            } finally {
              inSolves += performance.now() - t;
              cpuInSolves += cpuMs(process.cpuUsage(cpu));
              solves++;
            }
          },
        });
        const total = performance.now() - started;
        const gateWall = total - inSolves;
        // The gate's own CPU time in this process: on a shared machine its wall time is mostly waiting.
        const gate = cpuMs(process.cpuUsage(cpuStarted)) - cpuInSolves;
        solveMs += inSolves;
        gateMs += gate;
        gateWallMs += gateWall;
        if (out.status !== claimed) changed++;
        rows.push([
          entry.file,
          solver,
          Math.round(inSolves),
          gate.toFixed(2),
          gateWall.toFixed(2),
          `${((100 * gate) / Math.max(inSolves, 1e-9)).toFixed(3)} %`,
          claimed,
          out.status,
          out.verification.status,
          out.verification.max_violation === null ? "—" : out.verification.max_violation.toExponential(1),
          solves,
        ]);
        console.error(
          `[gate bench] ${entry.file} ${solver}: ${claimed} -> ${out.status} (${out.verification.status}) solve ${Math.round(inSolves)} ms, gate ${gate.toFixed(2)} ms CPU (${gateWall.toFixed(2)} ms wall)`,
        );
      }
    }
  } finally {
    await toolkit.close();
  }
  console.log(
    table(
      ["instance", "solver", "solve ms", "gate CPU ms", "gate wall ms", "gate CPU/solve", "solver said", "reported", "verification", "max violation", "solves"],
      rows,
    ),
  );
  console.log(
    `\n${set} set, ${solvers.join(", ")}, limit ${limit} s: gate ${gateMs.toFixed(1)} ms CPU (${gateWallMs.toFixed(1)} ms wall) over ${(solveMs / 1000).toFixed(1)} s of solves = ${((100 * gateMs) / solveMs).toFixed(3)} % CPU, ${((100 * gateWallMs) / solveMs).toFixed(3)} % wall (goal < 2 %); ${changed} verdict(s) changed by the gate`,
  );
}
