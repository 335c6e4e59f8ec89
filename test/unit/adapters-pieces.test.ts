import { describe, expect, it } from "vitest";
import { ProblemSchema, type ProblemInput } from "../../functions/core/problem/schema.js";
import { cbcArguments } from "../../solver-container/src/adapters/cbc.js";
import { readMps, writeMps } from "../../functions/core/problem/mps.js";
import {
  checkRay,
  feasibilityProblem,
  isImprovingRay,
  pointViolation,
  recessionProblem,
  settleInfeasibleOrUnbounded,
  type AuxiliaryAnswer,
} from "../../solver-container/src/adapters/certificates.js";
import { glpkArguments, glpkTimeLimit } from "../../solver-container/src/adapters/glpk.js";
import { namedSolution, toMatrixForm } from "../../solver-container/src/adapters/matrix-form.js";
import { resolvePythonPath, REPO_ROOT } from "../../solver-container/src/adapters/paths.js";
import { relativeGap } from "../../solver-container/src/adapters/result.js";

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
    const answers = (feasibility: AuxiliaryAnswer, recession: AuxiliaryAnswer) => async (_: unknown, purpose: "feasibility" | "recession") =>
      purpose === "feasibility" ? feasibility : recession;
    const point = { status: "optimal" as const, values: { x: 0, y: 0 }, words: "" };
    const ray = { status: "optimal" as const, values: { x: 1, y: 1 }, words: "" };
    expect(await settleInfeasibleOrUnbounded(unbounded, "claim", answers(point, ray))).toEqual({ status: "unbounded" });
    expect(await settleInfeasibleOrUnbounded(unbounded, "claim", answers({ status: "infeasible", values: null, words: "" }, ray))).toEqual({
      status: "infeasible",
    });
    const badPoint = { status: "optimal" as const, values: { x: 5, y: 0 }, words: "" };
    expect(await settleInfeasibleOrUnbounded(unbounded, "claim", answers(badPoint, ray))).toMatchObject({ status: "error" });
    const noRay = { status: "optimal" as const, values: { x: 0, y: 0 }, words: "" };
    expect(await settleInfeasibleOrUnbounded(unbounded, "CBC said", answers(point, noRay))).toMatchObject({
      status: "error",
      message: expect.stringContaining("CBC said"),
    });
  });
});

describe("settings reach the CLI solvers", () => {
  const settings = { timeLimitSeconds: 7.5, gapTolerance: 0.003, threads: 2 };
  it("cbc: elapsed-time limit, ratio gap, threads", () => {
    expect(cbcArguments("m.mps", "m.sol", settings)).toEqual([
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
    ]);
    expect(cbcArguments("m.mps", "m.sol", { ...settings, threads: 1 })).not.toContain("threads");
  });
  it("glpsol: whole-second time limit rounded up, mip gap, presolve switch", () => {
    expect(glpkArguments("m.mps", "m.raw", settings)).toEqual(["--freemps", "m.mps", "--tmlim", "8", "--mipgap", "0.003", "-w", "m.raw"]);
    expect(glpkArguments("m.mps", "m.raw", settings, false)).toContain("--nopresol");
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
