import { describe, expect, it } from "vitest";
import { readMps } from "../../../../../functions/core/problem/mps.js";
import { BASIC, LpEngine, modelFromProblem, presolve } from "@incumbent/jaos";
import { readInstance } from "../../../../support/manifest.js";

/** Presolves, solves the reduced LP, and re-solves the original from the postsolved basis. */
function resolveFromPostsolvedBasis(file: string) {
  const { model } = modelFromProblem(readMps(readInstance(file)));
  const pre = presolve(model);
  const reduced = new LpEngine(pre.reduced);
  const first = reduced.solve({ deadline: performance.now() + 60_000 });
  expect(first.status).toBe("optimal");
  const x = pre.postsolve(first.x!);
  const basis = pre.postsolveBasis(reduced.getBasis(), x);
  const original = new LpEngine(model);
  original.setBasis(basis);
  const again = original.solve({ deadline: performance.now() + 60_000 });
  return { model, pre, basis, first, again };
}

describe("jaos basis postsolve", () => {
  // Each instance has rows and columns removed by several kinds of reduction (slacks, substitutions,
  // singleton rows, fixed columns); before the basis postsolve, the re-solve from a basis guessed
  // from x took more iterations than the reduced solve itself.
  // woodw and greenbeb have many forcing rows, whose duals the basis postsolve must rebuild (without
  // that, their re-solves took 278 and 499 iterations)
  for (const file of ["25fv47.mps", "scale/pilot4.mps", "scale/pilotnov.mps", "scale/scfxm3.mps", "scale/woodw.mps", "scale/greenbeb.mps"]) {
    it(`${file}: the postsolved basis has one basic variable per row and is optimal, or nearly, for the original LP`, () => {
      const { model, pre, basis, first, again } = resolveFromPostsolvedBasis(file);
      expect(pre.stats.rowsRemoved + pre.stats.colsRemoved).toBeGreaterThan(0);
      expect(basis.filter((s) => s === BASIC).length).toBe(model.rows);
      expect(again.status).toBe("optimal");
      expect(Math.abs(again.objective - first.objective)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(first.objective)));
      expect(again.iterations).toBeLessThanOrEqual(Math.max(20, 0.05 * first.iterations));
    });
  }
});
