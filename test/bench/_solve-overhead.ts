/**
 * The service's overhead on a plain solve: `POST /api/v2/solve` of one small instance through the whole
 * local stack (API → DynamoDB → queue → a long-lived worker → DynamoDB → the API's wait), per solver,
 * beside a direct call of the same adapter in this process, in the same run, interleaved in rounds.
 * Each request is sent when every worker is idle with its solvers warm (a worker re-warms after a job:
 * a jaos child started ahead, ~1 s of CPU), and each direct call likewise once this process's toolkit
 * is warm again: neither side's warm-up runs beside the other's timing.
 *
 * Columns (medians over the rounds, ms):
 *  - e2e:            the HTTP request as the client sees it, from sending to the last byte;
 *  - solver wall:    `wall_time_ms` in the response: the adapter's own wall time inside the worker
 *                    (child process, model hand-over, solve, result read back);
 *  - overhead:       e2e − solver wall, per request: what the service adds around the solver
 *                    (HTTP, auth, validation, charges, DynamoDB writes and reads, the queue, the wait);
 *  - direct wall:    the same adapter called here, with a warm toolkit as a worker has one (this
 *                    process runs from sources: its jaos child loads the engine through tsx);
 *  - p90 overhead:   the 90th percentile of the overhead.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { readProblemFile } from "../../functions/core/problem/index.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { resolveSettings, toSolveSettings } from "../../functions/core/solvers/settings.js";
import { SOLVER_NAMES, type SolverName } from "../../functions/core/solvers/types.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { INSTANCES_DIR } from "../support/machine.js";
import type { startTestStack } from "../support/test-stack.js";
import { median, percentile, table } from "./_stats.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

export const OVERHEAD_TARGET_MS = 30;

export async function solveOverhead(stack: Stack, rounds: number, instance = "afiro.mps"): Promise<void> {
  const problem: Problem = readProblemFile(readFileSync(path.join(INSTANCES_DIR, instance), "utf8"), "auto", instance);
  const available = new Set(stack.solvers.filter((s) => s.available).map((s) => s.name));
  const solvers = SOLVER_NAMES.filter((s) => available.has(s));
  const toolkit = await createSolverToolkit(stack.config, { warm: true });
  const settings = toSolveSettings(resolveSettings(stack.config, undefined));
  const samples = new Map<SolverName, { e2e: number[]; wall: number[]; overhead: number[]; direct: number[]; status: string }>();
  for (const s of solvers) samples.set(s, { e2e: [], wall: [], overhead: [], direct: [], status: "" });
  try {
    await toolkit.inventory();
    // Warm-up round, not counted: the first request of each solver loads code paths once per process.
    for (const s of solvers) {
      await stack.api.post("/api/v2/solve", { problem, solver_name: s });
      await toolkit.solve(s, problem, settings, { killGraceSeconds: stack.config.killGraceSeconds });
      await toolkit.prepare();
    }
    for (let round = 0; round < rounds; round++) {
      for (const s of solvers) {
        const row = samples.get(s)!;
        // Each request meets the fleet idle and warm, as between users' requests on a service in use.
        await stack.workers.idle();
        const t = performance.now();
        const res = await stack.api.post("/api/v2/solve", { problem, solver_name: s });
        const e2e = performance.now() - t;
        if (res.status !== 200) throw new Error(`${s}: HTTP ${res.status} ${res.text}`);
        row.status = res.body.solver_status;
        row.e2e.push(e2e);
        row.wall.push(res.body.wall_time_ms);
        row.overhead.push(e2e - res.body.wall_time_ms);
        const direct = await toolkit.solve(s, problem, settings, { killGraceSeconds: stack.config.killGraceSeconds });
        await toolkit.prepare(); // as a worker does when a job has ended (waited for: it must not slow the next request)
        row.direct.push(direct.wall_time_ms ?? NaN);
      }
    }
  } finally {
    await toolkit.close();
  }
  const rows = solvers.map((s) => {
    const r = samples.get(s)!;
    const overhead = median(r.overhead);
    return [
      s,
      r.status,
      median(r.e2e),
      median(r.wall),
      overhead,
      median(r.direct),
      percentile(
        [...r.overhead].sort((a, b) => a - b),
        90,
      ),
      overhead <= OVERHEAD_TARGET_MS ? "yes" : "NO",
    ];
  });
  console.log(`\nPOST /api/v2/solve of ${instance}, ${rounds} rounds per solver, one request at a time (medians, ms)\n`);
  console.log(table(["solver", "verdict", "e2e", "solver wall", "overhead", "direct wall", "p90 overhead", `≤ ${OVERHEAD_TARGET_MS} ms`], rows));
  console.log("(overhead = e2e − the solver's wall_time_ms in the response; direct wall = the same adapter called in this process)");
}
