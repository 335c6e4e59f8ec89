import { describe, expect, it } from "vitest";
import { readLp } from "../../functions/core/problem/lp.js";
import { readMps } from "../../functions/core/problem/mps.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { objectiveMatches, readInstance, readManifest, type ManifestEntry } from "../support/manifest.js";
import { solveChecked } from "../support/jaos.js";

const STOPS_AT_LIMIT: Record<string, { seconds: number; why: string }> = {
  "bell5.mps": { seconds: 20, why: "without flow-cover/MIR cuts the tree size hinges on finding the optimal incumbent early" },
};

const manifest = readManifest();
const lps = manifest.filter((e) => e.kind === "LP");
const milps = manifest.filter((e) => e.kind === "MILP" && e.integerCols < 200);

function load(entry: ManifestEntry): Problem {
  const text = readInstance(entry);
  return entry.file.endsWith(".lp") ? readLp(text) : readMps(text);
}

function expectVerdict(entry: ManifestEntry, status: string, objective: number | null): void {
  expect(status, entry.file).toBe(entry.expectedStatus);
  if (entry.expectedStatus === "optimal") {
    expect(objectiveMatches(objective, entry.expectedObjective!), `${entry.file}: ${objective} vs ${entry.expectedObjective}`).toBe(true);
  }
}

describe("jaos on the manifest LPs", () => {
  it.each(lps.map((e) => [e.file, e] as const))(
    "%s",
    (_, entry) => {
      const r = solveChecked(load(entry), { timeLimitSeconds: 60, gapTolerance: 0 });
      expectVerdict(entry, r.solver_status, r.objective_value);
    },
    70_000,
  );
});

describe("jaos on the manifest MILPs with fewer than 200 integer columns", () => {
  it.each(milps.map((e) => [e.file, e] as const))(
    "%s",
    (_, entry) => {
      const limited = STOPS_AT_LIMIT[entry.file];
      const r = solveChecked(load(entry), { timeLimitSeconds: limited?.seconds ?? 60, gapTolerance: 1e-7 });
      if (r.solver_status === "optimal" || !limited) {
        // whatever the path, an "optimal" verdict must carry the right objective
        expectVerdict(entry, r.solver_status, r.objective_value);
        return;
      }
      expect(r.solver_status, `${entry.file} (${limited.why})`).toBe("time_limit");
      const optimum = entry.expectedObjective!;
      const slack = 1e-6 * Math.max(1, Math.abs(optimum));
      expect(r.objective_value, "a stopped run still has an incumbent").not.toBeNull();
      expect(r.objective_value!).toBeGreaterThanOrEqual(optimum - slack); // minimisations: no better than optimal
      expect(r.dual_bound!).toBeLessThanOrEqual(optimum + slack); // a valid bound
      expect(r.dual_bound!).toBeLessThanOrEqual(r.objective_value! + slack);
    },
    70_000,
  );
});
