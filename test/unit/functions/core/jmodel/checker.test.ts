import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJModel, compileJModel, isJModelError, type JModelProblem } from "../../../../../functions/core/jmodel/index.js";

const brief = (p: JModelProblem) => `${p.line}:${p.column} ${p.code}`;

/** The one problem of a source, as `line:column code`, and its message. */
function onlyProblem(source: string): { at: string; message: string } {
  const problems = checkJModel(source);
  expect(problems, JSON.stringify(problems)).toHaveLength(1);
  return { at: brief(problems[0]!), message: problems[0]!.message };
}

describe("JModel checker", () => {
  it("reports every problem of a model, in source order, each with its position", () => {
    const source = [
      /* 1 */ "set PLANTS;",
      /* 2 */ "set PLANTS;",
      /* 3 */ "param cap{PLANTS} >= 0;",
      /* 4 */ "var x{PLANTS} >= 0;",
      /* 5 */ "minimize cost: sum{p in PLANTS} price[p] * x[p];",
      /* 6 */ "subject to limit{p in PLANTS}: x[p] * x[p] <= cap[p, p];",
      /* 7 */ "subject to total: sum{p in MARKETS} x[p] >= demand;",
      /* 8 */ "param demand := 5;",
      /* 9 */ "maximize other: 1;",
    ].join("\n");
    const problems = checkJModel(source);
    expect(problems.map(brief)).toEqual([
      "2:5 duplicate_declaration",
      "5:33 undeclared_name",
      "6:37 nonlinear",
      "6:47 index_arity",
      "7:28 undeclared_name",
      "7:45 used_before_declaration",
      "9:10 objective_duplicate",
    ]);
    expect(problems.every((p) => p.kind === "semantic")).toBe(true);
    expect(problems[0]!.message).toBe("`PLANTS` is already declared as a set at line 1");
    expect(problems[1]!).toMatchObject({ message: "`price` is not declared", symbol: "price" });
    expect(problems[5]!.message).toBe("`demand` is used before its declaration at line 8");
  });

  it("reports syntax and semantic problems together", () => {
    const problems = checkJModel("var x;\nparam p := ;\nminimize z: y;");
    expect(problems.map(brief)).toEqual(["2:12 unexpected_token", "3:13 undeclared_name"]);
  });

  it("throws the same problems from compileJModel, all of them in `problems`", () => {
    try {
      compileJModel("var x;\nminimize z: y + w;", {});
      throw new Error("expected a JModelError");
    } catch (error) {
      expect(isJModelError(error)).toBe(true);
      if (!isJModelError(error)) return;
      expect(error).toMatchObject({ kind: "semantic", code: "undeclared_name", line: 2, column: 13 });
      expect(error.problems.map(brief)).toEqual(["2:13 undeclared_name", "2:17 undeclared_name"]);
    }
  });

  const cases: { name: string; source: string; at: string; message?: RegExp }[] = [
    { name: "a model without objective", source: "var x;\nsubject to c: x >= 0;\n", at: "3:1 objective_missing", message: /no objective/ },
    { name: "a parameter used without its index", source: "set I; param p{I}; var x; minimize z: p * x;", at: "1:39 index_arity", message: /write `p\[…\]`/ },
    { name: "a scalar indexed", source: "param p; var x; minimize z: p[1] * x;", at: "1:29 index_arity", message: /not indexed/ },
    { name: "a set used as a number", source: "set I; var x; minimize z: I * x;", at: "1:27 type_mismatch", message: /expected a number, found a set/ },
    { name: "a number used as a set", source: "param n; var x{n}; minimize z: 0;", at: "1:16 type_mismatch", message: /expected a set/ },
    { name: "a constraint used as a value", source: "var x; minimize z: x; subject to c: x >= 0; subject to d: c >= 1;", at: "1:59 wrong_symbol_kind" },
    { name: "an index named like a declaration", source: "set I; param p; var x{p in I}; minimize z: 0;", at: "1:23 dummy_shadows_name" },
    {
      name: "an index bound twice",
      source: "set I; var x{I}; minimize z: sum{i in I} sum{i in I} x[i];",
      at: "1:46 duplicate_dummy",
      message: /already bound/,
    },
    { name: "an index twice in one tuple", source: "set A dimen 2; var x{A}; minimize z: sum{(i, i) in A} x[i, i];", at: "1:46 duplicate_dummy" },
    {
      name: "a tuple pattern of the wrong size",
      source: "set A dimen 2; var x{A}; minimize z: sum{(i, j, k) in A} x[i, j];",
      at: "1:42 set_dimension",
      message: /dimension 2/,
    },
    {
      name: "a single name over a set of pairs",
      source: "set A dimen 2; var x{A}; minimize z: sum{a in A} 1;",
      at: "1:42 set_dimension",
      message: /tuple such as \(a, b\)/,
    },
    {
      name: "a membership test of the wrong size",
      source: "set A dimen 2; param n := 1; param m := if n in A then 1; var x; minimize z: x;",
      at: "1:44 set_dimension",
    },
    {
      name: "a variable in a parameter's default",
      source: "var x; param p default x; minimize z: x;",
      at: "1:24 variable_not_allowed",
      message: /the declaration of parameter `p`/,
    },
    {
      name: "a variable in an indexing condition",
      source: "set I; var x{I}; minimize z: sum{i in I: x[i] >= 1} x[i];",
      at: "1:42 variable_not_allowed",
      message: /indexing condition/,
    },
    { name: "a variable in a variable's bound", source: "var y; var x >= y; minimize z: x;", at: "1:17 variable_not_allowed" },
    {
      name: "variables in a ranged constraint's bounds",
      source: "var x; var y; minimize z: x; subject to c: y <= x <= 1;",
      at: "1:44 variable_not_allowed",
      message: /ranged constraint `c`/,
    },
    { name: "a cubic objective", source: "var x; minimize z: x * x * x;", at: "1:26 nonlinear", message: /degree 3/ },
    { name: "a division by a variable", source: "var x; var y; minimize z: x / y;", at: "1:29 nonlinear", message: /division by a variable/ },
    { name: "a variable raised to 3", source: "var x; minimize z: x^3;", at: "1:21 invalid_exponent" },
    { name: "a variable raised to a parameter", source: "param k := 2; var x; minimize z: x^k;", at: "1:35 invalid_exponent" },
    { name: "a square in a constraint", source: "var x; minimize z: x; subject to c: x^2 <= 1;", at: "1:38 nonlinear", message: /not linear/ },
    { name: "a function of a variable", source: "var x; minimize z: abs(x);", at: "1:24 nonlinear", message: /`abs` of a variable/ },
    { name: "a variable inside `min{…}`", source: "set I; var x{I}; minimize z: min{i in I} x[i];", at: "1:42 variable_not_allowed" },
    { name: "a variable in an `if` condition", source: "var x; minimize z: if x >= 1 then 1 else 0;", at: "1:23 variable_not_allowed" },
    { name: "a union of sets of different dimensions", source: "set A; set B dimen 2; set C := A union B; var x; minimize z: x;", at: "1:32 set_dimension" },
    { name: "a set literal of mixed tuple sizes", source: "set S := {(1, 2), 3}; var x; minimize z: x;", at: "1:19 set_dimension" },
    { name: "a set literal holding a range", source: "set S := {1..3}; var x; minimize z: x;", at: "1:11 type_mismatch", message: /write `1\.\.n`/ },
    { name: "a string that cannot be an element", source: 'set S := {"a,b"}; var x; minimize z: x;', at: "1:11 invalid_element" },
    { name: "a string in arithmetic", source: 'var x; minimize z: "a" * x;', at: "1:20 type_mismatch" },
    { name: "a `dimen` that contradicts `within`", source: "set A; set B dimen 2 within A; var x; minimize z: x;", at: "1:29 set_dimension" },
    { name: "`:=` together with `default`", source: "param p := 1 default 2; var x; minimize z: x;", at: "1:22 conflicting_attributes" },
    { name: "a parameter's `:=` given twice", source: "param p := 1 := 2; var x; minimize z: x;", at: "1:14 conflicting_attributes", message: /`:=` twice/ },
    {
      name: "a set's `default` given twice",
      source: "set S default {1} default {2}; var x; minimize z: x;",
      at: "1:19 conflicting_attributes",
      message: /`default` twice/,
    },
    { name: "a bound given twice", source: "var x >= 0 >= 1; minimize z: x;", at: "1:12 conflicting_attributes" },
    { name: "a fixed variable with bounds", source: "var x == 1 <= 2; minimize z: x;", at: "1:10 conflicting_attributes" },
    { name: "a parameter that reads itself", source: "param p := p + 1; var x; minimize z: x;", at: "1:12 used_before_declaration" },
    { name: "a dummy with an index", source: "set I; var x{I}; minimize z: sum{i in I} i[1] * x[i];", at: "1:42 type_mismatch" },
  ];

  it.each(cases)("reports $name", ({ source, at, message }) => {
    const problem = onlyProblem(source);
    expect(problem.at).toBe(at);
    if (message) expect(problem.message).toMatch(message);
  });

  it("accepts quadratic objectives: products, squares of sums, and scaled products", () => {
    expect(checkJModel("var x; var y; minimize z: x * y + (x + 2 * y)^2 + 3 * x^2 / 2 - (x - y) * (x + y);")).toEqual([]);
  });

  it("lets a tuple pattern reuse a bound index as a filter (AMPL's slice)", () => {
    expect(checkJModel("set N; set A within N cross N; var f{A}; minimize z: 0; subject to b{k in N}: sum{(i, k) in A} f[i, k] == 1;")).toEqual([]);
  });

  it("never throws for user input, however malformed", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(Array.isArray(checkJModel(text))).toBe(true);
      }),
      { numRuns: 500 },
    );
    const alphabet = [
      "set ",
      "param ",
      "var ",
      "minimize z: ",
      "subject to c",
      "{",
      "}",
      "(",
      ")",
      "[",
      "]",
      ";",
      ":",
      ",",
      "x",
      "I",
      "i in ",
      "1",
      "..",
      "sum",
      "+",
      "*",
      "<=",
      ":=",
      "default ",
      "\n",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (parts) => {
        const problems = checkJModel(parts.join(""));
        for (const p of problems) expect(p.line).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 1000 },
    );
  });
});
