import { describe, expect, it } from "vitest";
import { checkJModel, isJModelError, type JModelError, parseJModel, type JModelProblem } from "../../../../../functions/core/jmodel/index.js";

/** Every construct of the language in one model; it must parse and check without a problem. */
const EVERYTHING = `
# line comment
/* block
   comment */
set NODES;
set ARCS within NODES cross NODES;          # tuples, checked against a product
set PAIRS dimen 2;
set COLORS := {"red", "green", 'blue'};
set STEPS := 1..10 by 3;
set MIXED default {(1, "a"), (2, "b")};
set EVEN := {t in 1..10: t mod 2 == 0};
set BOTH := (NODES union {"extra"}) diff {"gone"};
set SOME := NODES inter NODES symdiff {"z"};
param n integer >= 1, <= 100;
param big := 1e6;
param half := .5;
param cap{ARCS} >= 0 default infinity;
param cost{(i, j) in ARCS} >= 0 default 1;
param w{c in COLORS, s in STEPS} := if c == "red" then s else -s;
param flag binary default 0;
param total := sum{(i, j) in ARCS} cost[i, j];
param most := max{s in STEPS} s;
param least := min(3, 4, abs(-2), floor(2.5), ceil(1.2), sqrt(4), exp(0), log(1));
param count := card(NODES) + card(1..n);
var flow{(i, j) in ARCS} >= 0, <= cap[i, j];
var pick{COLORS} binary;
var level integer >= -5 <= 5;
var fixed == 3;
var free;
maximize score: sum{(i, j) in ARCS} cost[i, j] * flow[i, j] - free^2 + 2 * level * free;
subject to balance{k in NODES}:
  sum{(i, k) in ARCS} flow[i, k] - sum{(k, j) in ARCS} flow[k, j] == 0;
s.t. one_color: sum{c in COLORS} pick[c] = 1;
subject to ranged: -1 <= level + free <= 1;
subject to reversed: 10 >= level >= -10;
subject to guarded{c in COLORS, s in STEPS: s > 1 and not (c == "blue" or s >= 9) and (s, c) not in PAIRS}:
  w[c, s] * pick[c] <= n;
`;

function problemsOf(source: string): JModelProblem[] {
  return checkJModel(source);
}

describe("JModel parser", () => {
  it("parses every construct of the language", () => {
    const ast = parseJModel(EVERYTHING);
    expect(ast.declarations.map((d) => `${d.kind} ${d.name}`)).toEqual([
      "set NODES",
      "set ARCS",
      "set PAIRS",
      "set COLORS",
      "set STEPS",
      "set MIXED",
      "set EVEN",
      "set BOTH",
      "set SOME",
      "param n",
      "param big",
      "param half",
      "param cap",
      "param cost",
      "param w",
      "param flag",
      "param total",
      "param most",
      "param least",
      "param count",
      "var flow",
      "var pick",
      "var level",
      "var fixed",
      "var free",
      "objective score",
      "constraint balance",
      "constraint one_color",
      "constraint ranged",
      "constraint reversed",
      "constraint guarded",
    ]);
    expect(problemsOf(EVERYTHING)).toEqual([]);
  });

  it("keeps attributes, relations and positions", () => {
    const ast = parseJModel(EVERYTHING);
    const byName = new Map(ast.declarations.map((d) => [d.name, d]));
    const n = byName.get("n")!;
    expect(n.kind === "param" && n.integer && n.checks.map((c) => c.op)).toEqual([">=", "<="]);
    const ranged = byName.get("ranged")!;
    expect(ranged.kind === "constraint" && ranged.middle !== null && ranged.relation).toBe("<=");
    const reversed = byName.get("reversed")!;
    expect(reversed.kind === "constraint" && reversed.relation).toBe(">=");
    const oneColor = byName.get("one_color")!;
    expect(oneColor.kind === "constraint" && oneColor.relation).toBe("==");
    expect(oneColor.pos).toMatchObject({ line: 33, column: 6 });
    const fixed = byName.get("fixed")!;
    expect(fixed.kind === "var" && fixed.fixed?.kind).toBe("number");
  });

  it("gives `sum` a body at the level of `*`, and `^` right associativity over unary minus", () => {
    const ast = parseJModel('set I; var x{I}; minimize z: sum{i in I} 2 * x[i] + 1 - -x["a"]^2;');
    const objective = ast.declarations[2]!;
    if (objective.kind !== "objective") throw new Error("expected the objective");
    // (sum …) + 1 - (-(x^2)), one flat chain of additions
    const top = objective.expr;
    if (top.kind !== "plus") throw new Error(`expected a sum, found ${top.kind}`);
    expect(top.signs).toEqual([1, 1, -1]);
    expect(top.terms.map((t) => t.kind)).toEqual(["iterated", "number", "unary"]);
    const negated = top.terms[2]!;
    expect(negated.kind === "unary" && negated.operand.kind === "binary" && negated.operand.op).toBe("^");
  });

  it("keeps a very long explicit sum flat, and refuses pathological nesting with a position", () => {
    // Deep enough that a left-nested tree would overflow the stack in the checker.
    const terms = Array.from({ length: 30_000 }, (_, i) => `x[${i + 1}]`).join(" + ");
    const source = `set I := 1..30000; var x{I} >= 0; minimize z: ${terms};`;
    expect(checkJModel(source)).toEqual([]);
    const deep = `var x; minimize z: ${"(".repeat(500)}x${")".repeat(500)};`;
    const problems = checkJModel(deep);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ kind: "syntax", line: 1 });
    expect(problems[0]!.message).toMatch(/nested too deeply/);
    const fine = `var x; minimize z: ${"(".repeat(150)}x${")".repeat(150)};`;
    expect(checkJModel(fine)).toEqual([]);
  });

  it("reads `s.t.` and `subject to` alike, and `<>` as `!=`", () => {
    expect(problemsOf("var x; minimize z: x; s.t. a: x >= 0; subject to b: x <= 1;")).toEqual([]);
    expect(problemsOf("set I := 1..3; var x{i in I: i <> 2}; minimize z: sum{i in I: i <> 2} x[i];")).toEqual([]);
  });

  // Each malformed source, with the exact place and kind of its (first) error.
  const malformed: { name: string; source: string; line: number; column: number; code: string; message: RegExp }[] = [
    {
      name: "missing semicolon before the next statement",
      source: "set A;\nparam p{A} >= 0\nvar x;",
      line: 2,
      column: 16,
      code: "unexpected_token",
      message: /expected `;` after number `0`/,
    },
    {
      name: "missing semicolon after an expression",
      source: "var x;\nminimize z: x + 1\nsubject to c: x <= 2;",
      line: 2,
      column: 18,
      code: "unexpected_token",
      message: /expected `;`/,
    },
    {
      name: "operator with no operand",
      source: "var x >= 0;\nminimize z: x +* 2;",
      line: 2,
      column: 16,
      code: "unexpected_token",
      message: /expected an expression, found `\*`/,
    },
    {
      name: "constraint without `subject to`",
      source: "var x;\nminimize z: x;\ncap: x <= 3;",
      line: 3,
      column: 1,
      code: "unexpected_token",
      message: /subject to/,
    },
    {
      name: "strict inequality",
      source: "var x;\nminimize z: x;\nsubject to c: x < 3;",
      line: 3,
      column: 17,
      code: "unexpected_token",
      message: /strict inequalities/,
    },
    { name: "unknown character", source: "param p := 3 $ 4;", line: 1, column: 14, code: "unexpected_character", message: /`\$`/ },
    { name: "unterminated string", source: 'set S := {"abc};\nvar x;', line: 1, column: 11, code: "unterminated_string", message: /not closed/ },
    {
      name: "unterminated block comment",
      source: "var x;\n  /* never closed\nminimize z: x;",
      line: 2,
      column: 3,
      code: "unterminated_comment",
      message: /never closed/,
    },
    { name: "number glued to a name", source: "var x;\nminimize z: 2x;", line: 2, column: 13, code: "invalid_number", message: /`2x` is not a number/ },
    { name: "indexed set", source: "set A;\nset B {A};", line: 2, column: 7, code: "unexpected_token", message: /indexed sets are not supported/ },
    {
      name: "mixed ranged relations",
      source: "var x;\nminimize z: x;\nsubject to c: 1 <= x >= 0;",
      line: 3,
      column: 22,
      code: "unexpected_token",
      message: /ranged constraint/,
    },
    { name: "sum without indexing", source: "var x;\nminimize z: sum x;", line: 2, column: 17, code: "unexpected_token", message: /`\{` after `sum`/ },
    {
      name: "`subject` without `to`",
      source: "var x;\nminimize z: x;\nsubject c: x <= 1;",
      line: 3,
      column: 9,
      code: "unexpected_token",
      message: /`to` after `subject`/,
    },
    {
      name: "default without a value",
      source: "param p default;",
      line: 1,
      column: 16,
      code: "unexpected_token",
      message: /expected an expression, found `;`/,
    },
    { name: "unclosed parenthesis", source: "var x;\nmaximize z: (x + 1;", line: 2, column: 19, code: "unexpected_token", message: /expected `\)`/ },
    { name: "unclosed bracket", source: 'set I; var x{I};\nminimize z: x["a" + 1;', line: 2, column: 22, code: "unexpected_token", message: /`,` or `\]`/ },
    { name: "`=` instead of `:=` for a parameter", source: "param n = 3;", line: 1, column: 9, code: "unexpected_token", message: /`:=`/ },
    { name: "variable given a value", source: "var x := 1;", line: 1, column: 7, code: "unexpected_token", message: /bounds, not values/ },
    { name: "keyword used as a name", source: "param sum;", line: 1, column: 7, code: "unexpected_token", message: /a parameter name, found `sum`/ },
    {
      name: "tab counts as one column",
      source: "var x;\n\tminimize z: x +;",
      line: 2,
      column: 17,
      code: "unexpected_token",
      message: /expected an expression/,
    },
    {
      name: "CRLF line endings",
      source: "var x;\r\nminimize z: x;\r\nsubject to c: x <= ;",
      line: 3,
      column: 20,
      code: "unexpected_token",
      message: /expected an expression/,
    },
  ];

  it.each(malformed)("reports $name at its exact line and column", ({ source, line, column, code, message }) => {
    let thrown: unknown;
    try {
      parseJModel(source);
    } catch (error) {
      thrown = error;
    }
    expect(isJModelError(thrown)).toBe(true);
    const error = thrown as JModelError;
    expect(error.kind).toBe("syntax");
    expect({ line: error.line, column: error.column, code: error.code }).toEqual({ line, column, code });
    expect(error.message).toMatch(message);
    // checkJModel reports the same first problem instead of throwing.
    expect(problemsOf(source)[0]).toMatchObject({ kind: "syntax", line, column, code });
  });

  it("recovers after a broken statement and reports every one", () => {
    const source = [
      "set A;",
      "param p{A} >= ;",
      "var x{A} >= 0;",
      "param q := (1 + ;",
      "minimize z: sum{a in A} x[a] + ;",
      "subject to c{a in A}: x[a] <= 1;",
    ].join("\n");
    const error = (() => {
      try {
        parseJModel(source);
      } catch (e) {
        return e as JModelError;
      }
      throw new Error("expected a syntax error");
    })();
    expect(error.problems.map((p) => [p.line, p.column])).toEqual([
      [2, 15],
      [4, 17],
      [5, 32],
    ]);
    // The broken declarations' names are not reported again as undeclared, nor is the objective missing.
    expect(problemsOf(source).filter((p) => p.kind !== "syntax")).toEqual([]);
  });

  it("does not lose the statement after a forgotten semicolon", () => {
    const problems = problemsOf("set A;\nparam p{A} >= 0\nvar x{A};\nminimize z: sum{a in A} p[a] * x[a];");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 2, column: 16 });
  });

  it("reports a problem in an error's string form with its position", () => {
    try {
      parseJModel("var x;\nminimize z: x +;");
    } catch (error) {
      expect(String(error)).toBe("JModel syntax error at line 2, column 16: expected an expression, found `;`");
      expect((error as JModelError).toProblem()).toEqual({
        kind: "syntax",
        code: "unexpected_token",
        line: 2,
        column: 16,
        message: "expected an expression, found `;`",
      });
    }
  });
});
