/**
 * What live progress costs a solve: each solver on the same MILP, called through a warm toolkit as a
 * worker calls it, once with a progress recorder writing to the stack's table and blob store (log lines
 * forwarded, CBC line-buffered, HiGHS reporting from its interrupt callback) and once without, side by
 * side in rounds whose order alternates. Reports the medians and their ratio per solver.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { newId } from "../../functions/core/ids.js";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { ProgressRecorder } from "../../functions/core/progress/recorder.js";
import { SOLVER_NAMES } from "../../functions/core/solvers/types.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { INSTANCES_DIR } from "../support/machine.js";
import type { startTestStack } from "../support/test-stack.js";
import { median, table } from "./_stats.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

export async function progressCaptureCost(stack: Stack, file = "misc03.mps", rounds = 5): Promise<number[]> {
  const problem = readProblemFile(readFileSync(path.join(INSTANCES_DIR, file), "utf8"), "auto", file);
  const settings = { timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1 };
  const toolkit = await createSolverToolkit(stack.config, { warm: true });
  const rows: (string | number)[][] = [];
  const ratios: number[] = [];
  try {
    for (const solver of SOLVER_NAMES) {
      const timed: Record<"with" | "without", number[]> = { with: [], without: [] };
      let points = 0;
      for (let round = 0; round < rounds; round++) {
        const order: ("with" | "without")[] = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
        for (const side of order) {
          await toolkit.prepare();
          const recorder =
            side === "with" ? new ProgressRecorder(stack.services.progressStore, "bench", newId("exe", Date.now()), { sense: problem.sense }) : null;
          const started = performance.now();
          const result = await toolkit.solve(solver, problem, settings, { killGraceSeconds: 5, progress: recorder?.sink });
          await recorder?.close();
          timed[side].push(performance.now() - started);
          if (recorder) points = Math.max(points, recorder.incumbents().length);
          if (result.solver_status !== "optimal") throw new Error(`${solver} on ${file}: ${result.solver_status} ${result.error_message ?? ""}`);
        }
      }
      const ratio = Math.min(...timed.with) / Math.min(...timed.without);
      ratios.push(ratio);
      rows.push([solver, Math.min(...timed.without), Math.min(...timed.with), ratio, median(timed.with) / median(timed.without), points]);
    }
  } finally {
    await toolkit.close();
  }
  console.log(`\nprogress capture on ${file}: each solver with and without a recorder, ${rounds} rounds in alternating order (fastest of each side, ms)\n`);
  console.log(table(["solver", "without", "with capture", "ratio", "ratio of medians", "incumbents"], rows));
  console.log(`median over solvers of the ratio with/without: ${median(ratios).toFixed(3)}× (target ≤ 1.05×); worst ${Math.max(...ratios).toFixed(3)}×`);
  return ratios;
}
