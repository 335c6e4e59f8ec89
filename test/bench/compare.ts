/**
 * `npm run bench -- compare [instance-substring …]`: one comparison per manifest instance across every
 * available solver, through the HTTP API, then per solver: instances solved (the manifest's verdict,
 * and its optimum within 1e-6 relative), the shifted geometric mean of the solver's own time (shift 1 s),
 * and how often its objective agreed with every other solver's in the comparison's agreement block.
 */
import { readFileSync } from "node:fs";
import { readProblemFile } from "../../functions/core/problem/index.js";
import { objectiveMatches, readManifest } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { shiftedGeomean, table } from "./_stats.js";

export default async function bench(args: string[]): Promise<void> {
  const manifest = readManifest().filter((m) => args.length === 0 || args.some((a) => m.file.includes(a)));
  const stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" } });
  const solvers = stack.solvers.filter((s) => s.available).map((s) => s.name);
  const stats = new Map(solvers.map((s) => [s, { solved: 0, times: [] as number[], agreed: 0, compared: 0 }]));
  const lines: (string | number)[][] = [];
  try {
    for (const entry of manifest) {
      const problem = readProblemFile(readFileSync(entry.path, "utf8"), "auto", entry.file);
      const launched = await stack.api.post("/api/v2/solvers/compare", {
        problem,
        solver_names: solvers,
        settings: { time_limit_seconds: 60, gap_tolerance: 1e-6 },
      });
      const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, isFinal, 20 * 60_000, 200);
      const agreement = done.agreement as { compared_solvers: string[]; objectives_agree: boolean } | null;
      for (const row of done.results as { solver_name: string; solver_status: string; objective_value: number | null; solver_time_seconds: number | null }[]) {
        const s = stats.get(row.solver_name)!;
        const right =
          row.solver_status === entry.expectedStatus && (entry.expectedObjective === null || objectiveMatches(row.objective_value, entry.expectedObjective));
        if (right) s.solved++;
        // Unsolved instances count at the time limit, as solver benchmarks do.
        s.times.push(right ? (row.solver_time_seconds ?? 60) : 60);
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
  console.log(`\nsummary over ${manifest.length} manifest instances (60 s limit, gap 1e-6, one solver at a time on one machine):\n`);
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
