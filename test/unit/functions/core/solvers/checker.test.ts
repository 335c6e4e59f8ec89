import { describe, expect, it } from "vitest";
import { checkSolution, objectiveOf } from "../../../../../functions/core/solvers/checker.js";
import { problem } from "../../../../support/jaos.js";

const p = problem({
  sense: "maximize",
  variables: [
    { name: "x", lb: 0, ub: 4 },
    { name: "n", lb: -2, ub: 5, type: "integer" },
    { name: "b", type: "binary" },
    { name: "f", lb: null, ub: null },
  ],
  objective: {
    constant: 1.5,
    terms: [
      { var: "x", coef: 2 },
      { var: "n", coef: -1 },
    ],
    quadratic: [{ var1: "x", var2: "f", coef: 0.5 }],
  },
  constraints: [
    {
      name: "le",
      terms: [
        { var: "x", coef: 1 },
        { var: "n", coef: 1 },
      ],
      ub: 6,
    },
    {
      name: "range",
      terms: [
        { var: "f", coef: 1 },
        { var: "b", coef: -2 },
      ],
      lb: -1,
      ub: 1,
    },
  ],
});

describe("independent solution checker", () => {
  it("accepts a feasible solution and recomputes the objective with constant and quadratic terms", () => {
    const s = { x: 3, n: 2, b: 1, f: 2 };
    expect(objectiveOf(p, s)).toBe(1.5 + 6 - 2 + 0.5 * 3 * 2);
    expect(checkSolution(p, s, { objective: 8.5 })).toEqual([]);
  });

  it("reports each kind of violation", () => {
    const kinds = (s: Record<string, number>, objective?: number) => checkSolution(p, s, { objective }).map((v) => `${v.kind}:${v.name}`);
    expect(kinds({ x: 4.1, n: 1, b: 0, f: 0 })).toEqual(["bound:x"]);
    expect(kinds({ x: 4, n: 2.5, b: 0, f: 0 })).toEqual(["integrality:n", "constraint:le"]);
    expect(kinds({ x: 0, n: 0, b: 2, f: 3 })).toEqual(["bound:b"]);
    expect(kinds({ x: 0, n: 0, b: 0.5, f: 0 })).toEqual(["integrality:b"]);
    expect(kinds({ x: 0, n: 0, b: 0, f: 1.5 })).toEqual(["constraint:range"]);
    expect(kinds({ x: 1, n: 0, b: 0, f: 0 }, 4)).toEqual(["objective:objective"]);
    expect(kinds({ x: 1, n: 0, b: 0 })).toEqual(["missing_value:f"]);
    expect(kinds({ x: 1, n: 0, b: 0, f: 0, ghost: 1 })).toEqual(["unknown_variable:ghost"]);
    expect(kinds({ x: Number.NaN, n: 0, b: 0, f: 0 })).toEqual(["not_finite:x"]);
  });

  it("applies its tolerance relative to the bound's magnitude", () => {
    const big = problem({ variables: [{ name: "y", lb: 0, ub: 1e6 }], constraints: [{ name: "r", terms: [{ var: "y", coef: 1 }], ub: 1e6 }] });
    expect(checkSolution(big, { y: 1e6 + 0.5 }, { tolerance: 1e-6 })).toEqual([]);
    expect(checkSolution(big, { y: 1e6 + 2 }, { tolerance: 1e-6 }).map((v) => v.kind)).toEqual(["bound", "constraint"]);
    expect(checkSolution(big, { y: -1e-7 }, { tolerance: 1e-6 })).toEqual([]);
    expect(checkSolution(big, { y: -1e-5 }, { tolerance: 1e-6 }).map((v) => v.kind)).toEqual(["bound"]);
  });
});
