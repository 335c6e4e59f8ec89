import { describe, expect, it } from "vitest";
import { checkSolution } from "../../../../../functions/core/solvers/checker.js";
import { solveJaos } from "../../../../../functions/core/solvers/jaos-engine.js";
import { expectObjective, problem, solveChecked, TEXTBOOK_LP } from "../../../../support/jaos.js";

const v = (name: string, lb: number | null = 0, ub: number | null = null) => ({ name, lb, ub });
const t = (coef: number, name: string) => ({ var: name, coef });

describe("jaos LP: small hand-made problems", () => {
  it("solves a textbook maximisation", () => {
    const r = solveChecked(TEXTBOOK_LP);
    expect(r.solver_status).toBe("optimal");
    expectObjective(r, 36);
    expect(r.solution).toEqual({ x: 2, y: 6 });
  });

  it("does not cycle on Beale's example", () => {
    // Beale (1955): the textbook rule (largest coefficient, lowest index) cycles on it.
    const p = problem({
      variables: [v("x4"), v("x5"), v("x6", 0, 1), v("x7")],
      objective: { constant: 0, terms: [t(-0.75, "x4"), t(20, "x5"), t(-0.5, "x6"), t(6, "x7")] },
      constraints: [
        { name: "r1", terms: [t(0.25, "x4"), t(-8, "x5"), t(-1, "x6"), t(9, "x7")], ub: 0 },
        { name: "r2", terms: [t(0.5, "x4"), t(-12, "x5"), t(-0.5, "x6"), t(3, "x7")], ub: 0 },
      ],
    });
    for (const presolve of [true, false]) {
      const r = solveChecked(p, { presolve });
      expect(r.solver_status).toBe("optimal");
      expectObjective(r, -1.25);
    }
  });

  it("handles a highly degenerate LP (assignment polytope)", () => {
    const n = 8;
    const vars = [];
    const terms = [];
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        vars.push(v(`x${i}_${j}`));
        terms.push(t(((i * 7 + j * 3) % 5) + 1, `x${i}_${j}`));
      }
    const rows = [];
    for (let i = 0; i < n; i++) rows.push({ name: `r${i}`, terms: Array.from({ length: n }, (_, j) => t(1, `x${i}_${j}`)), lb: 1, ub: 1 });
    for (let j = 0; j < n; j++) rows.push({ name: `c${j}`, terms: Array.from({ length: n }, (_, i) => t(1, `x${i}_${j}`)), lb: 1, ub: 1 });
    const p = problem({ variables: vars, objective: { constant: 0, terms }, constraints: rows });
    const r = solveChecked(p, { presolve: false });
    expect(r.solver_status).toBe("optimal");
    expectObjective(r, 8); // every row and column has a cost-1 cell on a permutation
  });

  it("handles free variables (min |x − 3| as an LP)", () => {
    const p = problem({
      variables: [v("x", null, null), v("t", null, null)],
      objective: { constant: 0, terms: [t(1, "t")] },
      constraints: [
        { name: "a", terms: [t(1, "t"), t(-1, "x")], lb: -3 },
        { name: "b", terms: [t(1, "t"), t(1, "x")], lb: 3 },
      ],
    });
    const r = solveChecked(p);
    expect(r.solver_status).toBe("optimal");
    expectObjective(r, 0);
    expect(r.solution!.x).toBeCloseTo(3, 9);
  });

  it("handles ranged and equality rows and an objective constant", () => {
    const p = problem({
      variables: [v("x"), v("y"), v("z", -2, 2)],
      objective: { constant: 10, terms: [t(-1, "x"), t(-2, "y"), t(1, "z")] },
      constraints: [
        { name: "range", terms: [t(1, "x"), t(1, "y")], lb: 1, ub: 2 },
        { name: "eq", terms: [t(1, "x"), t(-1, "z")], lb: 0.5, ub: 0.5 },
      ],
    });
    const r = solveChecked(p);
    expect(r.solver_status).toBe("optimal");
    // z = x − 0.5; objective 10 − x − 2y + x − 0.5 = 9.5 − 2y with y ≤ 2 − x: x = 0, y = 2, z = −0.5
    expectObjective(r, 5.5);
  });

  it("reports infeasibility with a certificate, not a guess", () => {
    const p = problem({
      variables: [v("x"), v("y")],
      objective: { constant: 0, terms: [t(1, "x")] },
      constraints: [
        { name: "le", terms: [t(1, "x"), t(1, "y")], ub: 1 },
        { name: "ge", terms: [t(1, "x"), t(1, "y")], lb: 2 },
      ],
    });
    for (const presolve of [true, false]) expect(solveChecked(p, { presolve }).solver_status).toBe("infeasible");
  });

  it("reports unboundedness, and infeasibility when an unbounded direction sits on an empty region", () => {
    const unbounded = problem({
      variables: [v("x"), v("y")],
      objective: { constant: 0, terms: [t(-1, "x")] },
      constraints: [{ name: "r", terms: [t(1, "x"), t(-1, "y")], ub: 1 }],
    });
    for (const presolve of [true, false]) expect(solveChecked(unbounded, { presolve }).solver_status).toBe("unbounded");
    const infeasible = problem({
      variables: [v("x", null, null), v("y"), v("z")],
      objective: { constant: 0, terms: [t(-1, "x")] },
      constraints: [
        { name: "a", terms: [t(1, "y"), t(1, "z")], ub: -1 },
        { name: "b", terms: [t(1, "x"), t(1, "y")], lb: 0 },
      ],
    });
    for (const presolve of [true, false]) expect(solveChecked(infeasible, { presolve }).solver_status).toBe("infeasible");
  });

  it("solves problems without constraints, and fixed and empty columns", () => {
    const boxed = problem({ variables: [v("x", 1, 5), v("y", -3, 4)], objective: { constant: 2, terms: [t(1, "x"), t(-1, "y")] } });
    const r1 = solveChecked(boxed);
    expect(r1.solver_status).toBe("optimal");
    expectObjective(r1, 2 + 1 - 4);
    const free = problem({ variables: [v("x", null, null)], objective: { constant: 0, terms: [t(1, "x")] } });
    expect(solveChecked(free).solver_status).toBe("unbounded");
    const zero = problem({ variables: [v("x", null, null)], objective: { constant: 1.5, terms: [] } });
    const r3 = solveChecked(zero);
    expect(r3.solver_status).toBe("optimal");
    expectObjective(r3, 1.5);
    const fixed = problem({
      variables: [v("x", 2, 2), v("y"), v("unused", 0, 10)],
      objective: { constant: 0, terms: [t(1, "y"), t(1, "x")] },
      constraints: [
        { name: "r", terms: [t(1, "x"), t(1, "y")], lb: 5 },
        { name: "empty", terms: [], lb: -1, ub: 1 },
      ],
    });
    const r4 = solveChecked(fixed);
    expect(r4.solver_status).toBe("optimal");
    expectObjective(r4, 5);
  });

  it("gives the same answer with and without presolve on singleton rows, slack and implied-free columns", () => {
    const p = problem({
      variables: [v("a"), v("b"), v("s", 0, 3), v("f", null, null), v("g", 1, 8)],
      objective: { constant: 0, terms: [t(2, "a"), t(3, "b"), t(1, "f"), t(-1, "g")] },
      constraints: [
        { name: "single", terms: [t(2, "g")], ub: 10 },
        { name: "slack", terms: [t(1, "a"), t(1, "b"), t(1, "s")], lb: 4, ub: 6 },
        { name: "def", terms: [t(1, "f"), t(-1, "a"), t(-1, "b")], lb: 0, ub: 0 },
        { name: "link", terms: [t(1, "a"), t(-1, "g")], lb: -4 },
      ],
    });
    const on = solveChecked(p);
    const off = solveChecked(p, { presolve: false });
    expect(on.solver_status).toBe("optimal");
    expect(off.solver_status).toBe("optimal");
    expectObjective(on, off.objective_value!);
    expect(on.stats.presolve.rowsRemoved).toBeGreaterThan(0);
  });

  it("refuses quadratic objectives with an error, never a wrong answer", () => {
    const p = problem({ variables: [v("x")], objective: { constant: 0, terms: [], quadratic: [{ var1: "x", var2: "x", coef: 1 }] } });
    const r = solveJaos(p, { timeLimitSeconds: 1, gapTolerance: 0 });
    expect(r.solver_status).toBe("error");
    expect(r.error_message).toMatch(/quadratic/);
  });

  it("stops at the time limit without claiming a verdict", () => {
    const p = problem({
      variables: [v("x"), v("y")],
      objective: { constant: 0, terms: [t(1, "x")] },
      constraints: [{ name: "r", terms: [t(1, "x"), t(1, "y")], lb: 1 }],
    });
    const r = solveJaos(p, { timeLimitSeconds: 0, gapTolerance: 0 });
    expect(["time_limit", "optimal"]).toContain(r.solver_status);
    if (r.solver_status === "optimal") expect(checkSolution(p, r.solution!, { objective: r.objective_value })).toEqual([]);
  });
});

describe("jaos: the spec's two clocks", () => {
  it("reports the search alone as solver_time_seconds and the whole call, model building and the dual check included, as wall_time_ms", () => {
    // a wide LP: building the named model and checking the duals by name take measurable time
    const cols = 4000;
    const p = problem({
      sense: "maximize",
      variables: Array.from({ length: cols }, (_, j) => v(`x${j}`, 0, 1 + (j % 7))),
      objective: { constant: 0, terms: Array.from({ length: cols }, (_, j) => t(1 + (j % 13), `x${j}`)) },
      constraints: Array.from({ length: 6 }, (_, i) => ({
        name: `r${i}`,
        terms: Array.from({ length: cols }, (_, j) => t(1 + ((i * 7 + j) % 11), `x${j}`)),
        ub: 2000 + 300 * i,
      })),
    });
    const r = solveChecked(p);
    expect(r.solver_status).toBe("optimal");
    expect(r.duals_verified).toBe(true);
    expect(r.solver_time_seconds!).toBeGreaterThan(0);
    // 24,000 named terms to map, name and check: well over a millisecond outside the search
    expect(r.wall_time_ms! - r.solver_time_seconds! * 1000).toBeGreaterThan(1);
  });
});
