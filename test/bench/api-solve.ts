/**
 * `npm run bench -- api-solve [--max-nonzeros 20000] [--budget 21]`: the API-side solve (answers from
 * zero, functions/core/executions/api-solve.ts) on the manifest's instances small enough for it —
 * jaos in one process, one instance after another as a warm API Lambda would meet them, each under the
 * API's budget (SOLVE_WAIT_SECONDS 25 less the wait and the margin: 21 s). The first row also pays for
 * loading the engine module (the separate api-solver.mjs the API imports on its first such solve).
 * A Lambda of 1,024 MB has about 0.58 of a vCPU (1,769 MB = 1 vCPU), so its times are these ÷ ~0.58.
 */
import { parseArgs } from "node:util";
import { readLp } from "../../functions/core/problem/lp.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { problemStats } from "../../functions/core/problem/schema.js";
import { objectiveMatches, readInstance, readManifest } from "../support/manifest.js";

export default async function apiSolveBench(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { "max-nonzeros": { type: "string", default: "20000" }, budget: { type: "string", default: "21" } } });
  const maxNonzeros = Number(values["max-nonzeros"]);
  const budget = Number(values.budget);
  const loadStart = performance.now();
  const engine = await import("../../functions/api/api-solver.mjs");
  const loadMs = performance.now() - loadStart;
  console.log(`engine module loaded in ${loadMs.toFixed(0)} ms (${engine.version}); budget ${budget} s; instances up to ${maxNonzeros} nonzeros\n`);
  console.log("| instance | kind | rows | cols | nonzeros | status | objective ok | wall s |");
  console.log("| -------- | ---- | ---- | ---- | -------- | ------ | ------------ | ------ |");
  let answered = 0;
  let taken = 0;
  for (const entry of readManifest()) {
    const text = readInstance(entry);
    const problem = entry.file.endsWith(".lp") ? readLp(text) : readMps(text);
    const stats = problemStats(problem);
    if (stats.nonzero_count > maxNonzeros || stats.quadratic_term_count > 0) continue;
    taken++;
    const started = performance.now();
    const result = engine.solve(problem, { timeLimitSeconds: budget, gapTolerance: 1e-4 });
    const seconds = (performance.now() - started) / 1000;
    const ok =
      entry.expectedStatus === "optimal" ? objectiveMatches(result.objective_value, entry.expectedObjective!) : result.solver_status === entry.expectedStatus;
    if (ok && result.solver_status !== "time_limit") answered++;
    console.log(
      `| ${entry.file} | ${entry.kind} | ${entry.rows} | ${entry.cols} | ${stats.nonzero_count} | ${result.solver_status} | ${ok ? "yes" : "no"} | ${seconds.toFixed(3)} |`,
    );
  }
  console.log(`\n${answered} of ${taken} small instances answered correctly within the budget (the rest would go back to the fleet).`);
}
