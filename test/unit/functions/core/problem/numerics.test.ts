import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numericsAreRisky, numericsOf, WARNING_MAX_NAMES, WIDE_RANGE_RATIO } from "../../../../../functions/core/problem/numerics.js";
import { ProblemSchema, type Problem } from "../../../../../functions/core/problem/schema.js";

const magnitude = fc.integer({ min: -12, max: 12 }).chain((e) => fc.double({ min: 1, max: 9.99, noNaN: true }).map((m) => m * 10 ** e));
const signed = fc.tuple(magnitude, fc.boolean()).map(([v, negative]) => (negative ? -v : v));

const problem: fc.Arbitrary<Problem> = fc.integer({ min: 1, max: 5 }).chain((n) => {
  const names = Array.from({ length: n }, (_, j) => `c${j}`);
  return fc
    .record({
      rows: fc.array(
        fc.record({
          terms: fc.subarray(names, { minLength: 1 }).chain((s) => fc.tuple(...s.map((v) => signed.map((coef) => ({ var: v, coef }))))),
          lb: fc.option(signed, { nil: null }),
        }),
        { maxLength: 6 },
      ),
      costs: fc.tuple(...names.map(() => fc.option(signed, { nil: null }))),
      uppers: fc.tuple(...names.map(() => fc.option(magnitude, { nil: null }))),
    })
    .map(({ rows, costs, uppers }) =>
      ProblemSchema.parse({
        variables: names.map((name, j) => ({ name, lb: 0, ub: uppers[j] })),
        objective: { terms: names.flatMap((v, j) => (costs[j] === null ? [] : [{ var: v, coef: costs[j] }])) },
        constraints: rows.map((r, i) => ({ name: `r${i}`, terms: r.terms, lb: r.lb })),
      }),
    );
});

describe("numericsOf", () => {
  it("gives each range as the least and largest nonzero absolute value, by brute force", () => {
    fc.assert(
      fc.property(problem, (p) => {
        const range = (values: number[]) => {
          const nz = values.map(Math.abs).filter((v) => v > 0);
          return nz.length === 0 ? null : { min: Math.min(...nz), max: Math.max(...nz) };
        };
        const n = numericsOf(p);
        expect(n.matrix_range).toEqual(range(p.constraints.flatMap((c) => c.terms.map((t) => t.coef))));
        expect(n.objective_range).toEqual(range(p.objective.terms.map((t) => t.coef)));
        expect(n.bounds_range).toEqual(range(p.variables.flatMap((v) => [v.lb ?? 0, v.ub ?? 0])));
        expect(n.rhs_range).toEqual(range(p.constraints.map((c) => c.lb ?? 0)));
      }),
      { numRuns: 300 },
    );
  });

  it("warns of a wide matrix range exactly when max/min passes the ratio, naming the row and column of both ends", () => {
    fc.assert(
      fc.property(problem, (p) => {
        const n = numericsOf(p);
        const wide = n.warnings.find((w) => w.range === "matrix" && w.kind === "wide_range");
        const r = n.matrix_range;
        expect(wide !== undefined).toBe(r !== null && r.max / r.min > WIDE_RANGE_RATIO);
        if (!wide || !r) return;
        const entries = p.constraints.flatMap((c) => c.terms.map((t) => ({ row: c.name, column: t.var, value: Math.abs(t.coef) })));
        const largest = entries.find((e) => e.value === r.max)!;
        const smallest = entries.find((e) => e.value === r.min)!;
        expect(wide.rows).toEqual(expect.arrayContaining([largest.row, smallest.row]));
        expect(wide.columns).toEqual(expect.arrayContaining([largest.column, smallest.column]));
        expect(wide.rows.length).toBeLessThanOrEqual(WARNING_MAX_NAMES);
        expect(numericsAreRisky(n)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("the issue's fixed charge at M = 1e7: matrix [1, 1e7], a wide-range warning naming the links and their binaries, risky", () => {
    const n = 8;
    const p = ProblemSchema.parse({
      variables: Array.from({ length: n }, (_, j) => [
        { name: `x${j}`, lb: 0 },
        { name: `y${j}`, type: "binary" },
      ]).flat(),
      objective: { terms: Array.from({ length: n }, (_, j) => [{ var: `y${j}`, coef: 10 + j }]).flat() },
      constraints: [
        ...Array.from({ length: n }, (_, j) => ({
          name: `link${j}`,
          terms: [
            { var: `x${j}`, coef: 1 },
            { var: `y${j}`, coef: -1e7 },
          ],
          ub: 0,
        })),
        { name: "demand", terms: Array.from({ length: n }, (_, j) => ({ var: `x${j}`, coef: 1 })), lb: 3 },
      ],
    });
    const numerics = numericsOf(p);
    expect(numerics).toMatchObject({
      matrix_range: { min: 1, max: 1e7 },
      objective_range: { min: 10, max: 17 },
      bounds_range: { min: 1, max: 1 },
      rhs_range: { min: 3, max: 3 },
    });
    expect(numerics.warnings).toHaveLength(1);
    expect(numerics.warnings[0]).toMatchObject({
      range: "matrix",
      kind: "wide_range",
      rows: expect.arrayContaining(["link0"]),
      columns: expect.arrayContaining(["y0"]),
    });
    expect(numerics.warnings[0]!.message).toMatch(/ratio of 1\.0e7/);
    expect(numericsAreRisky(numerics)).toBe(true);
    // The same model at M = 100 is tame.
    const tame = { ...p, constraints: p.constraints.map((c) => ({ ...c, terms: c.terms.map((t) => (t.coef === -1e7 ? { ...t, coef: -100 } : t)) })) };
    expect(numericsOf(tame).warnings).toEqual([]);
    expect(numericsAreRisky(numericsOf(tame))).toBe(false);
  });
});
