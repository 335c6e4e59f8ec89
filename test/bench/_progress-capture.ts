/**
 * What live progress costs a solve: each solver on the same MILP, called through its adapter as a
 * worker calls it (warm Python host, jaos child started ahead), once with a progress recorder writing to
 * the stack's table and blob store (log lines forwarded, CBC line-buffered, HiGHS reporting from its
 * interrupt callback) and once without, side by side in rounds whose order alternates.
 *
 * Measured per solve: the CPU time of the solving processes (from /proc: the reaped CLI and Node
 * children of this process, or the Python host and the solve child it reaped), which other load on a
 * shared machine does not inflate, and the wall time beside it. Also the CPU this process spent
 * beyond the solve with capture on (the recorder, and the local emulators taking its writes).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { newId } from "../../functions/core/ids.js";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { ProgressRecorder } from "../../functions/core/progress/recorder.js";
import { SOLVER_NAMES } from "../../functions/core/solvers/types.js";
import { createDefaultAdapters } from "../../solver-container/src/adapters/index.js";
import { readInstance } from "../support/manifest.js";
import type { startTestStack } from "../support/test-stack.js";
import { median, table } from "./_stats.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
type Side = "with" | "without";

const TICK_MS = 10; // Linux reports process times in clock ticks of 1/100 s

/** utime + stime (+ cutime + cstime: children waited for) of a process, in ms. */
function cpuMs(pid: number | "self", withChildren = true): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  const own = f[11]! + f[12]!;
  return (withChildren ? own + f[13]! + f[14]! : own) * TICK_MS;
}

export async function progressCaptureCost(stack: Stack, file = "misc03.mps", rounds = 5): Promise<number[]> {
  const problem = readProblemFile(readInstance(file), { format: "auto", filename: file });
  const settings = { timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1 };
  const { adapters, python } = createDefaultAdapters(stack.config.pythonPath);
  await python.startHost();
  const rows: (string | number)[][] = [];
  const ratios: number[] = [];
  try {
    for (const solver of SOLVER_NAMES) {
      const adapter = adapters.get(solver)!;
      const cpu: Record<Side, number[]> = { with: [], without: [] };
      const wall: Record<Side, number[]> = { with: [], without: [] };
      const workerCpu: Record<Side, number[]> = { with: [], without: [] };
      for (let round = 0; round < rounds; round++) {
        const order: Side[] = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
        for (const side of order) {
          await adapter.warm?.({ memoryMb: stack.config.solverMemoryMb });
          const workDir = await mkdtemp(path.join(os.tmpdir(), "incumbent-bench-"));
          const recorder =
            side === "with"
              ? new ProgressRecorder(stack.services.progressStore, { orgId: "bench", executionId: newId("exe", Date.now()) }, { sense: problem.sense })
              : null;
          const solverPid = solver === "scip" || solver === "highs" ? python.hostPid! : "self";
          const cpuBefore = cpuMs(solverPid);
          const selfBefore = process.cpuUsage();
          const started = performance.now();
          const result = await adapter.solve(problem, settings, {
            workDir,
            killGraceSeconds: 5,
            memoryMb: stack.config.solverMemoryMb,
            progress: recorder?.sink,
          });
          await recorder?.close();
          wall[side].push(performance.now() - started);
          const self = process.cpuUsage(selfBefore);
          // Solver CPU: reaped children of this process (CLI, Node child), or the Python host with its solve child.
          cpu[side].push(cpuMs(solverPid) - cpuBefore);
          workerCpu[side].push((self.user + self.system) / 1000);
          await rm(workDir, { recursive: true, force: true });
          if (result.solver_status !== "optimal") throw new Error(`${solver} on ${file}: ${result.solver_status} ${result.error_message ?? ""}`);
        }
      }
      const ratio = median(cpu.with) / median(cpu.without);
      ratios.push(ratio);
      rows.push([
        solver,
        median(cpu.without),
        median(cpu.with),
        ratio,
        Math.min(...wall.without),
        Math.min(...wall.with),
        Math.min(...wall.with) / Math.min(...wall.without),
        median(workerCpu.with) - median(workerCpu.without),
      ]);
    }
  } finally {
    await python.stopHost();
    await Promise.all([...adapters.values()].map((a) => a.close?.()));
  }
  console.log(`\nprogress capture on ${file}: each solver with and without a recorder, ${rounds} rounds in alternating order (ms)\n`);
  console.log(
    table(["solver", "solver CPU without", "with capture", "CPU ratio", "fastest wall without", "with capture", "wall ratio", "worker CPU added"], rows),
  );
  console.log(
    `median over solvers of the solver-CPU ratio with/without: ${median(ratios).toFixed(3)}× (target ≤ 1.05×); worst ${Math.max(...ratios).toFixed(3)}×`,
  );
  return ratios;
}
