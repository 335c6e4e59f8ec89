/**
 * A MILP whose points fail the check on the original model is never "infeasible" (issue 24): a presolve
 * whose reductions do not map back (its postsolve is broken here on purpose, the way the absolute
 * integer rounding of issue 24 broke it) makes the search end in `error` naming the broken row, and
 * `solveJaos` then searches the model as given; a presolve that wrongly finds the model infeasible is
 * refuted by that search. The LPs, the search and the checks are the engine's own.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Problem } from "./support.js";
import { solveMip } from "../src/mip.js";
import { modelFromProblem } from "../src/model.js";
import { presolve, type Presolved } from "../src/presolve.js";
import { expectObjective, problem, solveChecked } from "./support.js";

const presolveMode = vi.hoisted(() => ({ mode: "real" as "real" | "broken" | "infeasible" }));

vi.mock("../src/presolve.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../src/presolve.js")>();
  return {
    ...real,
    presolve: (...args: Parameters<typeof real.presolve>): Presolved => {
      const pre = real.presolve(...args);
      if (presolveMode.mode === "broken") return brokenPostsolve(pre);
      if (presolveMode.mode === "infeasible") return { ...pre, status: "infeasible", reason: "row 0: made up by the test" };
      return pre;
    },
  };
});

/** The same reductions with a postsolve that moves the first column by 7: every point it maps back is off. */
function brokenPostsolve(pre: Presolved): Presolved {
  return {
    ...pre,
    postsolve: (x) => {
      const out = pre.postsolve(x);
      out[0] = out[0]! + 7;
      return out;
    },
  };
}

afterEach(() => {
  presolveMode.mode = "real";
});

const t = (coef: number, name: string) => ({ var: name, coef });

/** min 100x + y, y − 1e7·x ≤ 0, y ≥ 5, x binary (optimum 105): presolve decides every column. */
const SWITCHED_ON: Problem = problem({
  variables: [
    { name: "x", lb: 0, ub: 1, type: "binary" },
    { name: "y", lb: 5, ub: null },
  ],
  objective: { constant: 0, terms: [t(100, "x"), t(1, "y")] },
  constraints: [{ name: "link", terms: [t(1, "y"), t(-1e7, "x")], lb: null, ub: 0 }],
});

/** min Σ cost·x, Σ weight·x ≥ 23 and a second cover, x binary: a search with fractional nodes (optimum 27). */
const COVER: Problem = problem({
  variables: Array.from({ length: 6 }, (_, i) => ({ name: `x${i}`, lb: 0, ub: 1, type: "binary" as const })),
  objective: { constant: 0, terms: [9, 7, 13, 5, 11, 8].map((c, i) => t(c, `x${i}`)) },
  constraints: [
    { name: "cover", terms: [8, 6, 11, 4, 9, 7].map((w, i) => t(w, `x${i}`)), lb: 23, ub: null },
    { name: "second", terms: [3, 5, 2, 6, 4, 1].map((w, i) => t(w, `x${i}`)), lb: 9, ub: null },
  ],
});

function exhaustive(p: Problem): number {
  const n = p.variables.length;
  let best = Infinity;
  for (let mask = 0; mask < 1 << n; mask++) {
    const x = (i: number) => (mask >> i) & 1;
    const ok = p.constraints.every((c) => c.terms.reduce((s, term) => s + term.coef * x(Number(term.var.slice(1))), 0) >= c.lb!);
    if (ok)
      best = Math.min(
        best,
        p.objective.terms.reduce((s, term) => s + term.coef * x(Number(term.var.slice(1))), 0),
      );
  }
  return best;
}

describe("jaos MILP: points that fail the check on the original model", () => {
  it("ends in error naming the broken row, never infeasible, when presolve's one point does not map back", () => {
    const { model } = modelFromProblem(SWITCHED_ON);
    presolveMode.mode = "broken";
    const pre = presolve(model);
    expect(pre.reduced.cols).toBe(0); // presolve decided x and y: the search has one point to offer
    const out = solveMip(model, pre, { deadline: performance.now() + 10_000, gapTolerance: 1e-6 });
    expect(out.status).toBe("error");
    expect(out.incumbent).toBeNull();
    expect(out.rejection).toMatchObject({ where: "column", index: 0 });
  });

  it("ends in error with the rejection, never infeasible, when no point of a branching search maps back", () => {
    const { model } = modelFromProblem(COVER);
    presolveMode.mode = "broken";
    const pre = presolve(model);
    const out = solveMip(model, pre, { deadline: performance.now() + 10_000, gapTolerance: 1e-6 });
    expect(out.status).toBe("error");
    expect(out.incumbent).toBeNull();
    expect(out.rejection).toBeDefined();
    expect(out.stats.unsolvedNodes).toBeGreaterThan(0);
  });

  it("answers right through solveJaos: a presolve whose points fail is replaced by a search of the model as given", () => {
    presolveMode.mode = "broken";
    for (const [p, optimum] of [
      [SWITCHED_ON, 105],
      [COVER, exhaustive(COVER)],
    ] as const) {
      const r = solveChecked(p);
      expect(r.solver_status, p.variables.map((v) => v.name).join(",")).toBe("optimal");
      expectObjective(r, optimum);
    }
  });

  it("refutes a presolve that wrongly finds a feasible model infeasible", () => {
    presolveMode.mode = "infeasible";
    const r = solveChecked(COVER);
    expect(r.solver_status).toBe("optimal");
    expectObjective(r, exhaustive(COVER));
  });

  it("keeps presolve's infeasibility when the search without presolve finds no point", () => {
    presolveMode.mode = "infeasible";
    const infeasible = problem({
      variables: [
        { name: "a", lb: 0, ub: 3, type: "integer" },
        { name: "b", lb: 0, ub: 3, type: "integer" },
      ],
      objective: { constant: 0, terms: [t(1, "a")] },
      constraints: [{ name: "odd", terms: [t(2, "a"), t(2, "b")], lb: 3, ub: 3 }],
    });
    expect(solveChecked(infeasible).solver_status).toBe("infeasible");
  });
});
