import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { checkDuals, checkSolution } from "../../functions/core/solvers/checker.js";
import type { SolverName } from "../../functions/core/solvers/types.js";
import { createHighsAdapter } from "../../solver-container/src/adapters/highs.js";
import { createAdapters, type AdapterRegistry, type SolverAdapter } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { machineHas } from "../support/machine.js";
import { objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { DUALS_MAX_LP } from "../support/models.js";

/**
 * Issue 16's acceptance: on the manifest's LPs solved to optimality, every solver's duals and reduced
 * costs pass the independent checker (strong duality within 1e-6 relative), and the adapter's own
 * verdict (`duals_verified`) agrees. Bounded: one solve per solver and LP, 20 s each at most.
 */
const enabled = machineHas("cbc", "glpsol", "python_solvers");
/** The five solvers, and HiGHS's WebAssembly build (the fallback where native HiGHS is missing). */
const SOLVERS = process.env.DUALS_SOLVERS?.split(",") ?? ["highs", "scip", "cbc", "glpk", "jaos", "highs-wasm"];
const LPS = readManifest().filter((e) => e.kind === "LP" && e.expectedStatus === "optimal");

describe.runIf(enabled)("LP duals on the manifest pass the checker", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  const adapter = (name: string): SolverAdapter => (name === "highs-wasm" ? createHighsAdapter(null, "wasm") : adapters.get(name as SolverName)!);
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-duals-"));
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  for (const solver of SOLVERS) {
    it(`${solver} on a maximisation: duals in the problem's own sense (every sign flipped from a minimiser's)`, async () => {
      // Optimum −2.5 at (1.5, 0.5, 0), y = (−1.5, 0.5, 0): see DUALS_MAX_LP.
      const problem = ProblemSchema.parse(DUALS_MAX_LP);
      const context = { workDir: mkdtempSync(path.join(workDir, "solve-")), killGraceSeconds: 5 };
      const r = await adapter(solver).solve(problem, { timeLimitSeconds: 20, gapTolerance: 1e-9, threads: 1 }, context);
      expect(r.objective_value).toBeCloseTo(-2.5, 9);
      expect(r.duals_verified).toBe(true);
      expect(r.duals!.cover).toBeCloseTo(-1.5, 9);
      expect(r.duals!.balance).toBeCloseTo(0.5, 9);
      expect(r.reduced_costs!.z).toBeCloseTo(-1.5, 9);
    }, 60_000);

    for (const lp of LPS) {
      it(`${solver} on ${lp.file}: duals and reduced costs satisfy dual feasibility, complementary slackness and strong duality`, async () => {
        const problem = readMps(readInstance(lp));
        const context = { workDir: mkdtempSync(path.join(workDir, "solve-")), killGraceSeconds: 5 };
        const r = await adapter(solver).solve(problem, { timeLimitSeconds: 20, gapTolerance: 1e-9, threads: 1 }, context);
        expect(r.solver_status).toBe("optimal");
        expect(objectiveMatches(r.objective_value, lp.expectedObjective!)).toBe(true);
        expect(checkSolution(problem, r.solution!, { objective: r.objective_value })).toEqual([]);
        expect(r.duals).toBeTruthy();
        expect(r.reduced_costs).toBeTruthy();
        expect(Object.keys(r.duals!).length).toBe(problem.constraints.length);
        expect(checkDuals(problem, { solution: r.solution!, duals: r.duals!, reducedCosts: r.reduced_costs! }).slice(0, 3)).toEqual([]);
        expect(r.duals_verified).toBe(true);
      }, 60_000);
    }
  }
});
