import { describe, expect, it } from "vitest";
import { hasOpenIntegerColumn, ProblemSchema, type ProblemInput } from "../../../../../functions/core/problem/schema.js";
import { cbcArguments } from "../../../../../solver-container/src/adapters/cbc.js";
import { readMps, writeMps } from "../../../../../functions/core/problem/mps.js";
import {
  checkRay,
  farkasProblem,
  feasibilityProblem,
  isImprovingRay,
  pointViolation,
  provesInfeasible,
  recessionProblem,
  settleClaim,
  type AuxiliaryAnswer,
  type AuxiliaryPurpose,
} from "../../../../../solver-container/src/adapters/certificates.js";
import { glpkArguments, glpkTimeLimit } from "../../../../../solver-container/src/adapters/glpk.js";
import { namedSolution, toMatrixForm } from "../../../../../solver-container/src/adapters/matrix-form.js";
import { resolvePythonPath, REPO_ROOT } from "../../../../../solver-container/src/adapters/paths.js";
import { ranOutOfMemory, solverEnvironment, withMemoryCeiling } from "../../../../../solver-container/src/adapters/process.js";
import { relativeGap } from "../../../../../solver-container/src/adapters/result.js";
import { loadConfig } from "../../../../../functions/core/config.js";

const problem = (input: ProblemInput) => ProblemSchema.parse(input);

/** max x + y  s.t.  x − y ≤ 1,  x, y ≥ 0: unbounded along (1, 1). */
const unbounded = problem({
  sense: "maximize",
  variables: [{ name: "x" }, { name: "y" }],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 1 },
    ],
  },
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
});

describe("matrix form", () => {
  it("merges repeated terms, clips binaries, keeps infinite bounds as null", () => {
    const form = toMatrixForm(
      problem({
        variables: [
          { name: "a", lb: null },
          { name: "b", type: "binary" },
          { name: "c", type: "integer", ub: 7 },
        ],
        objective: {
          constant: 3,
          terms: [
            { var: "a", coef: 1 },
            { var: "a", coef: 2 },
          ],
          quadratic: [
            { var1: "b", var2: "a", coef: 1 },
            { var1: "a", var2: "b", coef: 2 },
            { var1: "c", var2: "c", coef: 4 },
          ],
        },
        constraints: [
          {
            name: "r",
            terms: [
              { var: "c", coef: 1 },
              { var: "a", coef: 2 },
              { var: "c", coef: -1 },
            ],
            lb: 1,
          },
        ],
      }),
    );
    expect(form.colCost).toEqual([3, 0, 0]);
    expect(form.colLower).toEqual([null, 0, 0]);
    expect(form.colUpper).toEqual([null, 1, 7]);
    expect(form.integrality).toEqual([0, 1, 1]);
    expect(form.offset).toBe(3);
    // c − c cancels: the row keeps only a.
    expect([form.rowStarts, form.rowIndices, form.rowValues]).toEqual([[0, 1], [0], [2]]);
    expect([form.qRow, form.qCol, form.qValues]).toEqual([
      [0, 2],
      [1, 2],
      [3, 4],
    ]);
    expect(namedSolution(form, [1, 0, 2])).toEqual({ a: 1, b: 0, c: 2 });
  });
});

describe("certificates", () => {
  it("builds the feasibility problem and the recession LP", () => {
    expect(feasibilityProblem(unbounded).objective.terms).toEqual([]);
    const rec = recessionProblem(unbounded);
    expect(rec.sense).toBe("minimize");
    expect(rec.objective.terms).toEqual([
      { var: "x", coef: -1 },
      { var: "y", coef: -1 },
    ]);
    expect(rec.variables.map((v) => [v.lb, v.ub])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(rec.constraints[0]).toMatchObject({ lb: null, ub: 0 });
  });

  it("checks points and rays in the problem's own terms", () => {
    expect(pointViolation(unbounded, { x: 1, y: 0 }).worst).toBe(0);
    expect(pointViolation(unbounded, { x: 3, y: 0 })).toMatchObject({ where: "row c (upper side)" });
    expect(pointViolation(problem({ variables: [{ name: "z", type: "integer" }] }), { z: 0.5 }).where).toBe("integrality of z");
    expect(isImprovingRay(checkRay(unbounded, { x: 1, y: 1 }))).toBe(true);
    expect(isImprovingRay(checkRay(unbounded, { x: 1, y: 0 }))).toBe(false); // leaves the row
    expect(isImprovingRay(checkRay(unbounded, { x: 0, y: 0 }))).toBe(false); // improves nothing
  });

  it("settles unbounded only with a verified point and ray, and never guesses", async () => {
    const answers = (feasibility: AuxiliaryAnswer, recession: AuxiliaryAnswer) => async (_: unknown, purpose: AuxiliaryPurpose) =>
      purpose === "feasibility" ? feasibility : purpose === "recession" ? recession : none;
    const none: AuxiliaryAnswer = { status: "other", values: null, words: "" };
    const point = { status: "optimal" as const, values: { x: 0, y: 0 }, words: "" };
    const ray = { status: "optimal" as const, values: { x: 1, y: 1 }, words: "" };
    expect(await settleClaim(unbounded, { claim: "unbounded", said: "claim", solveAux: answers(point, ray) })).toEqual({
      status: "unbounded",
      certificate: "ray",
    });
    const badPoint = { status: "optimal" as const, values: { x: 5, y: 0 }, words: "" };
    expect(await settleClaim(unbounded, { claim: "unbounded", said: "claim", solveAux: answers(badPoint, ray) })).toMatchObject({ status: "error" });
    const noRay = { status: "optimal" as const, values: { x: 0, y: 0 }, words: "" };
    expect(await settleClaim(unbounded, { claim: "infeasible_or_unbounded", said: "CBC said", solveAux: answers(point, noRay) })).toMatchObject({
      status: "error",
      message: expect.stringContaining("CBC said"),
    });
    // "No point" for an LP needs a Farkas certificate, which this feasible LP cannot have.
    const noPoint = { status: "infeasible" as const, values: null, words: "" };
    expect(await settleClaim(unbounded, { claim: "unbounded", said: "claim", solveAux: answers(noPoint, ray) })).toMatchObject({
      status: "error",
      message: expect.stringContaining("no Farkas certificate"),
    });
  });
});

describe("Farkas certificates", () => {
  /** x + 2y ≤ 4, 3x + y ≤ 5, 4x + 3y ≥ 10 (x, y ≥ 0): the first two rows add up to 4x + 3y ≤ 9. */
  const infeasible = problem({
    variables: [{ name: "x" }, { name: "y", type: "integer" }],
    constraints: [
      {
        name: "a",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 2 },
        ],
        ub: 4,
      },
      {
        name: "b",
        terms: [
          { var: "x", coef: 3 },
          { var: "y", coef: 1 },
        ],
        ub: 5,
      },
      {
        name: "c",
        terms: [
          { var: "x", coef: 4 },
          { var: "y", coef: 3 },
        ],
        lb: 10,
      },
    ],
  });

  it("builds the LP over multipliers of row sides and bounds, each in [0, 1], that cancel every column", () => {
    const farkas = farkasProblem(infeasible);
    expect(farkas.sense).toBe("maximize");
    expect(farkas.variables.map((v) => v.name)).toEqual(["row0_upper", "row1_upper", "row2_lower", "column0_lower", "column1_lower"]);
    expect(farkas.variables.every((v) => v.lb === 0 && v.ub === 1)).toBe(true);
    expect(farkas.objective.terms).toEqual([
      { var: "row0_upper", coef: -4 },
      { var: "row1_upper", coef: -5 },
      { var: "row2_lower", coef: 10 },
    ]);
    expect(farkas.constraints[0]).toEqual({
      name: "column0",
      lb: 0,
      ub: 0,
      terms: [
        { var: "row0_upper", coef: -1 },
        { var: "row1_upper", coef: -3 },
        { var: "row2_lower", coef: 4 },
        { var: "column0_lower", coef: 1 },
      ],
    });
  });

  it("accepts the combination that proves infeasibility, and nothing weaker", () => {
    expect(provesInfeasible(infeasible, { row0_upper: 1, row1_upper: 1, row2_lower: 1 })).toBe(true);
    expect(provesInfeasible(infeasible, { row0_upper: 0.5, row1_upper: 0.5, row2_lower: 0.5 })).toBe(true);
    expect(provesInfeasible(infeasible, { row0_upper: 1, row2_lower: 1 })).toBe(false);
    expect(provesInfeasible(infeasible, {})).toBe(false);
    const feasible = { ...infeasible, constraints: infeasible.constraints.map((c) => (c.name === "c" ? { ...c, lb: 9 } : c)) };
    expect(provesInfeasible(feasible, { row0_upper: 1, row1_upper: 1, row2_lower: 1 })).toBe(false);
  });

  it("settles an infeasibility claim by the certificate alone, and refuses one it cannot prove", async () => {
    const asked: AuxiliaryPurpose[] = [];
    const certificate = { status: "optimal" as const, values: { row0_upper: 1, row1_upper: 1, row2_lower: 1 }, words: "" };
    const solveAux = (farkas: AuxiliaryAnswer, rest: AuxiliaryAnswer) => async (_: unknown, purpose: AuxiliaryPurpose) => {
      asked.push(purpose);
      return purpose === "farkas" ? farkas : rest;
    };
    expect(await settleClaim(infeasible, { claim: "infeasible", said: "claim", solveAux: solveAux(certificate, certificate) })).toEqual({
      status: "infeasible",
      certificate: "farkas",
    });
    expect(asked).toEqual(["farkas"]);
    const zero = { status: "optimal" as const, values: {}, words: "" };
    const integerSearch = { status: "integer_infeasible" as const, values: null, words: "" };
    // A MILP's finished search stands on the solver's word; an LP's "infeasible" does not.
    expect(await settleClaim(infeasible, { claim: "infeasible", said: "claim", solveAux: solveAux(zero, integerSearch) })).toEqual({
      status: "infeasible",
      certificate: null,
    });
    const lp = { ...infeasible, variables: infeasible.variables.map((v) => ({ ...v, type: "continuous" as const })) };
    expect(
      await settleClaim(lp, { claim: "infeasible", said: "glpsol said so", solveAux: solveAux(zero, { ...integerSearch, status: "infeasible" }) }),
    ).toMatchObject({
      status: "error",
      message: expect.stringContaining("glpsol said so"),
    });
  });
});

describe("settings reach the CLI solvers", () => {
  const settings = { timeLimitSeconds: 7.5, gapTolerance: 0.003, threads: 2 };
  it("cbc: elapsed-time limit, ratio gap, threads, the solution in text and in full precision, preprocessing switch", () => {
    expect(cbcArguments({ mpsFile: "m.mps", solutionFile: "m.sol", settings })).toEqual([
      "m.mps",
      "timeMode",
      "elapsed",
      "sec",
      "7.5",
      "ratio",
      "0.003",
      "threads",
      "2",
      "solve",
      "solu",
      "m.sol",
      "saveSolution",
      "m.sol.bin",
    ]);
    expect(cbcArguments({ mpsFile: "m.mps", solutionFile: "m.sol", settings: { ...settings, threads: 1 } })).not.toContain("threads");
    expect(cbcArguments({ mpsFile: "m.mps", solutionFile: "m.sol", settings, preprocess: false }).join(" ")).toContain("preprocess off solve");
  });
  it("glpsol: whole-second time limit rounded up, mip gap, presolve switch", () => {
    expect(glpkArguments({ mpsFile: "m.mps", rawFile: "m.raw", settings })).toEqual(["--freemps", "m.mps", "--tmlim", "8", "--mipgap", "0.003", "-w", "m.raw"]);
    expect(glpkArguments({ mpsFile: "m.mps", rawFile: "m.raw", settings, switches: { presolve: false, mipPresolve: true } })).toContain("--nopresol");
    expect(glpkArguments({ mpsFile: "m.mps", rawFile: "m.raw", settings, switches: { presolve: true, mipPresolve: false } })).toContain("--nointopt");
    expect(glpkArguments({ mpsFile: "m.mps", rawFile: "m.raw", settings, switches: { presolve: false, mipPresolve: true, exactCheck: true } })).toContain(
      "--xcheck",
    );
    expect(glpkArguments({ mpsFile: "m.mps", rawFile: "m.raw", settings, memoryMb: 512 }).join(" ")).toContain("--memlim 512");
    expect(hasOpenIntegerColumn(problem({ variables: [{ name: "n", type: "integer", ub: 5 }] }))).toBe(false);
    expect(hasOpenIntegerColumn(problem({ variables: [{ name: "n", type: "integer" }] }))).toBe(true);
    expect(hasOpenIntegerColumn(problem({ variables: [{ name: "b", type: "binary" }, { name: "x" }] }))).toBe(false);
    expect(glpkTimeLimit(0.2)).toBe(1);
  });
  it("writes an RHS section even when every right-hand side is 0 (CBC refuses a file without one)", () => {
    const written = writeMps({
      name: "zero",
      sense: "minimize",
      variables: [{ name: "x", lb: 0, ub: 1, type: "continuous" }],
      objective: { constant: 0, terms: [{ var: "x", coef: 1 }] },
      constraints: [{ name: "c", terms: [{ var: "x", coef: 1 }], lb: 0, ub: null }],
    });
    expect(written.text).toMatch(/^RHS\s*$/m);
    expect(readMps(written.text).constraints).toHaveLength(1);
  });
});

describe("solver child processes", () => {
  it("see PATH, HOME, the locale and the venv, never AWS credentials or the container-credentials endpoint", () => {
    const env = solverEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/w",
      TMPDIR: "/tmp",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      VIRTUAL_ENV: "/app/.venv",
      OMP_NUM_THREADS: "1",
      AWS_ACCESS_KEY_ID: "a",
      AWS_SECRET_ACCESS_KEY: "s",
      AWS_SESSION_TOKEN: "t",
      AWS_REGION: "eu-west-1",
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "/v2/credentials/x",
      ECS_CONTAINER_METADATA_URI_V4: "http://169.254.170.2/v4",
      TABLE_NAME: "incumbent",
      JWT_SECRET: "j",
      NODE_OPTIONS: "--inspect",
    });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/w", TMPDIR: "/tmp", LANG: "C.UTF-8", LC_ALL: "C", VIRTUAL_ENV: "/app/.venv", OMP_NUM_THREADS: "1" });
  });

  it("run under a data ceiling through the shell's ulimit, in the same process; without one, as given", () => {
    expect(withMemoryCeiling("cbc", ["m.mps", "solve"], 512)).toEqual({
      command: "/bin/sh",
      args: ["-c", 'ulimit -d 524288 && exec "$0" "$@"', "cbc", "m.mps", "solve"],
    });
    expect(withMemoryCeiling("cbc", ["m.mps"], 0)).toEqual({ command: "cbc", args: ["m.mps"] });
    expect(withMemoryCeiling("cbc", ["m.mps"], undefined)).toEqual({ command: "cbc", args: ["m.mps"] });
  });

  it("know an out-of-memory end by the solver's words or by a SIGKILL nobody here sent", () => {
    const ended = (stderr: string, exitSignal: NodeJS.Signals | null = "SIGABRT", stopped: "deadline" | null = null) => ({
      stdout: "",
      stderr,
      exitSignal,
      stopped,
    });
    expect(ranOutOfMemory(ended("terminate called after throwing an instance of 'std::bad_alloc'"))).toBe(true);
    expect(ranOutOfMemory(ended("glp_alloc: memory allocation limit exceeded"))).toBe(true);
    expect(ranOutOfMemory(ended("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"))).toBe(true);
    expect(ranOutOfMemory(ended("", "SIGKILL"))).toBe(true);
    expect(ranOutOfMemory(ended("", "SIGKILL", "deadline"))).toBe(false);
    expect(ranOutOfMemory(ended("Segmentation fault", "SIGSEGV"))).toBe(false);
  });

  it("SOLVER_MEMORY_MB: 2048 MB by default, 0 for none", () => {
    expect(loadConfig({}).solverMemoryMb).toBe(2048);
    expect(loadConfig({ SOLVER_MEMORY_MB: "0" }).solverMemoryMb).toBe(0);
  });
});

describe("small rules", () => {
  it("one gap definition for all solvers", () => {
    expect(relativeGap(100, 100)).toBe(0);
    expect(relativeGap(100, 90)).toBeCloseTo(0.1, 12);
    expect(relativeGap(-100, -110)).toBeCloseTo(0.1, 12);
    expect(relativeGap(0, 0)).toBe(0);
    expect(relativeGap(null, 1)).toBeNull();
  });
  it("resolves the configured interpreter against the repo root, not the cwd", () => {
    expect(resolvePythonPath(".venv/bin/python")).toBe(`${REPO_ROOT}/.venv/bin/python`);
    expect(resolvePythonPath("/usr/bin/python3")).toBe("/usr/bin/python3");
    expect(resolvePythonPath("python3")).toBe("python3");
  });
});
