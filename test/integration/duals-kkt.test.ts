import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { isLinearProgram } from "../../functions/core/solvers/duals.js";
import { SOLVER_NAMES } from "../../functions/core/solvers/types.js";
import { createAdapters, type AdapterRegistry } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { machineHas } from "../support/machine.js";
import { kktOptimal } from "../support/verdict-cases.js";

/**
 * Beyond the manifest: LPs built around a known optimum (test/support/verdict-cases.ts, kkt-optimal:
 * ≤, ≥, = and ranged rows, both senses, free and boxed columns, degenerate vertices). Every solver that
 * calls one optimal must hand back duals the checker accepts. Bounded: CASES problems of at most a
 * dozen columns, one fixed seed.
 */
const enabled = machineHas("cbc", "glpsol", "python_solvers");
const CASES = 40;
const SEED = 16;

describe.runIf(enabled)("LP duals on LPs with a known optimum", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  let workDir: string;
  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-duals-kkt-"));
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  const problems = fc
    .sample(kktOptimal, { numRuns: CASES * 3, seed: SEED })
    .map((c) => ProblemSchema.parse(c.problem))
    .filter(isLinearProgram)
    .slice(0, CASES);

  for (const solver of SOLVER_NAMES) {
    it(`${solver}: every optimal LP's duals pass the checker (duals_verified true)`, async () => {
      expect(problems.length).toBe(CASES);
      const failures: string[] = [];
      for (const [k, problem] of problems.entries()) {
        const context = { workDir: mkdtempSync(path.join(workDir, "solve-")), killGraceSeconds: 5 };
        const r = await adapters.get(solver)!.solve(problem, { timeLimitSeconds: 10, gapTolerance: 1e-9, threads: 1 }, context);
        if (r.solver_status !== "optimal") failures.push(`case ${k}: ${r.solver_status} ${r.error_message ?? ""}`);
        else if (r.duals_verified !== true) failures.push(`case ${k}: duals_verified ${r.duals_verified}`);
      }
      expect(failures).toEqual([]);
    }, 120_000);
  }
});
