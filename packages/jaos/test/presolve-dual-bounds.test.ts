/**
 * Dominated columns by bounds on the row duals (presolve-dual-bounds.ts): the dual box propagated
 * through columns with an infinite bound fixes a column whose reduced cost keeps one sign over it,
 * and the postsolved basis keeps that column dual feasible. Then a seeded property test: random LPs
 * rich in such columns give the same verdict and objective with presolve on and off, the reduced
 * optimum postsolves to a feasible optimum, and the fixed columns' reduced costs at the postsolved
 * basis have the sign their bound needs; a failing model is shrunk before it is reported.
 */
import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { modelFromProblem } from "../src/model.js";
import { Presolver } from "../src/presolve.js";
import { dominatedColumns, dualBox } from "../src/presolve-dual-bounds.js";
import { AT_LOWER, AT_UPPER } from "../src/simplex-state.js";
import type { Problem, ProblemInput } from "./support.js";
import { expectObjective, presolveFailure, problem, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

type Term = [string, number];
const row = (name: string, terms: Term[], lb: number | null, ub: number | null) => ({ name, terms: terms.map(([v, coef]) => ({ var: v, coef })), lb, ub });

/**
 * min 2x + y + 3z + w s.t. x + y + z ≥ 4 (cover), y − w = 0 (link); x, z ∈ [0, 10], y, w ≥ 0 open
 * above. w (cost 1, −1 in link) gives 1 + y_link ≥ 0, so y_link ≥ −1; y (cost 1) gives
 * y_cover + y_link ≤ 1, so y_cover ≤ 2. Then x's reduced cost 2 − y_cover ≥ 0 (x weakly dominated: it
 * is not a source) and z's 3 − y_cover ≥ 1: both fixed at 0, and y = w = 4 at cost 8.
 */
function chain(): Problem {
  return problem({
    variables: [
      { name: "x", lb: 0, ub: 10 },
      { name: "y", lb: 0, ub: null },
      { name: "z", lb: 0, ub: 10 },
      { name: "w", lb: 0, ub: null },
    ],
    objective: {
      terms: [
        { var: "x", coef: 2 },
        { var: "y", coef: 1 },
        { var: "z", coef: 3 },
        { var: "w", coef: 1 },
      ],
    },
    constraints: [
      row(
        "cover",
        [
          ["x", 1],
          ["y", 1],
          ["z", 1],
        ],
        4,
        null,
      ),
      row(
        "link",
        [
          ["y", 1],
          ["w", -1],
        ],
        0,
        0,
      ),
    ],
  });
}

describe("jaos presolve: dominated columns by the row duals' bounds", () => {
  it("propagates the box through a two-row column and fixes the columns it dominates", () => {
    const p = chain();
    const pre = new Presolver(modelFromProblem(p).model);
    const box = dualBox(pre)!;
    // w (open above, cost 1, −1 in link): 1 + y_link ≥ 0; y (open above, cost 1): y_cover + y_link ≤ 1
    expect(box.lower[1]).toBe(-1);
    expect(box.upper[0]).toBe(2);
    expect(dominatedColumns(pre)).toBe(2);
    expect(pre.colActive[0]).toBe(0); // x
    expect(pre.colActive[2]).toBe(0); // z
    const on = solveChecked(p, { gapTolerance: 0 });
    expect(on.solver_status).toBe("optimal");
    // y = w = 4 at cost 8
    expectObjective(on, 8);
    expectObjective(on, solveChecked(p, { gapTolerance: 0, presolve: false }).objective_value!);
  });

  it("fixes no source column: an unbounded LP whose box creeps up without a dual solution stays unbounded", () => {
    // (shrunk from a seeded model of presolve-parallel-columns.test.ts) every column is open above and
    // each tightens the others' dual bounds in turn, up to ~5e8; x5's reduced cost −3 + 3·y0 is then
    // positive over the box, but fixing it (a source) made the LP bounded
    const p = problem({
      variables: [
        { name: "x4", lb: 1, ub: null },
        { name: "x5", lb: 0, ub: null },
        { name: "x6", lb: -3, ub: null },
      ],
      objective: {
        terms: [
          { var: "x4", coef: 2 },
          { var: "x5", coef: -3 },
          { var: "x6", coef: -4 },
        ],
      },
      constraints: [
        row(
          "r0",
          [
            ["x4", -1],
            ["x5", -3],
            ["x6", 4],
          ],
          -10,
          -10,
        ),
        row(
          "r1",
          [
            ["x4", 1],
            ["x6", -2],
          ],
          4,
          null,
        ),
      ],
    });
    const pre = new Presolver(modelFromProblem(p).model);
    const box = dualBox(pre)!;
    expect(Array.from(box.source)).toEqual([1, 1, 1]);
    expect(dominatedColumns(pre)).toBe(0);
    expect(solveChecked(p).solver_status).toBe("unbounded");
    expect(solveChecked(p, { presolve: false }).solver_status).toBe("unbounded");
  });

  it("leaves the columns alone when the work budget is spent before the box is tight", () => {
    const pre = new Presolver(modelFromProblem(chain()).model);
    expect(dominatedColumns(pre, 0)).toBe(0);
  });
});

/**
 * Random LPs: columns in [0, u] or open above (the sources), a few free or open below, rows of every
 * kind (≥, ≤, =, ranges) over 2–4 columns, nonnegative costs mostly (so that the box is bounded and
 * columns get dominated), a point that satisfies every row so that most models are feasible.
 */
function withDualBounds(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(3, 9);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) {
    const kind = g.next();
    if (kind < 0.45) variables.push({ name: `x${j}`, lb: 0, ub: null });
    else if (kind < 0.55) variables.push({ name: `x${j}`, lb: null, ub: g.int(0, 5) });
    else if (kind < 0.6) variables.push({ name: `x${j}`, lb: null, ub: null });
    else variables.push({ name: `x${j}`, lb: g.int(-2, 1), ub: g.int(2, 8) });
  }
  const anchor = variables.map((v) => Math.max(v.lb ?? -Infinity, Math.min(v.ub ?? Infinity, g.int(0, 3))));
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < g.int(2, 6); i++) {
    const terms = new Map<number, number>();
    const size = g.int(2, Math.min(4, n));
    while (terms.size < size) terms.set(g.int(0, n - 1), (g.next() < 0.3 ? g.int(-8, 8) / 2 : g.int(-3, 3)) || 1);
    const at = [...terms].reduce((sum, [j, a]) => sum + a * anchor[j]!, 0);
    const kind = g.next();
    const lb = kind < 0.4 ? at - g.int(0, 3) : kind < 0.6 ? at : kind < 0.8 ? null : at - g.int(0, 2);
    const ub = kind < 0.4 ? null : kind < 0.6 ? at : at + g.int(0, 3);
    constraints.push({ name: `r${i}`, terms: [...terms].map(([j, a]) => ({ var: `x${j}`, coef: a })), lb, ub });
  }
  const cost: Term[] = variables.map((v) => [v.name, g.next() < 0.15 ? g.int(-3, 0) : g.int(0, 6)]);
  return problem({
    sense: "minimize",
    variables,
    objective: { constant: 0, terms: cost.map(([v, coef]) => ({ var: v, coef })) },
    constraints,
  });
}

/**
 * What is wrong with the dominated fixings on their own, or null: the reduced LP (after them alone)
 * solved to optimality, its basis postsolved, and a fixed column whose reduced cost at that basis has
 * the sign its bound forbids.
 */
function dualFailure(p: Problem): string | null {
  const { model } = modelFromProblem(p);
  const pre = new Presolver(model);
  if (dominatedColumns(pre) === 0) return null;
  const reduced = pre.result(model);
  const engine = new LpEngine(reduced.reduced);
  const r = engine.solve({ deadline: performance.now() + 10_000 });
  if (r.status !== "optimal") return null;
  const x = reduced.postsolve(r.x!);
  const basis = reduced.postsolveBasis(engine.getBasis(), x);
  const original = new LpEngine(model);
  original.setBasis(basis);
  const y = original.rowDuals();
  for (let j = 0; j < model.cols; j++) {
    if (pre.colActive[j]) continue;
    let d = model.cost[j];
    for (let k = model.a.start[j]; k < model.a.start[j + 1]; k++) d -= model.a.value[k] * y[model.a.index[k]];
    const tol = 1e-7 * Math.max(1, Math.abs(model.cost[j]));
    if ((basis[j] === AT_LOWER && d < -tol) || (basis[j] === AT_UPPER && d > tol))
      return `column ${j} fixed at ${basis[j] === AT_LOWER ? "lower" : "upper"} has reduced cost ${d}`;
  }
  return null;
}

describe("jaos presolve with dominated columns by dual bounds agrees with no presolve (seeded random LPs)", () => {
  it("400 random LPs: same verdict and objective, a feasible postsolved optimum, dual feasible fixed columns", () => {
    const seen: Record<string, number> = {};
    let fixedIn = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = withDualBounds(seed * 7919 + 3);
      const wrong = presolveFailure(p);
      if (wrong) expect.fail(`seed ${seed}: ${wrong}; shrunk to ${JSON.stringify(shrinkProblem(p, presolveFailure))}`);
      const dual = dualFailure(p);
      if (dual) expect.fail(`seed ${seed}: ${dual}; shrunk to ${JSON.stringify(shrinkProblem(p, dualFailure))}`);
      if (dominatedColumns(new Presolver(modelFromProblem(p).model)) > 0) fixedIn++;
      const verdict = solveChecked(p, { gapTolerance: 0, presolve: false }).solver_status;
      seen[verdict] = (seen[verdict] ?? 0) + 1;
    }
    expect(seen.optimal ?? 0, JSON.stringify(seen)).toBeGreaterThan(150);
    expect(fixedIn, `${fixedIn} models with a dominated column fixed`).toBeGreaterThan(100);
  }, 240_000);
});
