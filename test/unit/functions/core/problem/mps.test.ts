import { describe, expect, it } from "vitest";
import { readMps, writeMps } from "../../../../../functions/core/problem/mps.js";
import { ProblemParseError } from "../../../../../functions/core/problem/parse-error.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { largeMps } from "../../../../support/large-inputs.js";

/** A free MPS file from its sections' data lines (each line indented). */
function mps(sections: Record<string, string[]>, head = "NAME test"): string {
  const body = Object.entries(sections).map(([name, lines]) => [name, ...lines.map((l) => ` ${l}`)].join("\n"));
  return [head, ...body, "ENDATA", ""].join("\n");
}

const rows = ["N obj", "L lim", "G need", "E bal"];
const columns = ["x obj 1 lim 1", "x need 1", "y obj 2 bal 1"];

function parseError(text: string, options?: Parameters<typeof readMps>[1]): ProblemParseError {
  try {
    readMps(text, options);
  } catch (error) {
    if (error instanceof ProblemParseError) return error;
    throw error;
  }
  throw new Error("expected a ProblemParseError");
}

describe("readMps sections", () => {
  it("reads OBJSENSE on its own line or on the next one (and the OBJSENCE spelling)", () => {
    const base = { ROWS: rows, COLUMNS: columns };
    expect(readMps(mps({ OBJSENSE: ["MAX"], ...base })).sense).toBe("maximize");
    expect(readMps(mps(base, "NAME t\nOBJSENSE MAX")).sense).toBe("maximize");
    expect(readMps(mps(base, "NAME t\nOBJSENSE    MAXIMIZE")).sense).toBe("maximize");
    expect(readMps(mps({ OBJSENCE: ["MIN"], ...base })).sense).toBe("minimize");
    expect(readMps(mps(base)).sense).toBe("minimize");
  });

  it("takes the first N row as the objective and drops later N rows with their entries", () => {
    const p = readMps(mps({ ROWS: ["N obj", "N spare", "L lim"], COLUMNS: ["x obj 1 spare 5", "x lim 2"], RHS: ["RHS spare 9 lim 4"] }));
    expect(p.objective.terms).toEqual([{ var: "x", coef: 1 }]);
    expect(p.constraints).toEqual([{ name: "lim", terms: [{ var: "x", coef: 2 }], lb: null, ub: 4 }]);
  });

  it("reads an RHS on the objective row as minus the objective constant", () => {
    expect(readMps(mps({ ROWS: rows, COLUMNS: columns, RHS: ["RHS obj 7.5"] })).objective.constant).toBe(-7.5);
    expect(readMps(mps({ ROWS: rows, COLUMNS: columns, RHS: ["RHS obj -2"] })).objective.constant).toBe(2);
  });

  it("applies RANGES by row type, and by the sign of R on E rows", () => {
    const p = readMps(
      mps({
        ROWS: ["N obj", "L l", "G g", "E ep", "E en", "E ez"],
        COLUMNS: ["x obj 1 l 1", "x g 1 ep 1", "x en 1 ez 1"],
        RHS: ["RHS l 10 g 2", "RHS ep 5 en 5", "RHS ez 5"],
        RANGES: ["RNG l 4 g -3", "RNG ep 2 en -2", "RNG ez 0 obj 9"],
      }),
    );
    expect(p.constraints.map((c) => [c.name, c.lb, c.ub])).toEqual([
      ["l", 6, 10],
      ["g", 2, 5],
      ["ep", 5, 7],
      ["en", 3, 5],
      ["ez", 5, 5],
    ]);
  });

  it("reads every bound type", () => {
    const names = ["up", "lo", "fx", "fr", "mi", "pl", "bv", "li", "ui", "neg", "negLo"];
    const p = readMps(
      mps({
        ROWS: ["N obj"],
        COLUMNS: names.map((n) => `${n} obj 1`),
        BOUNDS: [
          "UP BND up 4",
          "LO BND lo -2",
          "FX BND fx 3",
          "FR BND fr",
          "MI BND mi",
          "PL BND pl",
          "BV BND bv",
          "LI BND li 2",
          "UI BND ui 9",
          "UP BND neg -1",
          "LO BND negLo -5",
          "UP BND negLo -1",
        ],
      }),
    );
    const byName = Object.fromEntries(p.variables.map((v) => [v.name, [v.lb, v.ub, v.type]]));
    expect(byName).toEqual({
      up: [0, 4, "continuous"],
      lo: [-2, null, "continuous"],
      fx: [3, 3, "continuous"],
      fr: [null, null, "continuous"],
      mi: [null, null, "continuous"],
      pl: [0, null, "continuous"],
      bv: [0, 1, "binary"],
      li: [2, null, "integer"],
      ui: [0, 9, "integer"],
      // A negative UP over the default lower bound frees the lower bound (HiGHS fixed reader, CBC, SCIP)…
      neg: [null, -1, "continuous"],
      // …but not one given explicitly.
      negLo: [-5, -1, "continuous"],
    });
  });

  it("gives MARKER integer columns without bounds [0, 1], as HiGHS does; any bound lifts that", () => {
    const p = readMps(
      mps({
        ROWS: ["N obj"],
        COLUMNS: ["c obj 1", "M1 'MARKER' 'INTORG'", "a obj 1", "b obj 1", "u obj 1", "M2 'MARKER' 'INTEND'", "d obj 1"],
        BOUNDS: ["LO BND b 2", "UP BND u 7"],
      }),
    );
    expect(p.variables.map((v) => [v.name, v.type, v.lb, v.ub])).toEqual([
      ["c", "continuous", 0, null],
      ["a", "integer", 0, 1],
      ["b", "integer", 2, null],
      ["u", "integer", 0, 7],
      ["d", "continuous", 0, null],
    ]);
  });

  it("maps QUADOBJ (one triangle) and QMATRIX (whole matrix) to coef·var1·var2 under the ½ convention", () => {
    const base = { ROWS: ["N obj"], COLUMNS: ["x obj 1", "y obj 1"] };
    // ½·(4x² + 2·(2xy) + 6y²) = 2x² + 2xy + 3y²
    const expected = [
      { var1: "x", var2: "x", coef: 2 },
      { var1: "x", var2: "y", coef: 2 },
      { var1: "y", var2: "y", coef: 3 },
    ];
    expect(readMps(mps({ ...base, QUADOBJ: ["x x 4", "x y 2", "y y 6"] })).objective.quadratic).toEqual(expected);
    expect(readMps(mps({ ...base, QMATRIX: ["x x 4", "x y 2", "y x 2", "y y 6"] })).objective.quadratic).toEqual(expected);
    // The other triangle names the same monomial.
    expect(readMps(mps({ ...base, QUADOBJ: ["x x 4", "y x 2", "y y 6"] })).objective.quadratic).toEqual(expected);
  });

  it("reads fixed MPS with names holding spaces, a tab-separated line, and numbers past their columns", () => {
    // Fixed fields: 2–3 type, 5–12 name, 15–22 name, 25–36 number, 40–47 name, 50–61 number.
    const card = (type: string, name1: string, name2: string, value = "", name3 = "", value2 = "") =>
      ` ${type.padEnd(2)} ${name1.padEnd(8)}  ${name2.padEnd(8)}  ${value.padStart(12)}   ${name3.padEnd(8)}  ${value2.padStart(12)}`.trimEnd();
    const fixed = [
      "NAME          SPACES",
      "ROWS",
      " N  COST",
      " L  LIM 1",
      "COLUMNS",
      card("", "X 1", "COST", "1.0", "LIM 1", "1.0"),
      "    X2\tCOST\t2.0",
      `${card("", "X 3", "LIM 1").padEnd(24)}-123456.7890123`, // 15 characters from column 25: past the 12 of field 4
      "RHS",
      card("", "", "LIM 1", "4.0"),
      "BOUNDS",
      card("UP", "BND", "X 1", "3.0"),
      "ENDATA",
    ].join("\n");
    const p = readMps(fixed);
    expect(p.name).toBe("SPACES");
    expect(p.variables.map((v) => [v.name, v.ub])).toEqual([
      ["X 1", 3],
      ["X2", null],
      ["X 3", null],
    ]);
    expect(p.constraints).toEqual([
      {
        name: "LIM 1",
        terms: [
          { var: "X 1", coef: 1 },
          { var: "X 3", coef: -123456.7890123 },
        ],
        lb: null,
        ub: 4,
      },
    ]);
    expect(readMps(fixed, { format: "fixed" })).toEqual(p);
    expect(() => readMps(fixed, { format: "free" })).toThrow(ProblemParseError);
  });

  it("reads free MPS with long names, data lines from column 1, CRLF line ends and no RHS set name", () => {
    const text =
      "NAME long FREE\r\nROWS\r\n N objective_row\r\n G a_rather_long_row_name\r\nCOLUMNS\r\nvariable_with_long_name objective_row 1 a_rather_long_row_name 2\r\nRHS\r\n a_rather_long_row_name 3\r\nENDATA\r\n";
    const p = readMps(text);
    expect(p.name).toBe("long");
    expect(p.constraints[0]).toEqual({ name: "a_rather_long_row_name", terms: [{ var: "variable_with_long_name", coef: 2 }], lb: 3, ub: null });
  });

  it("ignores comments, blank lines and anything after ENDATA", () => {
    const text = `* comment\n\n${mps({ ROWS: rows, COLUMNS: columns }).replace("COLUMNS\n", "COLUMNS\n* a comment\n\n")}IMPORTANCES\nG13 2\n`;
    expect(readMps(text).variables).toHaveLength(2);
  });
});

describe("readMps errors name the line", () => {
  const cases: [string, string, number, RegExp][] = [
    ["unknown row type", mps({ ROWS: ["N obj", "X bad"], COLUMNS: columns }), 4, /unknown row type "X"/],
    ["unknown row in COLUMNS", mps({ ROWS: rows, COLUMNS: ["x obj 1 nowhere 2"] }), 8, /row "nowhere" is not declared/],
    ["bad number", mps({ ROWS: rows, COLUMNS: ["x obj 1", "x lim abc"] }), 9, /"abc" is not a finite number/],
    ["repeated entry", mps({ ROWS: rows, COLUMNS: ["x obj 1 lim 1", "x lim 2"] }), 9, /two entries for row "lim"/],
    ["split column", mps({ ROWS: rows, COLUMNS: ["x obj 1", "y obj 1", "x lim 1"] }), 10, /column "x" appears again after other columns \(first on line 8\)/],
    ["unknown column in BOUNDS", mps({ ROWS: rows, COLUMNS: columns, BOUNDS: ["UP BND z 1"] }), 12, /column "z" in BOUNDS/],
    ["semi-continuous", mps({ ROWS: rows, COLUMNS: columns, BOUNDS: ["SC BND x 5"] }), 12, /semi-continuous bounds \(SC\) are not supported/],
    ["unknown bound type", mps({ ROWS: rows, COLUMNS: columns, BOUNDS: ["XX BND x 5"] }), 12, /unknown bound type "XX"/],
    [
      "two upper bounds",
      mps({ ROWS: rows, COLUMNS: columns, BOUNDS: ["UP BND x 5", "UP BND x 6"] }),
      13,
      /second upper bound for column "x" \(first on line 12\)/,
    ],
    ["crossed bounds", mps({ ROWS: rows, COLUMNS: columns, BOUNDS: ["LO BND x 5", "UP BND x 2"] }), 13, /lower bound 5 above its upper bound 2/],
    ["two RHS", mps({ ROWS: rows, COLUMNS: columns, RHS: ["RHS lim 1", "RHS lim 2"] }), 13, /second right-hand side for row "lim"/],
    ["unbalanced marker", mps({ ROWS: rows, COLUMNS: ["M 'MARKER' 'INTEND'", ...columns] }), 8, /'INTEND' without an opening 'INTORG'/],
    ["unsupported section", mps({ ROWS: rows, COLUMNS: columns, SOS: ["S1 SOS s1"] }), 11, /SOS section is not supported/],
    ["COLUMNS before ROWS", "NAME t\nCOLUMNS\n x obj 1\nENDATA\n", 2, /COLUMNS before ROWS/],
    ["missing ENDATA", "NAME t\nROWS\n N obj\nCOLUMNS\n x obj 1\n", 6, /without ENDATA/],
    ["no columns", "NAME t\nROWS\n N obj\nCOLUMNS\nENDATA\n", 5, /no columns/],
    ["bad OBJSENSE", mps({ OBJSENSE: ["UP"], ROWS: rows, COLUMNS: columns }), 3, /unknown objective sense "UP"/],
    ["missing row name", mps({ ROWS: ["N obj", "L"], COLUMNS: columns }), 4, /ROWS line has a type and a name \(found 1 field\)/],
  ];

  it.each(cases)("%s", (_label, text, line, message) => {
    const error = parseError(text);
    expect(error.line).toBe(line);
    expect(error.reason).toMatch(message);
    expect(error.message).toBe(`MPS line ${line}: ${error.reason}`);
    expect(error.body()).toMatchObject({ error_code: "invalid_problem_file", status_code: 422, line });
  });

  it("reports the fixed reading's error when it gets further than the free one", () => {
    const text = [
      "NAME",
      "ROWS",
      " N  COST",
      " L  LIM 1",
      "COLUMNS",
      "    X 1       COST               1.0",
      "    X 1       LIM 2              1.0",
      "ENDATA",
    ].join("\n");
    const error = parseError(text);
    expect([error.line, error.reason]).toEqual([7, 'row "LIM 2" is not declared in ROWS']);
  });
});

describe("writeMps", () => {
  const problem: Problem = {
    name: "w",
    sense: "maximize",
    variables: [
      { name: "x[1]", lb: -3, ub: -1, type: "continuous" },
      { name: "n", lb: 0, ub: null, type: "integer" },
      { name: "b", lb: 0, ub: 1, type: "binary" },
      { name: "f", lb: 1, ub: 1, type: "binary" },
      { name: "unused", lb: null, ub: 5, type: "continuous" },
    ],
    objective: {
      constant: 4,
      terms: [
        { var: "x[1]", coef: 2 },
        { var: "n", coef: 1 },
        { var: "n", coef: 0.5 },
      ],
    },
    constraints: [
      {
        name: "r",
        terms: [
          { var: "x[1]", coef: 1 },
          { var: "b", coef: 1 },
        ],
        lb: 0.1,
        ub: 0.3,
      },
      { name: "free row", terms: [{ var: "n", coef: 1 }], lb: null, ub: null },
      { name: "eq", terms: [], lb: 2, ub: 2 },
    ],
  };

  it("writes explicit bounds readers disagree on, and reads back the same problem", () => {
    const { text } = writeMps(problem, { safeNames: true });
    expect(text).toContain("NAME w FREE");
    expect(text).toMatch(/ PL BND\s+C2\n/); // integer without upper bound: not HiGHS's [0, 1]
    expect(text).toMatch(/ UP BND\s+C1\s+-1\n LO BND\s+C1\s+-3\n/); // lower bound after a negative UP
    const back = readMps(text);
    expect(back.variables.map((v) => [v.lb, v.ub, v.type])).toEqual([
      [-3, -1, "continuous"],
      [0, null, "integer"],
      [0, 1, "binary"],
      [1, 1, "integer"], // a binary fixed at 1 is written as an integer fixed at 1
      [null, 5, "continuous"],
    ]);
    expect(back.objective).toEqual({
      constant: 4,
      terms: [
        { var: "C1", coef: 2 },
        { var: "C2", coef: 1.5 },
      ],
    });
    // The free row is left out; the ranged row keeps both sides exactly although 0.3 − 0.1 ≠ 0.2.
    expect(back.constraints.map((c) => [c.name, c.lb, c.ub, c.terms.length])).toEqual([
      ["R1", 0.1, 0.3, 2],
      ["R2", 2, 2, 0],
    ]);
  });

  it("returns the names in file order with their originals", () => {
    const written = writeMps(problem, { safeNames: true });
    expect(written.columnNames).toEqual(["x[1]", "n", "b", "f", "unused"]);
    expect(written.fileColumnNames).toEqual(["C1", "C2", "C3", "C4", "C5"]);
    expect(written.rowNames).toEqual(["r", "eq"]);
    expect(written.fileRowNames).toEqual(["R1", "R2"]);
  });

  it("refuses names free MPS cannot hold unless safeNames is set", () => {
    expect(() => writeMps(problem)).not.toThrow(); // "x[1]" is a fine MPS name; the free row is not written
    const named = (name: string) => ({ ...problem, constraints: [{ name, terms: [], lb: 0, ub: null }] });
    expect(() => writeMps(named("row 1"))).toThrow(/row name "row 1" cannot be written in free MPS/);
    expect(writeMps(named("row 1"), { safeNames: true }).fileRowNames).toEqual(["R1"]);
    expect(() =>
      writeMps({ ...problem, variables: [{ name: "RHS", lb: 0, ub: null, type: "continuous" }], objective: { constant: 0, terms: [] }, constraints: [] }),
    ).toThrow(/section name/);
  });

  it("can leave the constant out and write a maximisation as a minimisation", () => {
    const written = writeMps(problem, { safeNames: true, omitObjectiveConstant: true, sense: "minimize" });
    expect(written.text).not.toContain("OBJSENSE");
    expect(written.objectiveSign).toBe(-1);
    expect(written.omittedObjectiveConstant).toBe(4);
    const back = readMps(written.text);
    expect(back.sense).toBe("minimize");
    expect(back.objective).toEqual({
      constant: 0,
      terms: [
        { var: "C1", coef: -2 },
        { var: "C2", coef: -1.5 },
      ],
    });
    expect(readMps(writeMps(problem, { safeNames: true }).text).sense).toBe("maximize");
  });

  it("writes numbers that read back bit for bit", () => {
    const values = [0.1, 1 / 3, -2.5e-300, 1.7976931348623157e308, 123456789.123456789, 5e-324];
    const p: Problem = {
      name: "n",
      sense: "minimize",
      variables: values.map((v, j) => ({ name: `v${j}`, lb: null, ub: v, type: "continuous" as const })),
      objective: { constant: 0, terms: values.map((v, j) => ({ var: `v${j}`, coef: v })) },
      constraints: [],
    };
    expect(readMps(writeMps(p).text)).toEqual(p);
  });
});

describe("readMps at scale", () => {
  // How long it takes is measured by `npm run bench -- timings`, not asserted here.
  it("reads a 5 MB file with every column and nonzero", () => {
    const { text, columnCount, entriesPerColumn } = largeMps();
    expect(text.length).toBeGreaterThan(5_000_000);
    const problem = readMps(text);
    expect(problem.variables).toHaveLength(columnCount);
    expect(problem.constraints.reduce((n, c) => n + c.terms.length, 0)).toBe(columnCount * entriesPerColumn);
  });
});
