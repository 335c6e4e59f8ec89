/**
 * Issue 17's acceptance on the scale set (`../shared/instances/scale`: 16 netlib LPs, 18 MIPLIB 3
 * MILPs): whenever jaos says `optimal`, the objective is within 1e-6 relative of the published optimum
 * (1e-4 on MILPs, solved at the service's default gap 1e-4), with verified duals on an LP; otherwise it
 * does not say `optimal`. Stopping at the per-instance time limit is allowed — the set is larger than
 * CI can solve in its budget (≲ 3 min on 2 cores: LPs get 30 s, pilot, pilot87 and greenbeb 60 s,
 * MILPs 5 s; under 2 min in all on a quiet machine) — but never a claim the
 * numbers do not support: any point returned passes the independent checker and is no better than the
 * optimum, and a MILP's dual bound does not cut the optimum off.
 *
 * So that the test bites where jaos was wrong (pilot answered "optimal" 5.1e-5 off and pilot87 5.5e-6
 * off before their bases were verified; the check now catches dual violations of 3.5e-7 and 5.7e-6 on
 * them and the cleanup ends within 1e-7), the regression instances of issue 17 must END optimal, not
 * merely stop: measured under a load average of 8 on this 2-core machine, pilot87 takes 27 s, pilot
 * 11 s, greenbeb 3 s, pilotnov and pilot4 under 1 s; their limits leave room for a busy CI runner.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readMps } from "../../functions/core/problem/mps.js";
import { machineHas } from "../support/machine.js";
import { objectiveMatches, readManifest, SCALE_DIR, type ManifestEntry } from "../support/manifest.js";
import { solveChecked } from "../support/jaos.js";

const LP_SECONDS = 30;
/** Regression instances that take a good part of LP_SECONDS on a busy machine get room to finish. */
const LP_SECONDS_FOR: Record<string, number> = { "pilot.mps": 60, "pilot87.mps": 60, "greenbeb.mps": 60 };
const MILP_SECONDS = 5;
const MILP_GAP = 1e-4;
const REQUIRED_OPTIMAL = new Set(["pilot.mps", "pilot4.mps", "pilot87.mps", "pilotnov.mps", "greenbeb.mps"]);

const run = machineHas("instances");
const scale = run ? readManifest(SCALE_DIR) : [];

function check(entry: ManifestEntry): void {
  const problem = readMps(readFileSync(entry.path, "utf8"));
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

describe.runIf(run)("jaos on the scale set: optimal only within the published optimum's tolerance", () => {
  it.each(scale.filter((e) => e.kind === "LP").map((e) => [e.file, e] as const))("LP %s", (_, entry) => check(entry), 90_000);
  it.each(scale.filter((e) => e.kind === "MILP").map((e) => [e.file, e] as const))("MILP %s", (_, entry) => check(entry), (MILP_SECONDS + 30) * 1000);
});
