import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileJModel } from "../../../../../functions/core/jmodel/index.js";
import { EXPANSION_STEPS_PER_NONZERO, isModelCapExceeded, type ModelCapExceeded, type ModelCaps } from "../../../../../functions/core/limits/model-caps.js";

/** The 37-byte attack of issue 25: a trigger's model whose size an override names. */
const SIZED = "param n; set I := 1..n; var x{I} >= 0; minimize z: sum{i in I} x[i];";

function refusal(source: string, data: unknown, caps: ModelCaps): ModelCapExceeded {
  try {
    compileJModel(source, data, { caps });
  } catch (error) {
    if (isModelCapExceeded(error)) return error;
    throw error;
  }
  throw new Error("compiled within the caps");
}

const CAPS: ModelCaps = { variables: 250_000, constraints: 250_000, nonzeros: 2_500_000 };

describe("the JModel compiler stops at the instance's caps", () => {
  it("refuses n = 10,000,000 before building the set: nothing of that size is allocated", () => {
    const before = process.memoryUsage().heapUsed;
    const error = refusal(SIZED, { n: 10_000_000 }, CAPS);
    expect(error).toMatchObject({ cap: "set_elements", limit: 250_000, count: 10_000_000 });
    // A set of 10 million tuples alone is ~1 GB; the refusal leaves the heap where it was, give or take.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
  });

  it("stops creating variables at the cap: the count it reports is the cap plus one, never more", () => {
    const error = refusal(SIZED, { n: 200_000 }, { ...CAPS, variables: 1000 });
    expect(error).toMatchObject({ cap: "variables", limit: 1000, count: 1001 });
    expect(error.message).toMatch(/more than 1000 variables/);
  });

  it("counts rows and their nonzeros as they are made", () => {
    const rows = "param n; set I := 1..n; var x{I} >= 0; minimize z: sum{i in I} x[i]; s.t. c{i in I}: sum{j in I} x[j] >= i;";
    expect(refusal(rows, { n: 100 }, { variables: 100, constraints: 10, nonzeros: 0 })).toMatchObject({ cap: "constraints", count: 11 });
    // 100 nonzeros a row: the 6th row would pass 500.
    expect(refusal(rows, { n: 100 }, { variables: 100, constraints: 0, nonzeros: 500 })).toMatchObject({ cap: "nonzeros", count: 600 });
  });

  it("counts a dense quadratic objective's terms as they appear", () => {
    const dense = "param n; set I := 1..n; var x{I}; minimize z: sum{i in I, j in I} x[i] * x[j];";
    expect(refusal(dense, { n: 100 }, { variables: 100, constraints: 0, nonzeros: 1000 })).toMatchObject({ cap: "nonzeros", count: 1001 });
  });

  it("bounds the work of sums over small sets that make nothing (a triple sum in a condition)", () => {
    const busy = "param n; set I := 1..n; var x{I} >= 0; minimize z: sum{i in I: sum{a in I, b in I, c in I} 1 > 0} x[i];";
    const error = refusal(busy, { n: 200 }, { variables: 200, constraints: 0, nonzeros: 1000 });
    expect(error).toMatchObject({ cap: "expansion_steps", limit: 1000 * EXPANSION_STEPS_PER_NONZERO });
  });

  it("compiles exactly the models within the caps, and names the cap a refused one passes (generated sizes)", () => {
    const model = "param n; param m; set I := 1..n; set J := 1..m; var x{I} >= 0; minimize z: sum{i in I} x[i]; s.t. c{j in J}: sum{i in I} x[i] >= j;";
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        fc.record({ variables: fc.integer({ min: 0, max: 30 }), constraints: fc.integer({ min: 0, max: 30 }), nonzeros: fc.integer({ min: 0, max: 400 }) }),
        (n, m, caps) => {
          const over = {
            variables: caps.variables > 0 && n > caps.variables,
            constraints: caps.constraints > 0 && m > caps.constraints,
            nonzeros: caps.nonzeros > 0 && n * m > caps.nonzeros,
          };
          // Indexing visits: n variables, n objective terms, m rows of n terms each.
          const steps = n + n + m + m * n;
          const tooBusy = caps.nonzeros > 0 && steps > caps.nonzeros * EXPANSION_STEPS_PER_NONZERO;
          const largest = Math.max(caps.variables, caps.constraints);
          const setTooBig = largest > 0 && Math.max(n, m) > largest;
          let refused: ModelCapExceeded | null = null;
          try {
            const { stats } = compileJModel(model, { n, m }, { caps });
            expect(stats).toMatchObject({ variable_count: n, constraint_count: m, nonzero_count: n * m });
          } catch (error) {
            if (!isModelCapExceeded(error)) throw error;
            refused = error;
          }
          expect(refused !== null).toBe(over.variables || over.constraints || over.nonzeros || tooBusy || setTooBig);
          if (refused === null) return;
          if (refused.cap === "variables" || refused.cap === "constraints") {
            expect(over[refused.cap]).toBe(true);
            expect(refused.count).toBe(refused.limit + 1);
          } else if (refused.cap === "nonzeros") expect(over.nonzeros).toBe(true);
          else if (refused.cap === "set_elements") expect(setTooBig).toBe(true);
          else expect(tooBusy).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});
