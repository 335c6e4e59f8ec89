/**
 * `npm run bench -- compare [--set main|scale|wide] [--time-limit 60] [instance-substring …]`: one comparison
 * per instance of the set across every available solver, through the HTTP API, then per solver:
 * instances solved (the manifest's verdict, and its optimum within 1e-6 relative; a MILP's within
 * max(1e-6, gap)), the shifted geometric mean of the solver's own time (shift 1 s, an instance not
 * solved right counted at the time limit), and how often its objective agreed with every other solver's
 * in the comparison's agreement block. `--set main` (default) is the manifest at gap 1e-6; `--set scale`
 * the scale set of issue 17 (`test/instances/scale`) and `--set wide` the wide set of issue 30
 * (`test/instances/wide`) at the service's default gap 1e-4.
 */
import { readProblemFile } from "../../functions/core/problem/index.js";
import { instanceSetDir, objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { shiftedGeomean, table } from "./_stats.js";

/** Splits `--name value` options from the remaining words. */
function parse(args: string[]): { options: Map<string, string>; words: string[] } {
  const options = new Map<string, string>();
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i]!.startsWith("--")) options.set(args[i]!.slice(2), args[++i] ?? "");
    else words.push(args[i]!);
  }
  return { options, words };
}

export default async function bench(args: string[]): Promise<void> {
  const { options, words } = parse(args);
  const set = options.get("set") ?? "main";
  const timeLimit = Number(options.get("time-limit") ?? 60);
  const gap = set === "main" ? 1e-6 : 1e-4;
  const manifest = readManifest(instanceSetDir(set)).filter((m) => words.length === 0 || words.some((a) => m.file.includes(a)));
  const stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" } });
  const solvers = stack.solvers.filter((s) => s.available).map((s) => s.name);
  const stats = new Map(solvers.map((s) => [s, { solved: 0, times: [] as number[], agreed: 0, compared: 0 }]));
  const lines: (string | number)[][] = [];
  try {
    for (const entry of manifest) {
      const problem = readProblemFile(readInstance(entry), { format: "auto", filename: entry.file });
      const launched = await stack.api.post("/api/v2/solvers/compare", {
        problem,
        solver_names: solvers,
        settings: { time_limit_seconds: timeLimit, gap_tolerance: gap },
      });
      const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, isFinal, { timeoutMs: 20 * 60_000, everyMs: 200 });
      const agreement = done.agreement as { compared_solvers: string[]; objectives_agree: boolean } | null;
      for (const row of done.results as { solver_name: string; solver_status: string; objective_value: number | null; solver_time_seconds: number | null }[]) {
        const s = stats.get(row.solver_name)!;
        const tol = entry.kind === "MILP" ? Math.max(1e-6, gap) : 1e-6;
        const right =
          row.solver_status === entry.expectedStatus &&
          (entry.expectedObjective === null || objectiveMatches(row.objective_value, entry.expectedObjective, tol));
        if (right) s.solved++;
        // Unsolved instances count at the time limit, as solver benchmarks do.
        s.times.push(right ? (row.solver_time_seconds ?? timeLimit) : timeLimit);
        if (agreement?.compared_solvers.includes(row.solver_name)) {
          s.compared++;
          if (agreement.objectives_agree) s.agreed++;
        }
        lines.push([
          entry.file,
          row.solver_name,
          row.solver_status,
          row.objective_value === null ? "" : String(row.objective_value),
          row.solver_time_seconds ?? "",
          right ? "yes" : "NO",
        ]);
      }
    }
  } finally {
    await stack.stop();
  }
  console.log("\nper instance:\n");
  console.log(table(["instance", "solver", "verdict", "objective", "own time s", "as manifest"], lines));
  console.log(`\nsummary over ${manifest.length} instances of set ${set} (${timeLimit} s limit, gap ${gap}, one solver at a time on one machine):\n`);
  console.log(
    table(
      ["solver", "solved", "sgm time s (shift 1)", "agreement rate"],
      solvers.map((name) => {
        const s = stats.get(name)!;
        return [
          name,
          `${s.solved}/${manifest.length}`,
          shiftedGeomean(s.times, 1),
          s.compared ? `${((100 * s.agreed) / s.compared).toFixed(0)}% of ${s.compared}` : "n/a",
        ];
      }),
    ),
  );
}
