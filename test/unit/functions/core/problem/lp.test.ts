import { describe, expect, it } from "vitest";
import { readLp, writeLp } from "../../../../../functions/core/problem/lp.js";
import { ProblemParseError } from "../../../../../functions/core/problem/parse-error.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";

function parseError(text: string): ProblemParseError {
  try {
    readLp(text);
  } catch (error) {
    if (error instanceof ProblemParseError) return error;
    throw error;
  }
  throw new Error("expected a ProblemParseError");
}

describe("readLp", () => {
  it("reads sense keywords and their abbreviations, named and unnamed constraints", () => {
    for (const [keyword, sense] of [
      ["Minimize", "minimize"],
      ["MINIMUM", "minimize"],
      ["min", "minimize"],
      ["Maximize", "maximize"],
      ["max", "maximize"],
      ["maximum", "maximize"],
    ] as const) {
      for (const st of ["Subject To", "such that", "st", "s.t.", "ST"]) {
        const p = readLp(`${keyword}\n obj: 2 x + 3y\n${st}\n c1: x + y >= 1\n x - y <= 4\nEnd`);
        expect(p.sense).toBe(sense);
        expect(p.objective.terms).toEqual([
          { var: "x", coef: 2 },
          { var: "y", coef: 3 },
        ]);
        expect(p.constraints.map((c) => [c.name, c.lb, c.ub])).toEqual([
          ["c1", 1, null],
          ["c2", null, 4],
        ]);
      }
    }
  });

  it("reads ranged constraints in both directions, infinite sides and `=<`/`=>`/`<`/`>` senses", () => {
    const p = readLp(
      `Minimize\n x\nSubject To\n r1: -3 <= x + y <= 3\n r2: 5 >= x - y >= -2\n r3: 2 <= x\n r4: x + y >= -inf\n r5: x =< 4\n r6: y => 1\n r7: x < 9\n r8: y > 0\n r9: x = 2\nEnd`,
    );
    expect(p.constraints.map((c) => [c.name, c.lb, c.ub])).toEqual([
      ["r1", -3, 3],
      ["r2", -2, 5],
      ["r3", 2, null],
      ["r4", null, null],
      ["r5", null, 4],
      ["r6", 1, null],
      ["r7", null, 9],
      ["r8", 0, null],
      ["r9", 2, 2],
    ]);
  });

  it("reads every bound form; the last one given wins", () => {
    const p = readLp(
      `Minimize\n a + b + c + d + e + f + g + h\nSubject To\n c: a >= 0\nBounds\n a free\n -inf <= b <= 5\n c >= -Infinity\n d <= +INF\n 2 <= e\n 7 >= f\n g = 3\n h <= 9\n -1 <= h <= 2\nEnd`,
    );
    expect(p.variables.map((v) => [v.name, v.lb, v.ub])).toEqual([
      ["a", null, null],
      ["b", null, 5],
      ["c", null, null],
      ["d", 0, null],
      ["e", 2, null],
      ["f", 0, 7],
      ["g", 3, 3],
      ["h", -1, 2],
    ]);
  });

  it("reads General/Generals/Integers and Binary/Binaries, declaring unseen variables", () => {
    const p = readLp(`Maximize\n x\nSubject To\n c: x + y <= 10\nBounds\n y <= 5\n 0 <= z <= 1\nGenerals\n y w\nBinaries\n z v\nEnd`);
    expect(p.variables.map((v) => [v.name, v.type, v.lb, v.ub])).toEqual([
      ["x", "continuous", 0, null],
      ["y", "integer", 0, 5],
      ["z", "binary", 0, 1],
      ["w", "integer", 0, null],
      ["v", "binary", 0, 1],
    ]);
    for (const section of ["General", "Gen", "Integers", "integer"]) {
      expect(readLp(`Minimize\n x\n${section}\n x\nEnd`).variables[0]!.type).toBe("integer");
    }
    for (const section of ["Binary", "bin", "BINARIES"]) {
      expect(readLp(`Minimize\n x\n${section}\n x\nEnd`).variables[0]!.type).toBe("binary");
    }
  });

  it("intersects a binary's declared bounds with [0, 1]", () => {
    const p = readLp(`Minimize\n x + y\nSubject To\n c: x + y >= 0\nBounds\n x = 1\n -5 <= y <= 5\nBinary\n x y\nEnd`);
    expect(p.variables.map((v) => [v.lb, v.ub])).toEqual([
      [1, 1],
      [0, 1],
    ]);
  });

  it("reads the quadratic objective [ … ] / 2, objective constants and comments", () => {
    const p = readLp(
      `\\Problem name: quad\n\\ a comment\nMinimize\n obj: 3 + x - 2 y + [ 4 x ^ 2 + 2 x * y - 6 y^2 + 2 y * x ] / 2 - 1 \\ trailing comment\nSubject To\n c: x + y >= 1\nEnd`,
    );
    expect(p.name).toBe("quad");
    expect(p.objective.constant).toBe(2);
    expect(p.objective.quadratic).toEqual([
      { var1: "x", var2: "x", coef: 2 },
      { var1: "x", var2: "y", coef: 2 },
      { var1: "y", var2: "y", coef: -3 },
    ]);
  });

  it("sums repeated variables, drops zeros and keeps variables in order of first appearance", () => {
    const p = readLp(`Minimize\n obj: 0 z + x + x - y + y\nSubject To\n c: 2 z + x - 2 z >= 1\nEnd`);
    expect(p.variables.map((v) => v.name)).toEqual(["z", "x", "y"]);
    expect(p.objective.terms).toEqual([{ var: "x", coef: 2 }]);
    expect(p.constraints[0]!.terms).toEqual([{ var: "x", coef: 1 }]);
  });

  it("names unnamed constraints c1, c2, … without clashing with given names", () => {
    const p = readLp(`Minimize\n x\nSubject To\n x >= 1\n c1: x <= 5\n x <= 7\nEnd`);
    expect(p.constraints.map((c) => c.name)).toEqual(["c1_1", "c1", "c3"]);
  });
});

describe("readLp errors name the line", () => {
  const cases: [string, string, number, RegExp][] = [
    ["nothing before the objective", "x + y\nMinimize\n x\nEnd", 1, /expected Minimize or Maximize/],
    ["missing sense", "Minimize\n x\nSubject To\n c: x + y\n d: x >= 1\nEnd", 5, /expected <=, >= or = after the constraint's expression, found "d"/],
    [
      "missing right-hand side",
      "Minimize\n x\nSubject To\n c: x + y >=\nBounds\n x <= 1\nEnd",
      5,
      /expected a number for the right-hand side, found "bounds"/i,
    ],
    ["constant on the left", "Minimize\n x\nSubject To\n c: x + 3 >= 2\nEnd", 4, /constant \(3\) on the left/],
    ["quadratic constraint", "Minimize\n x\nSubject To\n\n c: [ x ^ 2 ] <= 2\nEnd", 5, /quadratic constraints are not supported/],
    ["bad power", "Minimize\n obj: [ x ^ 3 ] / 2\nEnd", 2, /only squares/],
    ["divided by 3", "Minimize\n obj: [ x ^ 2 ] / 3\nEnd", 2, /divided by 2/],
    ["unclosed bracket", "Minimize\n obj: [ x ^ 2\nSubject To\n c: x >= 1\nEnd", 2, /not closed/],
    ["crossed bounds", "Minimize\n x\nSubject To\n c: x >= 0\nBounds\n x >= 3\n\n x <= 1\nEnd", 8, /lower bound 3 above its upper bound 1/],
    ["negative upper bound keeps lower bound 0", "Minimize\n x\nSubject To\n c: x >= -5\nBounds\n x <= -1\nEnd", 6, /lower bound 0 above its upper bound -1/],
    ["crossed ranged row", "Minimize\n x\nSubject To\n r: 5 <= x <= 3\nEnd", 4, /lower side 5 above upper side 3/],
    ["mixed ranged senses", "Minimize\n x\nSubject To\n r: 1 <= x >= 3\nEnd", 4, /one lower and one upper side/],
    ["bad bound", "Minimize\n x\nSubject To\n c: x >= 0\nBounds\n x ~ 3\nEnd", 6, /expected <=, >=, = or "free" after "x"/],
    ["indicator", "Minimize\n x\nSubject To\n c: b = 1 -> x >= 2\nEnd", 4, /indicator constraints/],
    ["SOS", "Minimize\n x\nSubject To\n c: x >= 0\nSOS\n s1: S1:: x:1\nEnd", 5, /sos section is not supported/],
    ["semi-continuous", "Minimize\n x\nSubject To\n c: x >= 0\nSemi-Continuous\n x\nEnd", 5, /semi-continuous section is not supported/],
    ["two objectives", "Minimize\n x\nMaximize\n x\nEnd", 3, /second objective section/],
    ["duplicate constraint name", "Minimize\n x\nSubject To\n c: x >= 0\n c: x <= 4\nEnd", 5, /"c" is used twice/],
    ["missing End", "Minimize\n x\nSubject To\n c: x >= 0\n", 4, /without End/],
    ["number in Generals", "Minimize\n x\nSubject To\n c: x >= 0\nGenerals\n x 3\nEnd", 6, /expected a variable name, found "3"/],
    ["name starting with a period", "Minimize\n .x\nEnd", 2, /cannot start with "\."/],
  ];

  it.each(cases)("%s", (_label, text, line, message) => {
    const error = parseError(text);
    expect(error.reason).toMatch(message);
    expect(error.line).toBe(line);
    expect(error.message).toBe(`LP line ${line}: ${error.reason}`);
  });
});

describe("writeLp", () => {
  const problem: Problem = {
    name: "my model",
    sense: "maximize",
    variables: [
      { name: "x(1,2)", lb: null, ub: 4, type: "continuous" },
      { name: "n", lb: -2, ub: null, type: "integer" },
      { name: "b", lb: 0, ub: null, type: "binary" },
      { name: "idle", lb: 0, ub: null, type: "continuous" },
    ],
    objective: {
      constant: -1.5,
      terms: [
        { var: "n", coef: 1 },
        { var: "x(1,2)", coef: -1 },
      ],
      quadratic: [{ var1: "n", var2: "x(1,2)", coef: -0.5 }],
    },
    constraints: [
      {
        name: "range",
        terms: [
          { var: "x(1,2)", coef: 1 },
          { var: "b", coef: 2 },
        ],
        lb: -1,
        ub: 3,
      },
      { name: "empty", terms: [], lb: 0, ub: null },
    ],
  };

  it("writes every variable into the objective so a reader keeps the variable order", () => {
    const { text } = writeLp(problem);
    expect(text).toContain("Maximize\n obj: - x(1,2) + n + 0 b + 0 idle + [ - x(1,2) * n ] / 2 - 1.5\n");
    expect(text).toContain(" range: -1 <= + x(1,2) + 2 b <= 3\n");
    expect(text).toContain(" empty: 0 x(1,2) >= 0\n");
    expect(text).toContain(" -inf <= x(1,2) <= 4\n n >= -2\n");
    expect(text).toContain("Generals\n n\nBinaries\n b\nEnd\n");
    const back = readLp(text);
    expect(back).toEqual({
      ...problem,
      name: "my_model",
      variables: problem.variables.map((v) => (v.type === "binary" ? { ...v, ub: 1 } : v)),
      objective: {
        ...problem.objective,
        terms: [
          { var: "x(1,2)", coef: -1 },
          { var: "n", coef: 1 },
        ],
        quadratic: [{ var1: "x(1,2)", var2: "n", coef: -0.5 }],
      },
    });
  });

  it("splits ranged rows for readers without them, and keeps the original names", () => {
    const written = writeLp(problem, { rangedRows: "split", safeNames: true });
    expect(written.text).toContain(" R1_lo: + C1 + 2 C3 >= -1\n R1_up: + C1 + 2 C3 <= 3\n");
    expect(written.rowNames).toEqual(["range", "range", "empty"]);
    expect(written.fileRowNames).toEqual(["R1_lo", "R1_up", "R2"]);
  });

  it("refuses names LP cannot hold unless safeNames is set", () => {
    for (const name of ["x y", "x[1]", "2x", ".x", "free", "st", "a:b", "x+y"]) {
      const p: Problem = { ...problem, variables: [{ name, lb: 0, ub: null, type: "continuous" }], objective: { constant: 0, terms: [] }, constraints: [] };
      expect(() => writeLp(p), name).toThrow(/cannot be written in LP/);
      expect(readLp(writeLp(p, { safeNames: true }).text).variables.map((v) => v.name)).toEqual(["C1"]);
    }
  });

  it("leaves the constant out and negates a maximisation on request", () => {
    const written = writeLp(problem, { omitObjectiveConstant: true, sense: "minimize" });
    const back = readLp(written.text);
    expect(back.sense).toBe("minimize");
    expect(back.objective.constant).toBe(0);
    expect(back.objective.terms).toEqual([
      { var: "x(1,2)", coef: 1 },
      { var: "n", coef: -1 },
    ]);
    expect(back.objective.quadratic).toEqual([{ var1: "x(1,2)", var2: "n", coef: 0.5 }]);
    expect([written.objectiveSign, written.omittedObjectiveConstant]).toEqual([-1, -1.5]);
  });

  it("wraps long expressions between terms", () => {
    const many: Problem = {
      name: "wide",
      sense: "minimize",
      variables: Array.from({ length: 200 }, (_, j) => ({ name: `variable_${j}`, lb: 0, ub: null, type: "continuous" as const })),
      objective: { constant: 0, terms: Array.from({ length: 200 }, (_, j) => ({ var: `variable_${j}`, coef: j + 1 })) },
      constraints: [],
    };
    const { text } = writeLp(many);
    expect(Math.max(...text.split("\n").map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(readLp(text)).toEqual(many);
  });
});
