import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isModelCapExceeded, type ModelCapExceeded, type ModelCaps } from "../../../../../functions/core/limits/model-caps.js";
import { readProblemFile, writeLp, writeMps } from "../../../../../functions/core/problem/index.js";
import { type Problem, problemStats } from "../../../../../functions/core/problem/schema.js";

/** A problem of n columns and m rows, row i holding the first k_i columns. */
function sized(n: number, rowSizes: number[]): Problem {
  const names = Array.from({ length: n }, (_, j) => `x${j}`);
  return {
    name: "sized",
    sense: "minimize",
    variables: names.map((name) => ({ name, lb: 0, ub: null, type: "continuous" })),
    objective: { constant: 0, terms: names.map((v) => ({ var: v, coef: 1 })) },
    constraints: rowSizes.map((k, i) => ({ name: `r${i}`, lb: 1, ub: null, terms: names.slice(0, k).map((v) => ({ var: v, coef: 1 })) })),
  };
}

function read(text: string, format: "mps" | "lp", caps: ModelCaps): Problem | ModelCapExceeded {
  try {
    return readProblemFile(text, { format, caps });
  } catch (error) {
    if (isModelCapExceeded(error)) return error;
    throw error;
  }
}

describe("the MPS and LP readers stop at the instance's caps", () => {
  it("stop reading columns at the cap, naming the line (a million-column file never builds its million)", () => {
    const text = writeMps(sized(5000, [5000])).text;
    const refused = read(text, "mps", { variables: 100, constraints: 0, nonzeros: 0 });
    expect(refused).toMatchObject({ cap: "variables", limit: 100, count: 101 });
    expect((refused as ModelCapExceeded).where).toMatch(/^line \d+$/);
    expect(read(writeLp(sized(5000, [5000])).text, "lp", { variables: 100, constraints: 0, nonzeros: 0 })).toMatchObject({ cap: "variables", count: 101 });
  });

  it("read exactly the files within the caps, and name the cap a refused one passes (generated sizes, both formats)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.integer({ min: 1, max: n }), { maxLength: 8 }))),
        fc.record({ variables: fc.integer({ min: 0, max: 12 }), constraints: fc.integer({ min: 0, max: 8 }), nonzeros: fc.integer({ min: 0, max: 60 }) }),
        fc.constantFrom<"mps" | "lp">("mps", "lp"),
        ([n, rows], caps, format) => {
          const problem = sized(n, rows);
          const stats = problemStats(problem);
          const over = {
            variables: caps.variables > 0 && stats.variable_count > caps.variables,
            constraints: caps.constraints > 0 && stats.constraint_count > caps.constraints,
            nonzeros: caps.nonzeros > 0 && stats.nonzero_count > caps.nonzeros,
          };
          const text = format === "mps" ? writeMps(problem).text : writeLp(problem).text;
          const result = read(text, format, caps);
          const refused = isModelCapExceeded(result);
          expect(refused).toBe(over.variables || over.constraints || over.nonzeros);
          if (refused) {
            expect(over[result.cap as keyof typeof over]).toBe(true);
            if (result.cap !== "nonzeros") expect(result.count).toBe(result.limit + 1);
          } else expect(problemStats(result as Problem)).toMatchObject({ variable_count: n, constraint_count: rows.length });
        },
      ),
      { numRuns: 600 },
    );
  });
});
