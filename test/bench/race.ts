/**
 * `npm run bench -- race [--solvers highs,jaos] [--instances set1ch,10teams] [--limit 120]`: a race against
 * each of its solvers alone (issue 29, Build 1), on the local stack with one worker per solver. For each
 * scale-set instance each solver runs alone, then the race (a plain solve, `solver_name: "race"`);
 * the table shows the wall time each took through the API, who won, and the race's time over the
 * fastest solver's own (the cost of racing: the losers' stop and the race's bookkeeping). Side by side in
 * one run: compare the ratios, not the seconds, on a loaded machine.
 */
import { parseArgs } from "node:util";
import { instanceSetDir, objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { startTestStack } from "../support/test-stack.js";
import { table } from "./_stats.js";

export default async function race(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      solvers: { type: "string", default: "highs,jaos" },
      instances: { type: "string", default: "set1ch,10teams" },
      limit: { type: "string", default: "120" },
    },
  });
  const solvers = values.solvers.split(",");
  const wanted = values.instances.split(",");
  const limit = Number(values.limit);
  const entries = readManifest(instanceSetDir("scale")).filter((e) => wanted.some((w) => e.file.startsWith(`${w}.`)));
  const workers = String(solvers.length);
  const stack = await startTestStack({
    env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: workers, ORG_MAX_RUNNING_JOBS: workers, SOLVE_WAIT_SECONDS: String(limit + 30) },
  });
  const rows: (string | number)[][] = [];
  try {
    for (const entry of entries) {
      const preview = await stack.api.post("/api/v2/solve/import/preview", { content: readInstance(entry), filename: entry.file });
      const problem = preview.body.problem;
      const timed = async (body: object) => {
        const started = performance.now();
        const res = await stack.api.post("/api/v2/solve", { problem, settings: { time_limit_seconds: limit }, ...body });
        return { seconds: (performance.now() - started) / 1000, body: res.body };
      };
      const alone: Record<string, number> = {};
      for (const solver of solvers) {
        const r = await timed({ solver_name: solver });
        const right = r.body.status === "optimal" && objectiveMatches(r.body.objective_value, entry.expectedObjective ?? Number.NaN, 1e-4);
        alone[solver] = right ? r.seconds : limit;
      }
      const raced = await timed({ solver_name: "race", race: { solvers } });
      const fastest = Math.min(...Object.values(alone));
      rows.push([
        entry.file,
        raced.seconds,
        ...solvers.map((s) => alone[s]!),
        raced.body.race?.winner ?? "—",
        raced.body.race?.entrants.map((e: { solver: string; state: string }) => `${e.solver} ${e.state}`).join(", ") ?? raced.body.error?.code ?? "—",
        raced.seconds / fastest,
      ]);
    }
  } finally {
    await stack.stop();
  }
  console.log(table(["instance", "race s", ...solvers.map((s) => `${s} alone s`), "winner", "entrants", "race / fastest"], rows));
  console.log(`\nA solver that did not reach the manifest's optimum counts at the limit (${limit} s).`);
}
