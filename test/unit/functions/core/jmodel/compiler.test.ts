import { describe, expect, it } from "vitest";
import { compileJModel, isJModelError, JModelError, modelSymbols, type CompileOptions } from "../../../../../functions/core/jmodel/index.js";
import { ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import { solveWithHighs } from "../../../../support/highs-wasm.js";
import { TRANSPORT, transportData } from "../../../../support/large-inputs.js";

/** The JModelError a compilation throws (fails the test when it compiles). */
function compileError(source: string, data: unknown, options?: CompileOptions): JModelError {
  try {
    compileJModel(source, data, options);
  } catch (error) {
    if (isJModelError(error)) return error;
    throw error;
  }
  throw new Error("expected the compilation to fail");
}

const TRANSPORT_DATA = {
  PLANTS: ["seattle", "san-diego"],
  MARKETS: ["berlin", "paris"],
  supply: { seattle: 10, "san-diego": 20 },
  demand: { berlin: 5, paris: 7 },
  cost: { seattle: { berlin: 2, paris: 3 } },
};

describe("JModel compiler: expansion to the canonical problem", () => {
  it("generates names, merges terms, moves constants and keeps the variables' side of each row", () => {
    const { problem, stats } = compileJModel(TRANSPORT, TRANSPORT_DATA, { name: "transport" });
    expect(ProblemSchema.safeParse(problem).success).toBe(true);
    expect(problem.name).toBe("transport");
    expect(problem.variables.map((v) => v.name)).toEqual(["ship[seattle,berlin]", "ship[seattle,paris]", "ship[san-diego,berlin]", "ship[san-diego,paris]"]);
    expect(problem.objective.terms.map((t) => t.coef)).toEqual([2, 3, 1, 1]);
    expect(problem.constraints).toEqual([
      {
        name: "within_supply[seattle]",
        terms: [
          { var: "ship[seattle,berlin]", coef: 1 },
          { var: "ship[seattle,paris]", coef: 1 },
        ],
        lb: null,
        ub: 10,
      },
      {
        name: "within_supply[san-diego]",
        terms: [
          { var: "ship[san-diego,berlin]", coef: 1 },
          { var: "ship[san-diego,paris]", coef: 1 },
        ],
        lb: null,
        ub: 20,
      },
      // written `demand[m] <= sum …`: kept as `sum … >= demand[m]`
      {
        name: "meet_demand[berlin]",
        terms: [
          { var: "ship[seattle,berlin]", coef: 1 },
          { var: "ship[san-diego,berlin]", coef: 1 },
        ],
        lb: 5,
        ub: null,
      },
      {
        name: "meet_demand[paris]",
        terms: [
          { var: "ship[seattle,paris]", coef: 1 },
          { var: "ship[san-diego,paris]", coef: 1 },
        ],
        lb: 7,
        ub: null,
      },
    ]);
    expect(stats).toMatchObject({ problem_class: "LP", variable_count: 4, constraint_count: 4, nonzero_count: 8, dropped_constraint_count: 0 });
  });

  it("merges duplicate terms, drops zero coefficients and moves every constant", () => {
    const { problem } = compileJModel(
      `var x; var y; var w;
       minimize z: 3 + x + 2 * x - (y - y) + 0 * w + 4;
       subject to c: x + 1 + y <= 2 * x + 5 - w;
       subject to r: -1 <= 2 * (x + 3) <= 11;
       subject to e: 2 * y + 1 == x;
       subject to g: 10 >= x + y >= -10;`,
      {},
    );
    expect(problem.objective).toEqual({ constant: 7, terms: [{ var: "x", coef: 3 }] });
    expect(problem.constraints).toEqual([
      {
        name: "c",
        terms: [
          { var: "x", coef: -1 },
          { var: "y", coef: 1 },
          { var: "w", coef: 1 },
        ],
        lb: null,
        ub: 4,
      },
      { name: "r", terms: [{ var: "x", coef: 2 }], lb: -7, ub: 5 },
      {
        name: "e",
        terms: [
          { var: "x", coef: -1 },
          { var: "y", coef: 2 },
        ],
        lb: -1,
        ub: -1,
      },
      {
        name: "g",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
        ],
        lb: -10,
        ub: 10,
      },
    ]);
  });

  it("bounds variables as written: free by default, binary in [0, 1], infinity as no bound", () => {
    const { problem } = compileJModel(
      `set I := 1..3;
       param lo{i in I} := i - 2;
       var free; var pos >= 0; var box >= -1 <= 1; var n integer >= 0, <= infinity;
       var b{I} binary; var fixed == 2.5; var tight{i in I} >= lo[i], <= i;
       minimize z: free + pos + box + n + sum{i in I} (b[i] + tight[i]) + fixed;`,
      {},
    );
    const bounds = Object.fromEntries(problem.variables.map((v) => [v.name, [v.lb, v.ub, v.type]]));
    expect(bounds).toEqual({
      free: [null, null, "continuous"],
      pos: [0, null, "continuous"],
      box: [-1, 1, "continuous"],
      n: [0, null, "integer"],
      "b[1]": [0, 1, "binary"],
      "b[2]": [0, 1, "binary"],
      "b[3]": [0, 1, "binary"],
      fixed: [2.5, 2.5, "continuous"],
      "tight[1]": [-1, 1, "continuous"],
      "tight[2]": [0, 2, "continuous"],
      "tight[3]": [1, 3, "continuous"],
    });
  });

  it("checks a constraint left without variables, drops it when it holds, and names it when it does not", () => {
    const model = `param k; set I := 1..3; var x{I} >= 0; minimize z: sum{i in I} x[i];
subject to later{i in I}: sum{j in I: j > i} x[j] >= k;`;
    const holds = compileJModel(model, { k: 0 });
    expect(holds.problem.constraints.map((c) => c.name)).toEqual(["later[1]", "later[2]"]);
    expect(holds.stats).toMatchObject({ constraint_count: 2, dropped_constraint_count: 1 });
    const error = compileError(model, { k: 1 });
    expect(error).toMatchObject({ kind: "data", code: "infeasible_constant_constraint", line: 2, column: 12, symbol: "later" });
    expect(error.message).toBe("constraint `later[3]` has no variables after expansion and does not hold: 0 >= 1");
  });

  it("compiles a quadratic objective into objective.quadratic, and HiGHS solves it", async () => {
    const { problem, stats } = compileJModel(
      `var x; var y;
       minimize distance: (x - 1)^2 + (y - 2)^2 + 0 * x * y;
       subject to line: x + y <= 1;`,
      {},
    );
    expect(problem.objective).toEqual({
      constant: 5,
      terms: [
        { var: "x", coef: -2 },
        { var: "y", coef: -4 },
      ],
      quadratic: [
        { var1: "x", var2: "x", coef: 1 },
        { var1: "y", var2: "y", coef: 1 },
      ],
    });
    expect(stats).toMatchObject({ problem_class: "QP", quadratic_term_count: 2 });
    // The projection of (1, 2) on x + y <= 1 is (0, 1), at squared distance 2.
    const solved = await solveWithHighs(problem);
    expect(solved.status).toBe("Optimal");
    expect(solved.objective).toBeCloseTo(2, 6);
    expect(solved.values.x).toBeCloseTo(0, 5);
    expect(solved.values.y).toBeCloseTo(1, 5);
  });

  it("fits a least-squares line: a sum of squares of linear expressions (the reference's example)", async () => {
    const { problem } = compileJModel(
      `set POINTS;
       param x{POINTS};
       param y{POINTS};
       var slope;
       var intercept;
       minimize squared_error: sum{p in POINTS} (slope * x[p] + intercept - y[p])^2;`,
      { POINTS: ["a", "b", "c"], x: { a: 0, b: 1, c: 2 }, y: { a: 1, b: 2, c: 4 } },
    );
    // Normal equations: slope 3/2, intercept 5/6, residuals -1/6, 1/3, -1/6: error 1/6.
    const solved = await solveWithHighs(problem);
    expect(solved.objective).toBeCloseTo(1 / 6, 6);
    expect(solved.values.slope).toBeCloseTo(1.5, 5);
    expect(solved.values.intercept).toBeCloseTo(5 / 6, 5);
  });

  it("merges x·y and y·x into one quadratic term", () => {
    const { problem } = compileJModel("var x; var y; maximize z: x * y + y * x - 3 * x * x;", {});
    expect(problem.objective.quadratic).toEqual([
      { var1: "x", var2: "x", coef: -3 },
      { var1: "x", var2: "y", coef: 2 },
    ]);
  });

  it("expands conditions, slices of tuple sets, if-then-else and iterated min/max", () => {
    const { problem } = compileJModel(
      `set NODES;
       set ARCS within NODES cross NODES;
       param supply{NODES} default 0;
       param busiest := max{k in NODES} card({(i, k) in ARCS});
       var flow{ARCS} >= 0;
       minimize z: sum{(i, j) in ARCS: i < j} flow[i, j] + sum{(i, j) in ARCS: i > j} 2 * flow[i, j];
       subject to balance{k in NODES}:
         sum{(i, k) in ARCS} flow[i, k] - sum{(k, j) in ARCS} flow[k, j] == supply[k];
       subject to hub{k in NODES: card({(i, k) in ARCS}) == busiest}:
         sum{(i, k) in ARCS} (if i == "a" then 3 else 1) * flow[i, k] <= 10;`,
      {
        NODES: ["a", "b", "c"],
        ARCS: [
          ["a", "b"],
          ["b", "c"],
          ["a", "c"],
          ["c", "a"],
        ],
        supply: { a: -2, c: 2 },
      },
    );
    expect(problem.objective.terms).toEqual([
      { var: "flow[a,b]", coef: 1 },
      { var: "flow[b,c]", coef: 1 },
      { var: "flow[a,c]", coef: 1 },
      { var: "flow[c,a]", coef: 2 },
    ]);
    const rows = Object.fromEntries(problem.constraints.map((c) => [c.name, c]));
    expect(rows["balance[a]"]).toEqual({
      name: "balance[a]",
      terms: [
        { var: "flow[a,b]", coef: -1 },
        { var: "flow[a,c]", coef: -1 },
        { var: "flow[c,a]", coef: 1 },
      ],
      lb: -2,
      ub: -2,
    });
    expect(rows["hub[c]"]?.terms).toEqual([
      { var: "flow[b,c]", coef: 1 },
      { var: "flow[a,c]", coef: 3 },
    ]);
    expect(Object.keys(rows)).toEqual(["balance[a]", "balance[b]", "balance[c]", "hub[c]"]);
  });

  it("evaluates parameter arithmetic, functions and computed sets", () => {
    const { problem } = compileJModel(
      `param n := 2^3^2 / 64;
       param m := -2^2;
       set EVEN := {t in 1..10: t mod 2 == 0};
       set ODD := 1..10 diff EVEN;
       set BOTH := EVEN union ODD;
       param r := min(abs(m), floor(2.7), ceil(1.2), sqrt(16)) + max(exp(0), log(1)) + card(ODD) * card(BOTH);
       var x;
       minimize z: n * x + m + r;`,
      {},
    );
    expect(problem.objective).toEqual({ constant: -4 + (2 + 1 + 50), terms: [{ var: "x", coef: 8 }] });
  });

  it("treats a string that spells a number as that number", () => {
    const model = `set T; param demand{T}; var make{T} >= 0; minimize z: sum{t in T} make[t];
subject to c{t in T: t > 1}: make[t] >= demand[t] - demand[t - 1];`;
    const asNumbers = compileJModel(model, { T: [1, 2, 3], demand: { "1": 4, "2": 6, "3": 9 } });
    const asStrings = compileJModel(model, {
      T: ["1", "2", "3"],
      demand: [
        ["1", 4],
        [2, 6],
        ["3", 9],
      ],
    });
    expect(asStrings.problem).toEqual(asNumbers.problem);
    expect(asNumbers.problem.constraints.map((c) => [c.name, c.lb])).toEqual([
      ["c[2]", 2],
      ["c[3]", 3],
    ]);
  });

  it("reads indexed parameters as nested objects or as rows, with the same result", () => {
    const rows = {
      ...TRANSPORT_DATA,
      cost: [
        ["seattle", "berlin", 2],
        ["seattle", "paris", 3],
      ],
    };
    expect(compileJModel(TRANSPORT, rows).problem).toEqual(compileJModel(TRANSPORT, TRANSPORT_DATA).problem);
  });

  it("ignores dataset keys that start with `$`", () => {
    expect(() => compileJModel(TRANSPORT, { ...TRANSPORT_DATA, $comment: "notes", $schema: "x" })).not.toThrow();
  });
});

describe("JModel compiler: dataset errors name the symbol and the index", () => {
  const cases: { name: string; data: Record<string, unknown>; code: string; message: string; line: number }[] = [
    {
      name: "missing parameter value",
      data: { ...TRANSPORT_DATA, demand: { paris: 7 } },
      code: "missing_value",
      line: 4,
      message: "missing parameter `demand` for index [`berlin`]",
    },
    {
      name: "parameter absent",
      data: { ...TRANSPORT_DATA, demand: undefined },
      code: "missing_value",
      line: 4,
      message: "missing parameter `demand` for index [`berlin`] (the dataset does not give `demand`)",
    },
    {
      name: "index outside its set",
      data: { ...TRANSPORT_DATA, supply: { seattle: 1, "san-diego": 2, x9: 3 } },
      code: "not_in_set",
      line: 3,
      message: "parameter `supply`: index `x9` is not in set `PLANTS`",
    },
    {
      name: "second index outside its set",
      data: { ...TRANSPORT_DATA, cost: { seattle: { x9: 1 } } },
      code: "not_in_set",
      line: 5,
      message: "parameter `cost`: index `x9` is not in set `MARKETS` (at [`seattle`,`x9`])",
    },
    {
      name: "row index outside its set",
      data: { ...TRANSPORT_DATA, cost: [["x9", "paris", 1]] },
      code: "not_in_set",
      line: 5,
      message: "parameter `cost`: index `x9` is not in set `PLANTS` (at [`x9`,`paris`])",
    },
    {
      name: "non-numeric value",
      data: { ...TRANSPORT_DATA, supply: { seattle: "ten", "san-diego": 2 } },
      code: "wrong_type",
      line: 3,
      message: 'parameter `supply` at [`seattle`] must be a number, found string "ten"',
    },
    {
      name: "null value",
      data: { ...TRANSPORT_DATA, demand: { berlin: null, paris: 1 } },
      code: "wrong_type",
      line: 4,
      message: "parameter `demand` at [`berlin`] must be a number, found null",
    },
    {
      name: "value below its bound",
      data: { ...TRANSPORT_DATA, supply: { seattle: -1, "san-diego": 2 } },
      code: "value_out_of_range",
      line: 3,
      message: "parameter `supply` at [`seattle`] is -1, but must be >= 0",
    },
    {
      name: "nested object too shallow",
      data: { ...TRANSPORT_DATA, cost: { seattle: 5 } },
      code: "wrong_type",
      line: 5,
      message: "parameter `cost` at [`seattle`] must be an object keyed by the next index (it has 2 index components), found number 5",
    },
    {
      name: "row of the wrong length",
      data: { ...TRANSPORT_DATA, cost: [["seattle", 5]] },
      code: "wrong_type",
      line: 5,
      message: "parameter `cost` row 1 must be [i, j, value] (2 index component(s), then the value), found an array of 2 items",
    },
    {
      name: "indexed parameter given as a number",
      data: { ...TRANSPORT_DATA, demand: 5 },
      code: "wrong_type",
      line: 4,
      message: "parameter `demand` is indexed: give an object keyed by index, or an array of rows [i, value]; found number 5",
    },
    {
      name: "set given as a string",
      data: { ...TRANSPORT_DATA, PLANTS: "seattle" },
      code: "wrong_type",
      line: 1,
      message: 'set `PLANTS` must be an array of elements (strings or numbers), found string "seattle"',
    },
    {
      name: "set element of the wrong type",
      data: { ...TRANSPORT_DATA, MARKETS: ["berlin", true] },
      code: "wrong_type",
      line: 2,
      message: "set `MARKETS` element 2 must be a string or a number, found boolean true",
    },
    {
      name: "set element twice",
      data: { ...TRANSPORT_DATA, PLANTS: ["seattle", "seattle"] },
      code: "duplicate_element",
      line: 1,
      message: "set `PLANTS` lists `seattle` twice",
    },
    {
      name: "set element that would break names",
      data: { ...TRANSPORT_DATA, MARKETS: ["berlin", "paris]"] },
      code: "invalid_element",
      line: 2,
      message: 'set `MARKETS` element 2: "paris]" cannot be a set element: it contains `]`, which would make generated names ambiguous',
    },
    {
      name: "missing set",
      data: { ...TRANSPORT_DATA, PLANTS: undefined },
      code: "missing_value",
      line: 1,
      message: "missing set `PLANTS`: the dataset does not give it",
    },
    {
      name: "undeclared dataset key",
      data: { ...TRANSPORT_DATA, suply: 3 },
      code: "unknown_data_key",
      line: 1,
      message: "the dataset gives `suply`, but the model declares no set or parameter of that name",
    },
  ];

  it.each(cases)("$name", ({ data, code, message, line }) => {
    const error = compileError(TRANSPORT, data);
    expect(error).toMatchObject({ kind: "data", code, line });
    expect(error.message).toBe(message);
  });

  it("rejects a dataset that is not an object", () => {
    expect(compileError(TRANSPORT, [1, 2])).toMatchObject({ kind: "data", code: "wrong_type", line: 1, column: 1 });
  });

  it("checks tuple sets: arity, and membership of their `within` set", () => {
    const model = "set N; set A within N cross N; var f{A}; minimize z: sum{(i, j) in A} f[i, j];";
    expect(compileError(model, { N: ["a", "b"], A: [["a", "b", "c"]] }).message).toBe(
      'set `A` element 1 must be a tuple of 2 elements such as ["a", "b"], found an array of 3 items',
    );
    expect(compileError(model, { N: ["a", "b"], A: [["a", "z"]] }).message).toBe(
      "set `A` has element [`a`,`z`] outside its `within` set: `z` is not in set `N`",
    );
  });

  it("points at the reference when a variable or parameter is read outside its domain", () => {
    const model = "set I := 1..3;\nparam p{I} default 1;\nvar x{I};\nminimize z: sum{i in I} (x[i + 1] + p[i]);";
    expect(compileError(model, {})).toMatchObject({ code: "not_in_domain", line: 4, column: 26, message: "variable `x`: index `4` is not in set `I`" });
    const model2 = "set I := 1..3;\nparam p{I} default 1;\nvar x{I};\nminimize z: sum{i in I} p[i * 2] * x[i];";
    expect(compileError(model2, {})).toMatchObject({ code: "not_in_domain", line: 4, column: 25, message: "parameter `p`: index `4` is not in set `I`" });
  });

  it("respects conditional domains, tuple-indexed parameters and `within` ranges", () => {
    const conditional = "set I := 1..3; param p{i in I: i > 1}; var x{i in I: i > 1}; minimize z: sum{i in I: i > 1} p[i] * x[i];";
    expect(compileJModel(conditional, { p: { "2": 1, "3": 4 } }).problem.objective.terms).toEqual([
      { var: "x[2]", coef: 1 },
      { var: "x[3]", coef: 4 },
    ]);
    expect(compileError(conditional, { p: { "1": 5, "2": 1, "3": 1 } }).message).toBe(
      "parameter `p`: index `1` is outside the domain: the indexing condition is false for it",
    );
    const tupleIndexed = "set N; set A within N cross N; param c{A}; var f{A} >= 0; minimize z: sum{(i, j) in A} c[i, j] * f[i, j];";
    const data = {
      N: ["a", "b"],
      A: [
        ["a", "b"],
        ["b", "a"],
      ],
    };
    expect(compileJModel(tupleIndexed, { ...data, c: { a: { b: 2 }, b: { a: 3 } } }).problem.objective.terms.map((t) => t.coef)).toEqual([2, 3]);
    expect(compileError(tupleIndexed, { ...data, c: { a: { a: 2 } } }).message).toBe("parameter `c`: index [`a`,`a`] is not in set `A`");
    expect(compileError("param T := 4; set S within 1..T; var x{S}; minimize z: 0;", { S: [1, 5] }).message).toBe(
      "set `S` has element `5` outside its `within` set: `5` is not in 1..4",
    );
  });

  it("orders strings alphabetically in conditions, and refuses to order a string against a number", () => {
    const model = "set N; var x{i in N, j in N: i < j}; minimize z: 0;";
    expect(compileJModel(model, { N: ["b", "a", "c"] }).problem.variables.map((v) => v.name)).toEqual(["x[b,c]", "x[a,b]", "x[a,c]"]);
    expect(compileError(model, { N: ["b", 1] })).toMatchObject({ code: "not_a_number", column: 32 });
  });

  it("reports arithmetic on a non-numeric index, and division by zero, at their place", () => {
    expect(compileError("set S; var x{S}; minimize z: sum{s in S} s * x[s];", { S: ["a"] })).toMatchObject({
      code: "not_a_number",
      column: 42,
      message: "index `s` is `a` here, which is not a number",
    });
    expect(compileError("param d; var x; minimize z: x / d;", { d: 0 })).toMatchObject({ code: "division_by_zero", column: 31 });
  });

  it("reports variables whose bounds cross, and a model whose variables all vanish", () => {
    expect(compileError("param lo; var x >= lo <= 1; minimize z: x;", { lo: 2 })).toMatchObject({
      code: "inconsistent_bounds",
      message: "variable `x` has lower bound 2 and upper bound 1: no value fits",
    });
    expect(compileError("set I; var x{I}; minimize z: sum{i in I} x[i];", { I: [] })).toMatchObject({ code: "no_variables", line: 1, column: 12 });
  });
});

describe("JModel compiler: overrides", () => {
  it("replaces named parameters and sets at fire time, in the dataset's format", () => {
    const { problem } = compileJModel(TRANSPORT, TRANSPORT_DATA, { overrides: { demand: { berlin: 6, paris: 8 } } });
    expect(problem.constraints.filter((c) => c.name.startsWith("meet")).map((c) => c.lb)).toEqual([6, 8]);
    const fewer = compileJModel(TRANSPORT, TRANSPORT_DATA, { overrides: { MARKETS: ["paris"], demand: { paris: 1 }, cost: {} } });
    expect(fewer.problem.variables.map((v) => v.name)).toEqual(["ship[seattle,paris]", "ship[san-diego,paris]"]);
  });

  it("refuses an override the model does not declare, with a code the caller can act on", () => {
    expect(compileError(TRANSPORT, TRANSPORT_DATA, { overrides: { demnad: 1 } })).toMatchObject({
      kind: "data",
      code: "unknown_override",
      symbol: "demnad",
      message: "unknown override `demnad`: the model declares no set or parameter of that name",
    });
    expect(compileError(TRANSPORT, TRANSPORT_DATA, { overrides: { ship: 1 } }).message).toBe(
      "unknown override `ship`: `ship` is a variable, and only sets and parameters take data",
    );
  });

  it("refuses data and overrides for what the model defines with `:=`", () => {
    const model = "param n := 3; param k default 2; var x; minimize z: n * k * x;";
    expect(compileError(model, {}, { overrides: { n: 4 } })).toMatchObject({ code: "defined_in_model", line: 1, column: 7, symbol: "n" });
    expect(compileJModel(model, {}, { overrides: { k: 5 } }).problem.objective.terms).toEqual([{ var: "x", coef: 15 }]);
  });

  it("lists the model's symbols, so a trigger can validate its override schema", () => {
    const symbols = modelSymbols(`${TRANSPORT}param freight := 90; param rate{PLANTS} integer default 2; set EXTRA default {1, 2};`);
    expect(symbols.overridable).toEqual(["PLANTS", "MARKETS", "EXTRA", "supply", "demand", "cost", "rate"]);
    expect(symbols.sets.find((s) => s.name === "EXTRA")).toMatchObject({ dimension: 1, required: false, default_text: "{1, 2}", json_types: ["array"] });
    expect(symbols.params.find((p) => p.name === "cost")).toMatchObject({
      indexed_over: ["PLANTS", "MARKETS"],
      arity: 2,
      value_type: "number",
      required: false,
      default_value: 1,
      json_types: ["object", "array"],
      line: 5,
      column: 7,
    });
    expect(symbols.params.find((p) => p.name === "supply")).toMatchObject({ required: true, default_text: null });
    expect(symbols.params.find((p) => p.name === "freight")).toMatchObject({
      source: "model",
      overridable: false,
      definition_text: "90",
      json_types: ["number"],
    });
    expect(symbols.params.find((p) => p.name === "rate")).toMatchObject({ value_type: "integer", default_value: 2 });
    expect(symbols.variables).toEqual([{ name: "ship", indexed_over: ["PLANTS", "MARKETS"], arity: 2, type: "continuous" }]);
    expect(symbols.constraints.map((c) => c.name)).toEqual(["within_supply", "meet_demand"]);
    expect(symbols.objective).toEqual({ name: "total", sense: "minimize" });
    expect(() => modelSymbols("var x;")).toThrow(JModelError);
  });
});

describe("JModel compiler at scale", () => {
  // How long it takes (CPU and wall) is measured by `npm run bench -- timings`, not asserted here.
  it("compiles a model of about 100k nonzeros whole", () => {
    const { stats } = compileJModel(TRANSPORT, transportData(250, 200));
    expect(stats.nonzero_count).toBe(100_000);
    expect(stats.variable_count).toBe(50_000);
    expect(stats.constraint_count).toBe(450);
  });
});
