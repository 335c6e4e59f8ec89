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
