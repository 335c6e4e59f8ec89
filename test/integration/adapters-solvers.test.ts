import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { ProblemSchema, type ProblemInput } from "../../functions/core/problem/schema.js";
import { objectiveOf } from "../../functions/core/solvers/checker.js";
import type { SolveSettings, SolverName } from "../../functions/core/solvers/types.js";
import { createHighsAdapter } from "../../solver-container/src/adapters/highs.js";
import { createAdapters, probeAll, type AdapterRegistry } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import type { SolveContext } from "../../solver-container/src/adapters/types.js";
import { machineHas } from "../support/machine.js";
import { readInstance } from "../support/manifest.js";
import { ODD_NAMES_MILP } from "../support/models.js";

/** What every adapter must do beyond the manifest: settings, time limits, quadratic objectives, inventory. */
const enabled = machineHas("cbc", "glpsol", "python_solvers");

const problem = (input: ProblemInput) => ProblemSchema.parse(input);
const instance = (file: string) => readMps(readInstance(file));
const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1, ...overrides });

/** max 3x + 2y + 1 over names a file format must escape: optimum 16 at x = 5, y = 0 (test/support/models.ts). */
const smallMilp = problem(ODD_NAMES_MILP);

/** min x² + y² − xy − 3x + 5, x + y ≥ 1, 0 ≤ x, y ≤ 10: convex, optimum 2 at (2, 1). */
const qp = problem({
  name: "qp",
  variables: [
    { name: "x", ub: 10 },
    { name: "y", ub: 10 },
  ],
  objective: {
    constant: 5,
    terms: [{ var: "x", coef: -3 }],
    quadratic: [
      { var1: "x", var2: "x", coef: 1 },
      { var1: "y", var2: "y", coef: 1 },
      { var1: "x", var2: "y", coef: -1 },
    ],
  },
  constraints: [
    {
      name: "sum",
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
      lb: 1,
    },
  ],
});
const negated = (p: typeof qp) =>
  problem({
    ...p,
    sense: "maximize",
    objective: {
      constant: -p.objective.constant,
      terms: p.objective.terms.map((t) => ({ ...t, coef: -t.coef })),
      quadratic: p.objective.quadratic!.map((q) => ({ ...q, coef: -q.coef })),
    },
  });
/** min (x − 1.4)² + (y − 2.6)² over integers: 0.32 at (1, 3), where the continuous optimum is 0. */
const miqp = problem({
  name: "miqp",
  variables: [
    { name: "x", type: "integer", lb: -10, ub: 10 },
    { name: "y", type: "integer", lb: -10, ub: 10 },
  ],
  objective: {
    constant: 1.4 ** 2 + 2.6 ** 2,
    terms: [
      { var: "x", coef: -2.8 },
      { var: "y", coef: -5.2 },
    ],
    quadratic: [
      { var1: "x", var2: "x", coef: 1 },
      { var1: "y", var2: "y", coef: 1 },
    ],
  },
});

describe.runIf(enabled)("solver adapters", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  let workDir: string;
  const context = (): SolveContext => ({ workDir: mkdtempSync(path.join(workDir, "solve-")), killGraceSeconds: 5 });
  const solve = (name: SolverName, p: typeof qp, s = settings()) => adapters.get(name)!.solve(p, s, context());

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-adapters-"));
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("reports the inventory: real builds, jaos with its package version", async () => {
    const inventory = await probeAll(adapters);
    expect(inventory.map((e) => e.name)).toEqual(["scip", "highs", "cbc", "glpk", "jaos"]);
    const byName = Object.fromEntries(inventory.map((e) => [e.name, e]));
    expect(byName.scip!.version).toMatch(/^SCIP \d+\.\d+\.\d+ \(pyscipopt \d+\.\d+\.\d+\)$/);
    expect(byName.highs!.version).toMatch(/^HiGHS \d+\.\d+\.\d+ \(native, highspy\)$/);
    expect(byName.cbc!.version).toMatch(/^CBC \d+\.\d+\.\d+$/);
    expect(byName.glpk!.version).toMatch(/^GLPK \d+\.\d+$/);
    expect(byName.jaos).toMatchObject({ name: "jaos", available: true, version: expect.stringMatching(/^jaos \d+\.\d+\.\d+/) });
  });

  it.each(["scip", "highs", "cbc", "glpk", "jaos"] as const)("%s solves a MILP with a free row (no side bounded), which constrains nothing", async (name) => {
    const withFreeRow = ProblemSchema.parse({
      name: "free-row",
      sense: "maximize",
      objective: {
        terms: [
          { var: "a", coef: 1 },
          { var: "b", coef: 2 },
        ],
      },
      variables: [
        { name: "a", type: "binary" },
        { name: "b", type: "integer", ub: 3 },
      ],
      constraints: [
        {
          name: "free",
          terms: [
            { var: "a", coef: 1 },
            { var: "b", coef: 1 },
          ],
        },
        {
          name: "cap",
          terms: [
            { var: "a", coef: 1 },
            { var: "b", coef: 1 },
          ],
          ub: 3,
        },
      ],
    });
    const r = await solve(name, withFreeRow);
    expect(r.solver_status, r.error_message ?? "").toBe("optimal");
    expect(r.objective_value).toBeCloseTo(6, 9);
  });

  it.each(["scip", "highs", "cbc", "glpk"] as const)("%s solves a small MILP with odd names, a maximisation and a constant", async (name) => {
    const r = await solve(name, smallMilp);
    expect(r.solver_status).toBe("optimal");
    expect(r.objective_value).toBeCloseTo(16, 9);
    expect(r.dual_bound).toBeCloseTo(16, 6);
    expect(r.gap).toBe(0);
    expect(r.solution).toEqual({ "x[1] a": 5, y: 0 });
    expect(r.wall_time_ms).toBeGreaterThanOrEqual(0);
    expect(r.solver_time_seconds).toBeGreaterThanOrEqual(0);
  });

  describe("settings reach every solver, read back from it", () => {
    const asked = settings({ timeLimitSeconds: 7.5, gapTolerance: 0.003, threads: 2 });
    it("scip: limits/time, limits/gap, lp/threads from getParam", async () => {
      expect((await solve("scip", smallMilp, asked)).settings_applied).toEqual({ "limits/time": 7.5, "limits/gap": 0.003, "lp/threads": 2 });
    });
    it("highs (native): time_limit, mip_rel_gap, threads from getOptionValue", async () => {
      expect((await solve("highs", smallMilp, asked)).settings_applied).toEqual({ time_limit: 7.5, mip_rel_gap: 0.003, threads: 2 });
    });
    it("highs (wasm): time_limit and mip_rel_gap; the build has one thread", async () => {
      const wasm = createHighsAdapter(null, "wasm");
      const r = await wasm.solve(smallMilp, asked, context());
      expect(r.solver_version).toMatch(/^HiGHS \d+\.\d+\.\d+ \(wasm, npm highs [\d.]+\)$/);
      expect(r.settings_applied).toEqual({ time_limit: 7.5, mip_rel_gap: 0.003, threads: 1 });
      expect(r.objective_value).toBeCloseTo(16, 9);
    });
    it("cbc: as its log echoes them (a MILP this small without preprocessing)", async () => {
      expect((await solve("cbc", smallMilp, asked)).settings_applied).toEqual({
        timeMode: "elapsed",
        seconds: "7.5",
        ratioGap: "0.003",
        threads: "2",
        preprocess: "off",
      });
    });
    it("glpk: as its command line echo shows them (whole seconds; no threads option)", async () => {
      const applied = (await solve("glpk", smallMilp, asked)).settings_applied!;
      expect(applied.command_line).toMatch(/--tmlim 8 --mipgap 0\.003/);
      expect(applied).toMatchObject({ tmlim: 8, mipgap: 0.003 });
    });
    // The verification gate's repeat of a big-M trickle (functions/core/solvers/verification.ts).
    it("the integrality tolerance of the gate's repeat reaches scip, highs (native and wasm) and cbc, read back from each", async () => {
      const tight = { ...asked, integralityTolerance: 1e-9 };
      expect((await solve("scip", smallMilp, tight)).settings_applied).toMatchObject({ "numerics/feastol": 1e-9 });
      expect((await solve("highs", smallMilp, tight)).settings_applied).toMatchObject({ mip_feasibility_tolerance: 1e-9 });
      expect((await createHighsAdapter(null, "wasm").solve(smallMilp, tight, context())).settings_applied).toMatchObject({ mip_feasibility_tolerance: 1e-9 });
      expect((await solve("cbc", smallMilp, tight)).settings_applied).toMatchObject({ integerTolerance: "1e-09" });
    });
  });

  // Instances each solver cannot finish in 1 s here, but finds an incumbent for.
  it.each([
    ["scip", "dcmulti.mps"],
    ["highs", "scale/stein45.mps"], // dcmulti ends within 1 s on a quiet machine
    ["cbc", "misc03.mps"],
    ["glpk", "gt2.mps"],
  ] as const)("%s stopped by a 1 s limit on %s reports time_limit with its incumbent and bound", async (name, file) => {
    const p = instance(file);
    const r = await solve(name, p, settings({ timeLimitSeconds: 1 }));
    expect(r.solver_status).toBe("time_limit");
    expect(r.objective_value).not.toBeNull();
    expect(r.dual_bound).not.toBeNull();
    expect(r.dual_bound!).toBeLessThanOrEqual(r.objective_value! + 1e-6);
    expect(r.gap).toBeGreaterThan(0);
    expect(Object.keys(r.solution ?? {})).toHaveLength(p.variables.length);
  });

  describe("quadratic objectives go to SCIP and HiGHS", () => {
    it.each(["scip", "highs"] as const)("%s: convex QP, minimised and maximised", async (name) => {
      const min = await solve(name, qp);
      expect(min.solver_status).toBe("optimal");
      expect(min.objective_value).toBeCloseTo(2, 5);
      expect(min.solution!.x).toBeCloseTo(2, 3);
      expect(min.solution!.y).toBeCloseTo(1, 3);
      const max = await solve(name, negated(qp));
      expect(max.solver_status).toBe("optimal");
      expect(max.objective_value).toBeCloseTo(-2, 5);
    });
    it("highs (wasm): convex QP", async () => {
      const r = await createHighsAdapter(null, "wasm").solve(qp, settings(), context());
      expect(r.objective_value).toBeCloseTo(2, 5);
    });
    it.each(["minimize", "maximize"] as const)(
      "scip: a convex QP over free variables is proved optimal (%s), its objective q(x) + c evaluated at the point",
      async (sense) => {
        // min x² + xy + y² − 2x − 4y + 5 over free x, y: 1 at (0, 2). The maximisation is its negation.
        const sign = sense === "minimize" ? 1 : -1;
        const free = problem({
          sense,
          variables: [
            { name: "x", lb: null },
            { name: "y", lb: null },
          ],
          objective: {
            constant: 5 * sign,
            terms: [
              { var: "x", coef: -2 * sign },
              { var: "y", coef: -4 * sign },
            ],
            quadratic: [
              { var1: "x", var2: "x", coef: sign },
              { var1: "x", var2: "y", coef: sign },
              { var1: "y", var2: "y", coef: sign },
            ],
          },
        });
        const r = await solve("scip", free, settings({ timeLimitSeconds: 30 }));
        expect(r.solver_status).toBe("optimal"); // before the epigraph variable was bounded: time_limit, no bound
        expect(r.objective_value! * sign).toBeCloseTo(1, 6);
        expect(r.objective_value).toBeCloseTo(objectiveOf(free, r.solution!), 12);
        expect(r.solution!.x).toBeCloseTo(0, 3);
        expect(r.solution!.y).toBeCloseTo(2, 3);
        expect(r.dual_bound! * sign).toBeLessThanOrEqual(1 + 1e-9);
        expect(r.gap!).toBeLessThanOrEqual(1e-4);
      },
    );
    it("scip: a nonconvex quadratic objective still goes through (spatial branching, no bound from the unconstrained optimum)", async () => {
      // min xy over [−1, 2]²: −2 at (−1, 2) or (2, −1).
      const saddle = problem({
        variables: [
          { name: "x", lb: -1, ub: 2 },
          { name: "y", lb: -1, ub: 2 },
        ],
        objective: { quadratic: [{ var1: "x", var2: "y", coef: 1 }] },
      });
      const r = await solve("scip", saddle);
      expect(r.solver_status).toBe("optimal");
      expect(r.objective_value).toBeCloseTo(-2, 6);
    });
    it("scip takes integers with quadratic terms; highs refuses them in its own words", async () => {
      const scip = await solve("scip", miqp);
      expect(scip.solver_status).toBe("optimal");
      expect(scip.objective_value).toBeCloseTo(0.32, 6);
      expect(scip.solution).toEqual({ x: 1, y: 3 });
      const highs = await solve("highs", miqp);
      expect(highs).toMatchObject({ solver_status: "error", objective_value: null });
      expect(highs.error_message).toMatch(/integer variables and quadratic terms/);
    });
    it.each(["cbc", "glpk"] as const)("%s refuses quadratic terms instead of dropping them", async (name) => {
      expect(await solve(name, qp)).toMatchObject({ solver_status: "error", objective_value: null });
    });
  });

  describe("the warm Python host", () => {
    // Its overhead per solve is measured by `npm run bench -- latency`, not asserted here.
    it("serves solve after solve, SCIP and HiGHS in turn, without a restart", async () => {
      for (let i = 0; i < 6; i++) expect((await solve(i % 2 ? "scip" : "highs", smallMilp)).solver_status).toBe("optimal");
      expect(python.hostRunning).toBe(true);
    });

    it("falls back to a one-shot interpreter when no host runs, with the same answer", async () => {
      const cold = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
      const oneShot = createAdapters({ python: cold });
      for (const name of ["scip", "highs"] as const) {
        const r = await oneShot.get(name)!.solve(smallMilp, settings(), context());
        expect(r).toMatchObject({ solver_status: "optimal", solution: { "x[1] a": 5, y: 0 } });
      }
      expect(cold.hostRunning).toBe(false);
    });

    it("answers `error` when the interpreter is missing, without throwing", async () => {
      const missing = createAdapters({ python: new PythonRuntime({ pythonPath: "/nonexistent/python" }) });
      expect((await missing.get("scip")!.probe()).available).toBe(false);
      expect(await missing.get("scip")!.solve(smallMilp, settings(), context())).toMatchObject({ solver_status: "error" });
    });
  });

  describe("verdicts on small edge cases, never guessed", () => {
    const maxSum = {
      sense: "maximize" as const,
      objective: {
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
      },
    };
    const cases: Record<string, ProblemInput> = {
      "no rows": {
        variables: [
          { name: "x", lb: 1, ub: 4 },
          { name: "y", type: "integer", lb: -2, ub: 3 },
        ],
        objective: {
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 2 },
          ],
        },
      },
      "an empty row": {
        variables: [{ name: "x", ub: 4 }],
        objective: { terms: [{ var: "x", coef: -1 }] },
        constraints: [
          { name: "e", terms: [], ub: 1 },
          { name: "c", terms: [{ var: "x", coef: 1 }], ub: 3 },
        ],
      },
      "an infeasible empty row": { variables: [{ name: "x" }], constraints: [{ name: "e", terms: [], lb: 1 }] },
      "an unbounded MILP": {
        ...maxSum,
        variables: [
          { name: "x", type: "integer" },
          { name: "y", type: "integer" },
        ],
        constraints: [
          {
            name: "c",
            terms: [
              { var: "x", coef: 1 },
              { var: "y", coef: -1 },
            ],
            ub: 1,
          },
        ],
      },
      // 2x − 2y = 1 has no integer point, while its LP relaxation is unbounded.
      "an infeasible MILP with an unbounded relaxation": {
        ...maxSum,
        variables: [
          { name: "x", type: "integer", lb: null },
          { name: "y", type: "integer", lb: null },
        ],
        objective: { terms: [{ var: "x", coef: 1 }] },
        constraints: [
          {
            name: "c",
            terms: [
              { var: "x", coef: 2 },
              { var: "y", coef: -2 },
            ],
            lb: 1,
            ub: 1,
          },
        ],
      },
    };
    const expected: Record<string, Record<SolverName, string>> = {
      "no rows": { scip: "optimal", highs: "optimal", cbc: "optimal", glpk: "optimal", jaos: "" },
      "an empty row": { scip: "optimal", highs: "optimal", cbc: "optimal", glpk: "optimal", jaos: "" },
      "an infeasible empty row": { scip: "infeasible", highs: "infeasible", cbc: "infeasible", glpk: "infeasible", jaos: "" },
      "an unbounded MILP": { scip: "unbounded", highs: "unbounded", cbc: "unbounded", glpk: "unbounded", jaos: "" },
      // CBC and glpsol search the feasibility problem until their limit: they cannot say, so they say so.
      "an infeasible MILP with an unbounded relaxation": { scip: "infeasible", highs: "infeasible", cbc: "error", glpk: "error", jaos: "" },
    };
    for (const [title, input] of Object.entries(cases)) {
      it.each(["scip", "highs", "cbc", "glpk"] as const)(`%s on ${title}`, async (name) => {
        const r = await solve(name, problem(input), settings({ timeLimitSeconds: 2 }));
        expect(r.solver_status).toBe(expected[title]![name]);
        if (r.solver_status === "error") expect(r.error_message).toMatch(/relaxation is (?:infeasible or )?unbounded|said "Unbounded"/);
        if (r.solver_status !== "optimal") expect(r.objective_value).toBeNull();
      });
    }

    it("cbc: an LP stopped by its limit reports no objective from an infeasible basis", async () => {
      const r = await solve("cbc", instance("25fv47.mps"), settings({ timeLimitSeconds: 0.02 }));
      expect(r).toMatchObject({ solver_status: "time_limit", objective_value: null, solution: null, dual_bound: null });
    });
  });

  it.each(["scip", "cbc"] as const)("%s: an AbortSignal cancels the solve", async (name) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await adapters.get(name)!.solve(instance("dcmulti.mps"), settings({ gapTolerance: 0 }), { ...context(), signal: controller.signal });
    expect(r).toMatchObject({ solver_status: "error", error_message: "cancelled" });
  });
});
