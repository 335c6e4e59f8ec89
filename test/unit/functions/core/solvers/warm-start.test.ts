import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../../../functions/core/errors.js";
import { ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import {
  InitialSolutionSchema,
  MAX_INITIAL_SOLUTION_ENTRIES,
  resolveSettings,
  SettingsRequestSchema,
  toSolveSettings,
} from "../../../../../functions/core/solvers/settings.js";
import {
  assertBasisNamesKnown,
  assertStartNamesKnown,
  assessStart,
  basisWarmStart,
  startForSolver,
  unknownStartNames,
  warmStartOf,
} from "../../../../../functions/core/solvers/warm-start.js";
import { loadConfig } from "../../../../../functions/core/config.js";
import { basisOnProblem, startOnProblem } from "../../../../../functions/core/triggers/warm-start.js";

/** max 3x + 2y, 2x + 3y ≤ 11, x ∈ {0..10}, y binary, z continuous ≤ 1 (cost 0): optimum 15 at x = 5, y = 0. */
const milp = ProblemSchema.parse({
  name: "m",
  sense: "maximize",
  variables: [
    { name: "x", type: "integer", ub: 10 },
    { name: "y", type: "binary" },
    { name: "z", ub: 1 },
  ],
  objective: {
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "cap",
      terms: [
        { var: "x", coef: 2 },
        { var: "y", coef: 3 },
      ],
      ub: 11,
    },
  ],
});
const lp = ProblemSchema.parse({ ...milp, variables: milp.variables.map((v) => ({ ...v, type: "continuous" })) });

describe("settings.initial_solution: the schema", () => {
  it("takes finite values by name and keeps them through the stored settings to the solver's", () => {
    const request = SettingsRequestSchema.parse({ initial_solution: { x: 5, y: 0 } });
    const stored = resolveSettings(loadConfig({}), request);
    expect(stored.initial_solution).toEqual({ x: 5, y: 0 });
    expect(toSolveSettings(stored).initialSolution).toEqual({ x: 5, y: 0 });
    expect(toSolveSettings(resolveSettings(loadConfig({}), {}))).not.toHaveProperty("initialSolution");
  });

  it("refuses non-numbers, empty names and more than the ceiling of entries", () => {
    expect(SettingsRequestSchema.safeParse({ initial_solution: { x: "5" } }).success).toBe(false);
    expect(SettingsRequestSchema.safeParse({ initial_solution: { "": 1 } }).success).toBe(false);
    const tooMany = Object.fromEntries(Array.from({ length: MAX_INITIAL_SOLUTION_ENTRIES + 1 }, (_, i) => [`v${i}`, 0]));
    expect(InitialSolutionSchema.safeParse(tooMany).success).toBe(false);
  });
});

describe("MIP starts: checking", () => {
  it("names the start's unknown variables, and refuses them with a validation error naming them", () => {
    expect(unknownStartNames(milp, { x: 1, q: 2, w: 3 })).toEqual(["q", "w"]);
    expect(() => assertStartNamesKnown(milp, { x: 1 })).not.toThrow();
    let error: unknown;
    try {
      assertStartNamesKnown(milp, { x: 1, q: 2, w: 3 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(422);
    expect((error as ValidationError).issues[0]).toMatchObject({ loc: ["body", "settings", "initial_solution"], msg: expect.stringContaining('"q", "w"') });
  });

  it("judges a complete feasible start by the checker and gives its objective", () => {
    const a = assessStart(milp, { x: 5, y: 0, z: 0 });
    expect(a).toMatchObject({ complete: true, feasible: true, objective: 15, problem: null, unknown: [] });
  });

  it("an infeasible start has no objective and says which row it breaks", () => {
    const a = assessStart(milp, { x: 6, y: 1, z: 0 });
    expect(a).toMatchObject({ complete: true, feasible: false, objective: null });
    expect(a.problem).toMatch(/cap/);
  });

  it("a partial start is neither feasible nor worth an objective, and says how much is missing", () => {
    const a = assessStart(milp, { x: 5 });
    expect(a).toMatchObject({ complete: false, feasible: false, objective: null, problem: "the start leaves 2 of 3 variables out" });
  });

  it("reaches a solver only on a MILP, with only the problem's names", () => {
    expect(startForSolver(milp, assessStart(milp, { x: 5, q: 1 }))).toEqual({ x: 5 });
    expect(startForSolver(lp, assessStart(lp, { x: 5 }))).toBeUndefined();
    expect(startForSolver(milp, null)).toBeUndefined();
  });
});

describe("MIP starts: the result's warm_start", () => {
  const feasible = assessStart(milp, { x: 5, y: 0, z: 0 });
  const broken = assessStart(milp, { x: 6, y: 1, z: 0 });

  it("the solver's word decides acceptance when it gives one", () => {
    expect(warmStartOf(milp, { solver: "cbc", assessment: feasible, use: { passed: true, solverAccepted: true } })).toEqual({
      accepted: true,
      objective_of_start: 15,
    });
    expect(warmStartOf(milp, { solver: "cbc", assessment: feasible, use: { passed: true, solverAccepted: false, note: "CBC could not" } })).toEqual({
      accepted: false,
      objective_of_start: 15,
      note: "CBC could not",
    });
  });

  it("without the solver's word: accepted when feasible and passed", () => {
    expect(warmStartOf(milp, { solver: "scip", assessment: feasible, use: { passed: true, solverAccepted: null } }).accepted).toBe(true);
    expect(warmStartOf(milp, { solver: "scip", assessment: broken, use: { passed: true, solverAccepted: null } }).accepted).toBe(false);
  });

  it("an infeasible start passed for repair: no objective, a note that it was infeasible", () => {
    const w = warmStartOf(milp, { solver: "highs", assessment: broken, use: { passed: true, solverAccepted: false } });
    expect(w.objective_of_start).toBeNull();
    expect(w.note).toMatch(/^the start is infeasible: constraint "cap"/);
  });

  it("a solver that takes no start, and an LP, are noted as ignored", () => {
    expect(warmStartOf(milp, { solver: "glpk", assessment: feasible })).toEqual({
      accepted: false,
      objective_of_start: 15,
      note: "ignored: glpk takes no MIP start",
    });
    expect(warmStartOf(lp, { solver: "highs", assessment: assessStart(lp, { x: 5, y: 0, z: 0 }) }).note).toMatch(/integer variables only/);
  });
});

describe("starting bases", () => {
  it("names a basis's unknown columns and rows in a validation error", () => {
    expect(() => assertBasisNamesKnown(milp, { columns: { x: "basic" }, rows: { cap: "upper" } })).not.toThrow();
    expect(() => assertBasisNamesKnown(milp, { columns: { q: "basic" }, rows: { nope: "basic" } })).toThrow(/"q", "nope"/);
  });

  it("the settings schema takes HiGHS's statuses by name only", () => {
    expect(SettingsRequestSchema.safeParse({ initial_basis: { columns: { x: "lower" }, rows: { cap: "basic" } } }).success).toBe(true);
    expect(SettingsRequestSchema.safeParse({ initial_basis: { columns: { x: "at_lower" }, rows: {} } }).success).toBe(false);
  });

  it("warm_start of a basis: the solver's word on an LP; noted on a MILP and by a solver that takes none", () => {
    expect(basisWarmStart(lp, "highs", { passed: true, solverAccepted: true })).toEqual({ accepted: true, objective_of_start: null });
    expect(basisWarmStart(lp, "highs", { passed: true, solverAccepted: false, note: "not a basis" })).toEqual({
      accepted: false,
      objective_of_start: null,
      note: "not a basis",
    });
    expect(basisWarmStart(lp, "glpk", undefined).note).toBe("ignored: glpk takes no starting basis");
    expect(basisWarmStart(milp, "highs", undefined).note).toBe("ignored: a starting basis is used on LPs only");
  });
});

describe("a trigger's previous run mapped onto this run's model", () => {
  it("keeps the values and statuses of names the model still has, and nothing when none is left", () => {
    expect(startOnProblem({ x: 5, gone: 1 }, milp)).toEqual({ x: 5 });
    expect(startOnProblem({ gone: 1 }, milp)).toBeNull();
    expect(basisOnProblem({ columns: { x: "basic", gone: "lower" }, rows: { cap: "upper", old: "basic" } }, lp)).toEqual({
      columns: { x: "basic" },
      rows: { cap: "upper" },
    });
    expect(basisOnProblem({ columns: { gone: "basic" }, rows: {} }, lp)).toBeNull();
  });
});
