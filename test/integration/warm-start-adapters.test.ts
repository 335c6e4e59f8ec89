import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import type { SolveSettings, SolverName } from "../../functions/core/solvers/types.js";
import { assessStart, basisWarmStart, warmStartOf } from "../../functions/core/solvers/warm-start.js";
import { createAdapters, type AdapterRegistry } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import type { SolveContext } from "../../solver-container/src/adapters/types.js";
import { machineHas } from "../support/machine.js";
import { readInstance } from "../support/manifest.js";
import { ODD_NAMES_MILP } from "../support/models.js";

/** MIP starts (settings.initialSolution) through each adapter that takes one, and the note of those that do not. */
const enabled = machineHas("cbc", "glpsol", "python_solvers");

const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1, ...overrides });

/** max 3x + 2y + 1 over names a file format must escape: optimum 16 at x = 5, y = 0 (test/support/models.ts). */
const smallMilp = ProblemSchema.parse(ODD_NAMES_MILP);
const optimum = { "x[1] a": 5, y: 0 };

describe.runIf(enabled)("MIP starts through the adapters", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  let workDir: string;
  const context = (): SolveContext => ({ workDir: mkdtempSync(path.join(workDir, "solve-")), killGraceSeconds: 5 });

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-warm-"));
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  it.each(["highs", "scip", "cbc"] as const)("%s takes the optimum as its start: accepted, the same optimum", async (name: SolverName) => {
    const r = await adapters.get(name)!.solve(smallMilp, settings({ initialSolution: optimum }), context());
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBeCloseTo(16, 6);
    expect(r.start_use).toMatchObject({ passed: true, solverAccepted: true });
    expect(warmStartOf(smallMilp, { solver: name, assessment: assessStart(smallMilp, optimum), use: r.start_use })).toEqual({
      accepted: true,
      objective_of_start: 16,
    });
  });

  it.each(["highs", "scip", "cbc"] as const)("%s on p0548 with its optimum as the start: accepted", async (name: SolverName) => {
    const p0548 = readMps(readInstance("p0548.mps.gz"));
    const cold = await adapters.get(name)!.solve(p0548, settings(), context());
    expect(cold.solver_status).toBe("optimal");
    const warm = await adapters.get(name)!.solve(p0548, settings({ initialSolution: cold.solution! }), context());
    expect(warm.solver_status).toBe("optimal");
    expect(warm.objective_value).toBeCloseTo(cold.objective_value!, 6);
    expect(warm.start_use).toMatchObject({ passed: true, solverAccepted: true });
  });

  it.each(["highs", "scip"] as const)("%s is given an infeasible start and still solves; the result says it was infeasible", async (name: SolverName) => {
    const broken = { "x[1] a": 6, y: 1 }; // 2·6 + 3 = 15 > 11
    const r = await adapters.get(name)!.solve(smallMilp, settings({ initialSolution: broken }), context());
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBeCloseTo(16, 6);
    expect(r.start_use?.passed).toBe(true);
    const reported = warmStartOf(smallMilp, { solver: name, assessment: assessStart(smallMilp, broken), use: r.start_use });
    expect(reported.objective_of_start).toBeNull();
    expect(reported.note).toMatch(/infeasible/);
  });

  it.each(["glpk", "jaos"] as const)("%s takes no start: the result notes it was ignored", async (name: SolverName) => {
    const r = await adapters.get(name)!.solve(smallMilp, settings({ initialSolution: optimum }), context());
    expect(r.objective_value).toBeCloseTo(16, 6);
    expect(r.start_use).toBeUndefined();
    expect(warmStartOf(smallMilp, { solver: name, assessment: assessStart(smallMilp, optimum), use: r.start_use })).toEqual({
      accepted: false,
      objective_of_start: 16,
      note: `ignored: ${name} takes no MIP start`,
    });
  });

  it("native HiGHS gives an LP's optimal basis, and takes it back as a starting basis: no simplex iterations the second time", async () => {
    const lp = readMps(readInstance("25fv47.mps.gz"));
    const cold = await adapters.get("highs")!.solve(lp, settings(), context());
    expect(cold.solver_status).toBe("optimal");
    expect(Object.keys(cold.basis!.columns)).toHaveLength(lp.variables.length);
    expect(Object.keys(cold.basis!.rows)).toHaveLength(lp.constraints.length);
    const warm = await adapters.get("highs")!.solve(lp, settings({ initialBasis: cold.basis! }), context());
    expect(warm.basis_use).toEqual({ passed: true, solverAccepted: true });
    expect(warm.objective_value).toBeCloseTo(cold.objective_value!, 6);
    expect(warm.iterations).toBeLessThan(Math.max(10, cold.iterations! / 10));
    expect(basisWarmStart(lp, "highs", warm.basis_use)).toEqual({ accepted: true, objective_of_start: null });
  });

  it("native HiGHS reports a basis without one basic status per row as not taken, and solves anyway", async () => {
    const lp = readMps(readInstance("afiro.mps.gz"));
    const allBasic = { columns: Object.fromEntries(lp.variables.map((v) => [v.name, "basic" as const])), rows: {} };
    const r = await adapters.get("highs")!.solve(lp, settings({ initialBasis: allBasic }), context());
    expect(r.solver_status).toBe("optimal");
    expect(r.basis_use).toMatchObject({ passed: true, solverAccepted: false, note: expect.stringMatching(/^not a basis/) });
  });

  it("SCIP takes no starting basis: noted", async () => {
    const lp = readMps(readInstance("afiro.mps.gz"));
    const r = await adapters.get("scip")!.solve(lp, settings({ initialBasis: { columns: {}, rows: {} } }), context());
    expect(r.basis_use).toBeUndefined();
    expect(basisWarmStart(lp, "scip", r.basis_use)).toEqual({ accepted: false, objective_of_start: null, note: "ignored: scip takes no starting basis" });
  });
});
