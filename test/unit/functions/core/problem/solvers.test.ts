import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import loadHighs from "highs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLp, writeLp } from "../../../../../functions/core/problem/lp.js";
import { readMps, writeMps } from "../../../../../functions/core/problem/mps.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { originalObjective } from "../../../../../functions/core/problem/write-common.js";
import { machineHas } from "../../../../support/machine.js";
import { objectiveMatches, readInstance, readManifest, type ManifestEntry } from "../../../../support/manifest.js";

/**
 * The writers checked by solvers: a file written from the problem must have the same optimum as the
 * original file. HiGHS (WebAssembly) runs everywhere; glpsol and CBC where they are installed.
 */

type Highs = Awaited<ReturnType<typeof loadHighs>>;
let highs: Highs;
beforeAll(async () => {
  highs = await loadHighs();
});

function highsOptimum(format: "mps" | "lp", data: string): { status: number; objective: number } {
  const model = highs.createModel({ format, data });
  try {
    model.options.set({ output_flag: false });
    model.run();
    return { status: model.getModelStatus(), objective: model.getObjectiveValue() };
  } finally {
    model.dispose();
  }
}

const OPTIMAL = 7;
const manifest = readManifest();
const entry = (file: string) => manifest.find((m) => m.file === file)!;
const readEntry = (m: ManifestEntry) => readMps(readInstance(m));

describe("written instances solve to the manifest's optimum in HiGHS", () => {
  const cases = ["afiro.mps", "e226.mps", "small_mip.mps", "flugpl.mps", "adlittle.mps"];

  it.each(cases)("%s through writeMps (constant left out, then added back)", (file) => {
    const m = entry(file);
    const written = writeMps(readEntry(m), { omitObjectiveConstant: true });
    const result = highsOptimum("mps", written.text);
    expect(result.status).toBe(OPTIMAL);
    expect(objectiveMatches(originalObjective(written, result.objective), m.expectedObjective!)).toBe(true);
  });

  it.each(cases)("%s through writeLp (safe names, ranged rows split, maximisation negated)", (file) => {
    const m = entry(file);
    const written = writeLp(readEntry(m), { safeNames: true, rangedRows: "split", omitObjectiveConstant: true, sense: "minimize" });
    const result = highsOptimum("lp", written.text);
    expect(result.status).toBe(OPTIMAL);
    expect(objectiveMatches(originalObjective(written, result.objective), m.expectedObjective!)).toBe(true);
  });

  it("e226 with the constant written into the file gives −11.6389294 directly", () => {
    const written = writeMps(readEntry(entry("e226.mps")));
    expect(written.omittedObjectiveConstant).toBe(0);
    expect(objectiveMatches(highsOptimum("mps", written.text).objective, -11.6389294)).toBe(true);
  });

  it("stein27_inf.lp stays infeasible when written as MPS", () => {
    const problem = readLp(readInstance(entry("stein27_inf.lp")));
    expect(highsOptimum("mps", writeMps(problem).text).status).toBe(8);
  });
});

describe("quadratic objectives keep their ½ convention through both writers", () => {
  // x² + x·y + y² − 3x over free x, y: the gradient vanishes at (2, −1), where the value is −3.
  const qp = (sense: Problem["sense"], scale: number): Problem => ({
    name: "qp",
    sense,
    variables: [
      { name: "x", lb: null, ub: null, type: "continuous" },
      { name: "y", lb: null, ub: null, type: "continuous" },
    ],
    objective: {
      constant: 5,
      terms: [{ var: "x", coef: -3 * scale }],
      quadratic: [
        { var1: "x", var2: "x", coef: scale },
        { var1: "x", var2: "y", coef: scale },
        { var1: "y", var2: "y", coef: scale },
      ],
    },
    constraints: [
      {
        name: "c",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
        lb: -10,
        ub: 10,
      },
    ],
  });

  it.each([
    ["minimize", 1, 2],
    ["maximize", -1, 8],
  ] as const)("%s: optimum %s·(−3) + 5 in MPS and LP", (sense, scale, expected) => {
    const problem = qp(sense, scale);
    for (const written of [writeMps(problem), writeLp(problem, { rangedRows: "split" })]) {
      const result = highsOptimum(written.text.startsWith("NAME") ? "mps" : "lp", written.text);
      expect(result.status).toBe(OPTIMAL);
      expect(originalObjective(written, result.objective)).toBeCloseTo(expected, 6);
    }
    expect(readMps(writeMps(problem).text)).toEqual(problem);
    expect(readLp(writeLp(problem).text)).toEqual(problem);
  });
});

describe.runIf(machineHas("glpsol", "cbc"))("written instances solve in the CLI solvers", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "problem-io-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The solver's objective from its solution file (first line for CBC, `glpsol -o` report). */
  function glpsol(args: string[], file: string, text: string): number {
    const input = path.join(dir, file);
    const report = `${input}.out`;
    writeFileSync(input, text);
    execFileSync("glpsol", [...args, input, "-o", report], { stdio: "ignore" });
    const match = /Objective:\s+\S+ = (\S+)/.exec(readFileSync(report, "utf8"));
    return Number(match![1]);
  }
  function cbc(file: string, text: string): number {
    const input = path.join(dir, file);
    const solution = `${input}.sol`;
    writeFileSync(input, text);
    execFileSync("cbc", [input, "solve", "solu", solution], { stdio: "ignore" });
    return Number(/objective value\s+(\S+)/.exec(readFileSync(solution, "utf8"))![1]);
  }
  const cliOptions = { safeNames: true, omitObjectiveConstant: true, sense: "minimize" } as const;

  it.each(["afiro.mps", "e226.mps", "small_mip.mps", "flugpl.mps"])("%s in glpsol (free MPS and LP) and CBC (MPS)", (file) => {
    const m = entry(file);
    const problem = readEntry(m);
    const mps = writeMps(problem, cliOptions);
    const lp = writeLp(problem, { ...cliOptions, rangedRows: "split" });
    expect(objectiveMatches(originalObjective(mps, glpsol(["--freemps"], `${file}.mps`, mps.text)), m.expectedObjective!)).toBe(true);
    expect(objectiveMatches(originalObjective(lp, glpsol(["--lp"], `${file}.lp`, lp.text)), m.expectedObjective!)).toBe(true);
    expect(objectiveMatches(originalObjective(mps, cbc(`${file}.cbc.mps`, mps.text)), m.expectedObjective!)).toBe(true);
  });

  it("a maximisation written as minimisation comes back with its own sign", () => {
    const problem: Problem = {
      name: "max",
      sense: "maximize",
      variables: [{ name: "x", lb: 0, ub: 4, type: "integer" }],
      objective: { constant: 1.5, terms: [{ var: "x", coef: 2 }] },
      constraints: [{ name: "cap", terms: [{ var: "x", coef: 1 }], lb: null, ub: 3.5 }],
    };
    const mps = writeMps(problem, cliOptions);
    expect(originalObjective(mps, glpsol(["--freemps"], "max.mps", mps.text))).toBe(7.5);
    expect(originalObjective(mps, cbc("max.cbc.mps", mps.text))).toBe(7.5);
  });
});
