/**
 * `npm run bench -- solvers [instance-substring …]`: per manifest instance and solver, the service's
 * end-to-end time (POST /api/v2/solve until the answer) beside the same solver run directly on the same
 * file (its own command line or Python, as a user would), and the ratio. Then the median fixed overhead
 * per solve: end-to-end minus the solver's own reported time. One solve at a time, in one run. Then
 * what progress capture costs each solver, with and without it side by side (_progress-capture.ts).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import path from "node:path";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { REPO_ROOT } from "../support/machine.js";
import { plainInstanceFile, readInstance, readManifest } from "../support/manifest.js";
import { startTestStack } from "../support/test-stack.js";
import { progressCaptureCost } from "./_progress-capture.js";
import { median, table } from "./_stats.js";

const run = promisify(execFile);
const SOLVERS = ["scip", "highs", "cbc", "glpk"] as const;
const LIMIT = 60;
const GAP = 1e-4;

const PY = `
import sys, time
name, path, limit, gap = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
if name == "scip":
    from pyscipopt import Model
    m = Model(); m.hideOutput(); m.readProblem(path); m.setParam("limits/time", limit); m.setParam("limits/gap", gap); m.setParam("parallel/maxnthreads", 1); m.optimize()
else:
    import highspy
    h = highspy.Highs(); h.setOptionValue("output_flag", False); h.readModel(path); h.setOptionValue("time_limit", limit); h.setOptionValue("mip_rel_gap", gap); h.setOptionValue("threads", 1); h.run()
`;

async function direct(solver: (typeof SOLVERS)[number], file: string): Promise<number> {
  const started = performance.now();
  const isLp = file.endsWith(".lp");
  if (solver === "cbc") await run("cbc", [file, "sec", String(LIMIT), "ratio", String(GAP), "threads", "1", "solve", "quit"], { maxBuffer: 1 << 26 });
  else if (solver === "glpk")
    await run("glpsol", [isLp ? "--lp" : "--freemps", file, "--tmlim", String(LIMIT), "--mipgap", String(GAP)], { maxBuffer: 1 << 26 }).catch(() => undefined);
  else await run(path.join(REPO_ROOT, ".venv/bin/python"), ["-c", PY, solver, file, String(LIMIT), String(GAP)], { maxBuffer: 1 << 26 });
  return performance.now() - started;
}

export default async function bench(args: string[]): Promise<void> {
  const manifest = readManifest().filter((m) => args.length === 0 || args.some((a) => m.file.includes(a)));
  const stack = await startTestStack({
    env: {
      INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
      SOLVE_RATE_LIMIT_PER_MINUTE: "0",
      LOCAL_WORKERS: "1",
      SOLVE_WAIT_SECONDS: "120",
    },
  });
  const rows: (string | number)[][] = [];
  const overheads: number[] = [];
  try {
    for (const entry of manifest) {
      const problem = readProblemFile(readInstance(entry), { format: "auto", filename: entry.file });
      for (const solver of SOLVERS) {
        // Steady state: the workers poll the queue, as they do between requests on a service in use.
        await stack.workers.ready();
        const t = performance.now();
        const res = await stack.api.post("/api/v2/solve", { problem, solver_name: solver, settings: { time_limit_seconds: LIMIT, gap_tolerance: GAP } });
        const e2e = performance.now() - t;
        const own = (res.body.solve_time_seconds ?? NaN) * 1000;
        const d = await direct(solver, plainInstanceFile(entry));
        if (Number.isFinite(own)) overheads.push(e2e - own);
        rows.push([entry.file, solver, res.body.solver_status ?? `HTTP ${res.status}`, e2e, d, e2e / d, own, e2e - own]);
      }
    }
    await progressCaptureCost(stack);
  } finally {
    await stack.stop();
  }
  console.log(`\nmanifest instances × solvers, time limit ${LIMIT} s, gap ${GAP}, one solve at a time (times in ms)\n`);
  console.log(table(["instance", "solver", "verdict", "service e2e", "direct", "ratio", "solver's own", "fixed overhead"], rows));
  console.log(
    `\nmedian fixed overhead per solve (end-to-end minus the solver's own time): ${median(overheads).toFixed(1)} ms over ${overheads.length} solves (target < 150 ms)`,
  );
  const ratios = rows.map((r) => Number(r[5])).filter(Number.isFinite);
  console.log(`median ratio service/direct: ${median(ratios).toFixed(2)}× (direct runs pay process and Python start-up; the service keeps a warm worker)`);
}
