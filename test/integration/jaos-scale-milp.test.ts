import { describe, expect, it } from "vitest";
import { readMps } from "../../functions/core/problem/mps.js";
import { solveChecked } from "../support/jaos.js";
import { objectiveMatches, readInstance, readManifest, SCALE_DIR } from "../support/manifest.js";

const SOLVED = ["fixnet6.mps", "pp08a.mps", "modglob.mps", "vpm1.mps", "10teams.mps", "set1ch.mps"];

const entries = readManifest(SCALE_DIR).filter((e) => SOLVED.includes(e.file));

describe("jaos on MIPLIB 3 models of the scale set", () => {
  it("has every model this test names in the scale manifest", () => {
    expect(entries.map((e) => e.file).sort()).toEqual([...SOLVED].sort());
  });

  it.each(entries.map((e) => [e.file, e] as const))(
    "%s comes out optimal with the published objective within 60 s",
    (_, entry) => {
      const r = solveChecked(readMps(readInstance(entry)), { timeLimitSeconds: 60, gapTolerance: 1e-4 });
      expect(r.solver_status, entry.file).toBe("optimal");
      expect(objectiveMatches(r.objective_value, entry.expectedObjective!, 1e-4), `${entry.file}: ${r.objective_value} vs ${entry.expectedObjective}`).toBe(
        true,
      );
    },
    70_000,
  );
});
