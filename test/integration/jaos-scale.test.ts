import { describe, expect, it } from "vitest";
import { readMps } from "../../functions/core/problem/mps.js";
import { objectiveMatches, readInstance, readManifest, SCALE_DIR, type ManifestEntry } from "../support/manifest.js";
import { solveChecked } from "../support/jaos.js";

const LP_SECONDS = 30;
/** Regression instances that take a good part of LP_SECONDS on a busy machine get room to finish. */
const LP_SECONDS_FOR: Record<string, number> = { "pilot.mps": 60, "pilot87.mps": 60, "greenbeb.mps": 60 };
const MILP_SECONDS = 5;
const MILP_GAP = 1e-4;
const REQUIRED_OPTIMAL = new Set(["pilot.mps", "pilot4.mps", "pilot87.mps", "pilotnov.mps", "greenbeb.mps"]);

const scale = readManifest(SCALE_DIR);

function check(entry: ManifestEntry): void {
  const problem = readMps(readInstance(entry));
  const lp = entry.kind === "LP";
  const seconds = lp ? (LP_SECONDS_FOR[entry.file] ?? LP_SECONDS) : MILP_SECONDS;
  const r = solveChecked(problem, { timeLimitSeconds: seconds, gapTolerance: lp ? 1e-6 : MILP_GAP });
  const optimum = entry.expectedObjective!;
  const tol = lp ? 1e-6 : MILP_GAP;
  const says = `${entry.file}: ${r.solver_status} ${r.objective_value} (optimum ${optimum})${r.error_message ? `, ${r.error_message}` : ""}`;
  if (REQUIRED_OPTIMAL.has(entry.file)) expect(r.solver_status, says).toBe("optimal");
  expect(["optimal", "feasible", "time_limit"], says).toContain(r.solver_status);
  if (r.solver_status === "optimal") {
    expect(objectiveMatches(r.objective_value, optimum, tol), says).toBe(true);
    if (lp) expect(r.duals_verified, `${entry.file}: duals`).toBe(true);
  }
  // what a solve that did not prove optimality may still claim: a point no better than the optimum,
  // a bound no worse than it (objectives in the problem's own sense)
  const better = problem.sense === "maximize" ? 1 : -1;
  const slack = 1e-6 * Math.max(1, Math.abs(optimum));
  if (r.objective_value !== null) expect(better * (r.objective_value - optimum), says).toBeLessThanOrEqual(slack);
  if (r.dual_bound !== null) expect(better * (optimum - r.dual_bound), `${says}, bound ${r.dual_bound}`).toBeLessThanOrEqual(slack);
}

describe("jaos on the scale set: optimal only within the published optimum's tolerance", () => {
  it.each(scale.filter((e) => e.kind === "LP").map((e) => [e.file, e] as const))("LP %s", (_, entry) => check(entry), 90_000);
  it.each(scale.filter((e) => e.kind === "MILP").map((e) => [e.file, e] as const))("MILP %s", (_, entry) => check(entry), (MILP_SECONDS + 30) * 1000);
});
