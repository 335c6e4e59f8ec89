import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JSON_BODY_LIMITS, jsonBodyProblem } from "../../../../../functions/core/limits/json-body.js";

/** Depth, value count and a `__proto__` key of a parsed value, measured recursively (the scan's reference on small values). */
function measure(v: unknown): { depth: number; values: number; proto: boolean } {
  if (v === null || typeof v !== "object") return { depth: 0, values: 1, proto: false };
  const children = Array.isArray(v) ? v : Object.values(v);
  let depth = 0;
  let values = 1;
  let proto = !Array.isArray(v) && Object.hasOwn(v, "__proto__");
  for (const c of children) {
    const m = measure(c);
    depth = Math.max(depth, m.depth);
    values += m.values;
    proto ||= m.proto;
  }
  return { depth: depth + 1, values, proto };
}

describe("the cost bound of a JSON body, from its text", () => {
  it("refuses exactly the bodies deeper or larger than the limits, or with a __proto__ key (generated values, compact and indented)", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (value, maxDepth, maxValues, indent) => {
          const text = JSON.stringify(value, null, indent ? 2 : undefined);
          const { depth, values, proto } = measure(JSON.parse(text));
          const problem = jsonBodyProblem(text, { maxDepth, maxValues });
          const deep = depth > maxDepth;
          const many = values > maxValues;
          expect(problem !== null).toBe(deep || many || proto);
          // One reason alone: it is the one named (several: the first met in the text).
          if (deep && !many && !proto) expect(problem!.kind).toBe("too_deep");
          if (many && !deep && !proto) expect(problem!.kind).toBe("too_many_values");
          if (proto && !deep && !many) expect(problem!.kind).toBe("forbidden_key");
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it("stops at the 33rd level of a 4 MB `[[[[…` without reading further", () => {
    const text = "[".repeat(2_000_000) + "]".repeat(2_000_000);
    expect(jsonBodyProblem(text)).toEqual({ kind: "too_deep", limit: JSON_BODY_LIMITS.maxDepth, offset: JSON_BODY_LIMITS.maxDepth });
    expect(jsonBodyProblem(`${"[".repeat(32)}1${"]".repeat(32)}`)).toBeNull();
  });

  it("counts values, not keys, and stops at the first value past the limit", () => {
    expect(jsonBodyProblem(JSON.stringify({ a: 1, b: "x", c: [true, null] }), { maxDepth: 5, maxValues: 6 })).toBeNull();
    expect(jsonBodyProblem(JSON.stringify({ a: 1, b: "x", c: [true, null] }), { maxDepth: 5, maxValues: 5 })).toMatchObject({ kind: "too_many_values" });
    const flat = `[${Array(2_000_000).fill("0").join(",")}]`;
    expect(jsonBodyProblem(flat)).toEqual({ kind: "too_many_values", limit: 1_000_000, offset: 2 * 1_000_000 - 1 });
  });

  it("refuses the key __proto__ at any depth and however it is spelled, and nothing else", () => {
    for (const text of ['{"__proto__": {}}', '{"a": [{"b": {"__proto__": 1}}]}', '{"\\u005f_proto__": 1}', '{"__pro\\u0074o__": 1}']) {
      expect(jsonBodyProblem(text), text).toMatchObject({ kind: "forbidden_key", key: "__proto__" });
    }
    for (const text of ['{"constructor": 1, "prototype": 2}', '["__proto__"]', '{"a": "__proto__"}', '{"__proto__x": 1}', '{"a\\"__proto__": 1}']) {
      expect(jsonBodyProblem(text), text).toBeNull();
    }
  });

  it("leaves malformed text to the parser (no exception, no false refusal)", () => {
    for (const text of ['{"a": ', '"unterminated', "]]]", "{,,}", "", '{"a" 1}']) expect(jsonBodyProblem(text)).toBeNull();
  });
});
