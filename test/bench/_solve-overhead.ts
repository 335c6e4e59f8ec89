import { readProblemFile } from "../../functions/core/problem/index.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { resolveSettings, toSolveSettings } from "../../functions/core/solvers/settings.js";
import { SOLVER_NAMES, type SolverName } from "../../functions/core/solvers/types.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { type TraceMarks, type TracePoint, traceTake } from "../../functions/core/trace/solve-trace.js";
import { readInstance } from "../support/manifest.js";
import type { startTestStack } from "../support/test-stack.js";
import { median, percentile, table } from "./_stats.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

export const OVERHEAD_TARGET_MS = 30;

/** The steps of the breakdown: from one mark to the next ("sent"/"done" are the client's own). */
const STEPS: [string, TracePoint | "sent", TracePoint | "done", string][] = [
  ["http in", "sent", "request_in", "client → server (connection, headers)"],
  ["admit", "request_in", "admitted", "auth, rate limit, body parse + validation, admission (credits, quota)"],
  ["record", "admitted", "recorded", "execution item written"],
  ["enqueue", "recorded", "enqueued", "job message sent"],
  ["queue", "enqueued", "received", "until a worker's receive returns it"],
  ["start", "received", "job_start", "message parsed, task protected, job dispatched"],
  ["acquire", "job_start", "acquired", "the lease (conditional update)"],
  ["load", "acquired", "solve_start", "the problem read"],
  ["solve", "solve_start", "solve_end", "the adapter's call (≈ solver wall)"],
  ["finish", "solve_end", "result_written", "result stored, item finished"],
  ["wait", "result_written", "api_seen", "until the API's wait sees it final"],
  ["answer", "api_seen", "response_out", "result read, response built"],
  ["http out", "response_out", "done", "response to the client"],
];

/** Must be set before the stack starts: the API and the workers read it. */
export function enableSolveTrace(): void {
  process.env.SOLVE_TRACE = "1";
}

const epochNow = () => performance.timeOrigin + performance.now();

export async function solveOverhead(stack: Stack, rounds: number, instance = "afiro.mps"): Promise<void> {
  const problem: Problem = readProblemFile(readInstance(instance), { format: "auto", filename: instance });
  const available = new Set(stack.solvers.filter((s) => s.available).map((s) => s.name));
  const solvers = SOLVER_NAMES.filter((s) => available.has(s));
  const toolkit = await createSolverToolkit(stack.config, { warm: true });
  const settings = toSolveSettings(resolveSettings(stack.config, undefined));
  const samples = new Map<SolverName, { e2e: number[]; wall: number[]; overhead: number[]; direct: number[]; status: string; traces: TraceMarks[] }>();
  const pending: { solver: SolverName; id: string; sent: number; done: number; wall: number }[] = [];
  for (const s of solvers) samples.set(s, { e2e: [], wall: [], overhead: [], direct: [], status: "", traces: [] });
  try {
    await toolkit.inventory();
    // Warm-up round, not counted: the first request of each solver loads code paths once per process.
    for (const s of solvers) {
      await stack.api.post("/api/v2/solve", { problem, solver_name: s });
      await toolkit.solve(s, { problem, settings, killGraceSeconds: stack.config.killGraceSeconds });
      await toolkit.prepare();
    }
    for (let round = 0; round < rounds; round++) {
      // The order rotates: the request after this process's own re-warming (a jaos child, ~1 s of CPU)
      // is not always the same solver's.
      for (const s of solvers.map((_, i) => solvers[(i + round) % solvers.length]!)) {
        const row = samples.get(s)!;
        // Each request meets the fleet idle and warm, as between users' requests on a service in use.
        await stack.workers.idle();
        const t = performance.now();
        const sent = epochNow();
        const res = await stack.api.post("/api/v2/solve", { problem, solver_name: s });
        const e2e = performance.now() - t;
        if (res.status !== 200) throw new Error(`${s}: HTTP ${res.status} ${res.text}`);
        pending.push({ solver: s, id: res.body.execution_id, sent, done: sent + e2e, wall: res.body.wall_time_ms });
        row.status = res.body.solver_status;
        row.e2e.push(e2e);
        row.wall.push(res.body.wall_time_ms);
        row.overhead.push(e2e - res.body.wall_time_ms);
        const direct = await toolkit.solve(s, { problem, settings, killGraceSeconds: stack.config.killGraceSeconds });
        await toolkit.prepare(); // as a worker does when a job has ended (waited for: it must not slow the next request)
        row.direct.push(direct.wall_time_ms ?? NaN);
      }
    }
    await stack.workers.idle(); // the last job's timestamps have arrived
    for (const p of pending) {
      const marks = traceTake(p.id);
      if (marks) samples.get(p.solver)!.traces.push({ ...marks, sent: p.sent, done: p.done, wall: p.wall } as TraceMarks);
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
  printBreakdown(solvers, samples);
}

/** Medians per step of the traced requests (steps of one request add up to its e2e). */
function printBreakdown(solvers: SolverName[], samples: Map<SolverName, { traces: TraceMarks[] }>): void {
  const traced = solvers.filter((s) => samples.get(s)!.traces.length > 0);
  if (traced.length === 0) {
    console.log("\n(no breakdown: the requests were not traced; run with SOLVE_TRACE=1)");
    return;
  }
  const rows = traced.map((s) => {
    const traces = samples.get(s)!.traces as Record<string, number>[];
    const step = (from: string, to: string) => median(traces.map((m) => m[to]! - m[from]!));
    return [s, ...STEPS.map(([, from, to]) => step(from, to)), median(traces.map((m) => m.solve_end! - m.solve_start! - m.wall!))];
  });
  console.log(`\nWhere a plain solve's time goes (medians per step over ${samples.get(traced[0]!)!.traces.length} traced requests, ms)\n`);
  console.log(table(["solver", ...STEPS.map(([name]) => name), "solve − wall"], rows));
  for (const [name, , , what] of STEPS) console.log(`  ${name.padEnd(9)} ${what}`);
  console.log("  solve − wall: the adapter's call in the worker beyond the wall_time_ms it reports");
}
