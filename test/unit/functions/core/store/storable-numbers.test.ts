import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStorableNumber, unstorableNumbers } from "../../../../../functions/core/store/storable-numbers.js";

describe("numbers the table can hold", () => {
  it("admits zero, big-M coefficients and small tolerances; refuses what DynamoDB overflows or underflows", () => {
    for (const n of [0, -0, 1, -1e20, 9.99e125, 1e-130, 2 ** 60]) expect(isStorableNumber(n), String(n)).toBe(true);
    for (const n of [1e126, -2.5e247, 5e-324, -1e-131, Number.POSITIVE_INFINITY, Number.NaN]) expect(isStorableNumber(n), String(n)).toBe(false);
  });

  it("names where in a body the unstorable numbers sit, at most three", () => {
    const body = { problem: { variables: [{ name: "x", ub: 1e200 }], data: { a: [1, 5e-324] } }, n: 1e300, m: 1e301 };
    expect(unstorableNumbers(body, ["body"]).map((i) => i.loc)).toEqual([
      ["body", "problem", "variables", 0, "ub"],
      ["body", "problem", "data", "a", 1],
      ["body", "n"],
    ]);
    expect(unstorableNumbers({ a: [1, 2, { b: 3 }] }, ["body"])).toEqual([]);
  });
});

describe("the walk holds any depth", () => {
  it("finds the number at the bottom of 20,000 nested arrays (the recursive walk overflowed the stack: a 500)", () => {
    let value: unknown = [1e300];
    for (let i = 0; i < 20_000; i++) value = [value];
    const issues = unstorableNumbers({ override_data: { x: value } }, ["body"]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.loc.slice(0, 4)).toEqual(["body", "override_data", "x", 0]);
    expect(issues[0]!.loc).toHaveLength(3 + 20_001);
  });

  it("reports the same places, in the same order, as a recursive reference (generated values)", () => {
    const reference = (v: unknown, at: (string | number)[], out: (string | number)[][]) => {
      if (typeof v === "number") {
        if (!isStorableNumber(v)) out.push(at);
      } else if (Array.isArray(v)) v.forEach((x, i) => reference(x, [...at, i], out));
      else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) reference(x, [...at, k], out);
      return out;
    };
    const number = fc.oneof(fc.double(), fc.constantFrom(1e300, -1e130, 5e-324, 0, 1));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        number,
        fc.string(),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 5 }), (v, max) => {
        expect(unstorableNumbers(v, ["body"], max).map((i) => i.loc)).toEqual(reference(v, ["body"], []).slice(0, max));
      }),
      { numRuns: 500 },
    );
  });
});
