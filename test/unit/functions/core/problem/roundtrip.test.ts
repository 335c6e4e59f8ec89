import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLp, writeLp } from "../../../../../functions/core/problem/lp.js";
import { readMps, writeMps } from "../../../../../functions/core/problem/mps.js";
import { encodeRangedRow } from "../../../../../functions/core/problem/numbers.js";
import { ProblemSchema, type Problem, type Variable } from "../../../../../functions/core/problem/schema.js";

/**
 * Random small problems in canonical form (what the readers return: terms in variable order,
 * nonzero coefficients, quadratic pairs with the earlier variable first, binaries in [0, 1], no
 * free rows) must come back from either writer exactly, bit for bit. One exception is MPS's own:
 * a ranged row is stored as one side and a width, and when the width has a larger exponent than a
 * side, no width may give that side back exactly (−0.8 and 0.6: 1.4 sits on a coarser grid than
 * either). There the rebuilt side may move by one unit in the last place; LP keeps both sides.
 */

const value = fc.double({ min: -1e9, max: 1e9, noNaN: true }).map((v) => (v === 0 ? 0 : v));
const nonzero = value.filter((v) => v !== 0);

const variable = (name: string): fc.Arbitrary<Variable> =>
  fc.oneof(
    fc.constant<Variable>({ name, lb: 0, ub: 1, type: "binary" }),
    fc
      .record({
        type: fc.constantFrom<Variable["type"]>("continuous", "integer"),
        lb: fc.oneof(fc.constant(null), fc.constant(0), value),
        width: fc.oneof(fc.constant(null), fc.constant(0), fc.double({ min: 0, max: 1e6, noNaN: true })),
        negativeUpper: value.map((v) => (v === 0 ? 0 : -Math.abs(v))),
        free: fc.boolean(),
      })
      .map(({ type, lb, width, negativeUpper, free }): Variable => {
        if (free) return { name, lb: null, ub: null, type };
        // Covers fixed, boxed, negative upper bounds with −inf lower bounds, one-sided bounds.
        if (lb === null) return { name, lb: null, ub: width === null ? negativeUpper : negativeUpper + width, type };
        const ub = width === null ? null : lb + width;
        return { name, lb, ub: ub === 0 ? 0 : ub, type };
      }),
  );

/** Terms over a subset of the variables, in variable order. */
const terms = (names: string[]) => fc.subarray(names).chain((subset) => fc.tuple(...subset.map((n) => nonzero.map((coef) => ({ var: n, coef })))));

const problem: fc.Arbitrary<Problem> = fc.integer({ min: 1, max: 6 }).chain((n) => {
  const names = Array.from({ length: n }, (_, j) => `v${j}`);
  const pairs = names.flatMap((a, i) => names.slice(i).map((b) => [a, b] as const));
  const row = (name: string) =>
    fc.record({ terms: terms(names), kind: fc.constantFrom("eq", "le", "ge", "range"), a: value, b: value }).map(({ terms: t, kind, a, b }) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      const sides = { eq: [a, a], le: [null, a], ge: [a, null], range: low === high ? [low, null] : [low, high] }[kind];
      return { name, terms: t, lb: sides[0]!, ub: sides[1]! };
    });
  return fc
    .record({
      name: fc.constantFrom("p", "model_1"),
      sense: fc.constantFrom<Problem["sense"]>("minimize", "maximize"),
      variables: fc.tuple(...names.map(variable)),
      objective: fc.record({
        constant: value,
        terms: terms(names),
        quadratic: fc.subarray(pairs).chain((chosen) => fc.tuple(...chosen.map(([var1, var2]) => nonzero.map((coef) => ({ var1, var2, coef }))))),
      }),
      constraints: fc.integer({ min: 0, max: 4 }).chain((m) => fc.tuple(...Array.from({ length: m }, (_, i) => row(`r${i}`)))),
    })
    .map((p): Problem => {
      const { quadratic, ...objective } = p.objective;
      return { ...p, objective: quadratic.length > 0 ? { ...objective, quadratic } : objective };
    });
});

describe("round trip of random problems", () => {
  it("generates valid problems", () => {
    fc.assert(
      fc.property(problem, (p) => ProblemSchema.safeParse(p).success),
      { numRuns: 200 },
    );
  });

  it("MPS: read(write(p)) is p", () => {
    fc.assert(
      fc.property(problem, (p) => {
        const back = readMps(writeMps(p).text);
        const expected = {
          ...p,
          constraints: p.constraints.map((c, i) => {
            if (c.lb === null || c.ub === null || c.lb === c.ub || encodeRangedRow(c.lb, c.ub).exact) return c;
            const read = back.constraints[i]!;
            const scale = Math.max(Math.abs(c.lb), Math.abs(c.ub));
            for (const [a, b] of [
              [c.lb, read.lb!],
              [c.ub, read.ub!],
            ])
              expect(Math.abs(a - b)).toBeLessThanOrEqual(scale * 2 ** -52);
            return { ...c, lb: read.lb, ub: read.ub };
          }),
        };
        expect(back).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it("MPS ranged rows rebuild the other side within one unit in the last place", () => {
    expect(encodeRangedRow(0.1, 0.3).exact).toBe(true);
    expect(encodeRangedRow(-1e10, 1e-5).exact).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 1, max: 1e9 }), fc.constantFrom(1, 10, 100, 1000, 1e6), (k, width, scale) => {
        const [lb, ub] = [k / scale, (k + width) / scale];
        const encoded = encodeRangedRow(lb, ub);
        const rebuilt = encoded.type === "G" ? [encoded.rhs, encoded.rhs + encoded.range] : [encoded.rhs - encoded.range, encoded.rhs];
        expect(Math.abs(rebuilt[0]! - lb)).toBeLessThanOrEqual(Math.max(Math.abs(lb), Math.abs(ub)) * 2 ** -52);
        expect(Math.abs(rebuilt[1]! - ub)).toBeLessThanOrEqual(Math.max(Math.abs(lb), Math.abs(ub)) * 2 ** -52);
      }),
      { numRuns: 3000 },
    );
  });

  it("LP: read(write(p)) is p", () => {
    fc.assert(
      fc.property(problem, (p) => {
        expect(readLp(writeLp(p).text)).toEqual(p);
      }),
      { numRuns: 400 },
    );
  });

  it("MPS and LP agree: an LP file read, written as MPS and read again is the same problem", () => {
    fc.assert(
      fc.property(problem, (p) => {
        const fromLp = readLp(writeLp(p).text);
        const viaMps = readMps(writeMps(fromLp).text);
        expect(viaMps.variables).toEqual(fromLp.variables);
        expect(viaMps.objective).toEqual(fromLp.objective);
        expect(viaMps.constraints.map((c) => c.terms)).toEqual(fromLp.constraints.map((c) => c.terms));
      }),
      { numRuns: 200 },
    );
  });
});
