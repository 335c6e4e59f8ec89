/**
 * Root probing (probing.ts): on small random integer models built to give propagation something to
 * find (knapsacks with a big item, partitioning rows, implications x ≤ y, general integers), every
 * feasible integer point found by enumeration lies inside the probed bounds, and a model the probes
 * call infeasible has none; with a continuous column added, the search with probing ends with the
 * optimum of the search without it (a failing model is shrunk before it is reported).
 */
import { describe, expect, it } from "vitest";
import { solveMip } from "../src/mip.js";
import { modelFromProblem } from "../src/model.js";
import { presolve } from "../src/presolve.js";
import { probeBinaries } from "../src/probing.js";
import { integerPoints, type Problem, type ProblemInput, problem, seededGenerator, shrinkProblem } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

function randomModel(seed: number, continuous: boolean): Problem {
  const g = seededGenerator(seed);
  const n = g.int(5, 11);
  const variables: ProblemInput["variables"] = Array.from({ length: n }, (_, j) =>
    g.next() < 0.8 ? { name: `x${j}`, type: "binary" as const } : { name: `x${j}`, lb: 0, ub: g.int(2, 3), type: "integer" as const },
  );
  if (continuous) variables.push({ name: "c", lb: 0, ub: g.int(1, 8), type: "continuous" });
  const names = variables.map((v) => v.name);
  const pick = (k: number) => names.filter(() => g.next() < k / names.length);
  const constraints: ProblemInput["constraints"] = [];
  const rows = g.int(3, 7);
  for (let i = 0; i < rows; i++) {
    const kind = g.int(0, 3);
    if (kind === 0) {
      // a knapsack with one big item: taking it leaves the others little room
      const terms = pick(4).map((v) => term(g.int(1, 6), v));
      if (terms.length < 2) continue;
      terms[0] = term(g.int(8, 14), terms[0]!.var);
      constraints.push({ name: `r${i}`, terms, ub: g.int(9, 16) });
    } else if (kind === 1) {
      const terms = pick(3).map((v) => term(1, v));
      if (terms.length < 2) continue;
      constraints.push({ name: `r${i}`, terms, lb: 1, ub: g.next() < 0.5 ? 1 : 2 });
    } else if (kind === 2) {
      const [a, b] = [names[g.int(0, names.length - 1)]!, names[g.int(0, names.length - 1)]!];
      if (a === b) continue;
      constraints.push({ name: `r${i}`, terms: [term(g.int(1, 3), a), term(-g.int(1, 3), b)], ub: 0 });
    } else {
      const terms = pick(4).map((v) => term((g.next() < 0.3 ? -1 : 1) * g.int(1, 9), v));
      if (terms.length < 2) continue;
      const total = terms.reduce((s, t) => s + Math.abs(t.coef), 0);
      constraints.push({ name: `r${i}`, terms, lb: Math.round(0.3 * total) - g.int(0, 6) });
    }
  }
  const objective = { constant: 0, terms: variables.map((v) => term(g.int(-20, 20), v.name)) };
  return problem({ sense: g.next() < 0.5 ? "minimize" : "maximize", variables, objective, constraints });
}

/** What probing gets wrong on a pure integer model (checked by enumeration), or null. */
function probingFailure(p: Problem): string | null {
  const { model } = modelFromProblem(p);
  const r = probeBinaries(model, { workFactor: 1000, staleFactor: 1000, deadline: Infinity });
  const x = new Float64Array(model.cols);
  const act = (i: number) => {
    let s = 0;
    for (let j = 0; j < model.cols; j++) {
      for (let k = model.a.start[j]!; k < model.a.start[j + 1]!; k++) if (model.a.index[k] === i) s += model.a.value[k]! * x[j]!;
    }
    return s;
  };
  for (const point of integerPoints(model)) {
    for (const [j, v] of point) x[j] = v;
    let feasible = true;
    for (let i = 0; i < model.rows && feasible; i++) {
      const a = act(i);
      if (a < model.rowLower[i]! - 1e-9 || a > model.rowUpper[i]! + 1e-9) feasible = false;
    }
    if (!feasible) continue;
    if (r.infeasible) return `probing says infeasible, yet ${[...point].join(" ")} is feasible`;
    for (const [j, v] of point) {
      if (v < r.lower[j]! || v > r.upper[j]!) return `column ${j} probed to [${r.lower[j]}, ${r.upper[j]}] cuts off the feasible ${[...point].join(" ")}`;
    }
  }
  return null;
}

/** Where the searches with and without probing disagree, or null. */
function searchFailure(p: Problem): string | null {
  const { model } = modelFromProblem(p);
  const pre = presolve(model);
  if (pre.status !== "reduced") return null;
  const run = (probing: boolean) => solveMip(model, pre, { deadline: performance.now() + 60_000, gapTolerance: 0, probing });
  const [on, off] = [run(true), run(false)];
  if (on.status !== off.status) return `with probing ${on.status}, without ${off.status}`;
  if (off.status !== "optimal") return null;
  const value = (x: Float64Array) => x.reduce((s, v, j) => s + model.cost[j]! * v, model.offset);
  const [a, b] = [value(on.incumbent!), value(off.incumbent!)];
  return Math.abs(a - b) <= 2e-6 * Math.max(1, Math.abs(b)) ? null : `optimum with probing ${a}, without ${b}`;
}

function expectNoFailure(p: Problem, fails: (q: Problem) => string | null, seed: number): void {
  const failure = fails(p);
  if (failure === null) return;
  const small = shrinkProblem(p, fails);
  expect.fail(`seed ${seed}: ${fails(small)}\n${JSON.stringify(small)}`);
}

describe("jaos root probing", () => {
  it("keeps every feasible point of random integer models inside the probed bounds", () => {
    let found = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const p = randomModel(seed * 31, false);
      expectNoFailure(p, probingFailure, seed);
      const r = probeBinaries(modelFromProblem(p).model, { workFactor: 1000, staleFactor: 1000, deadline: Infinity });
      if (r.fixed + r.tightened > 0 || r.infeasible) found++;
    }
    // the models give the probes something to find on a good share of them
    expect(found).toBeGreaterThan(30);
  });

  it("leaves the optimum of random MILPs unchanged", () => {
    let probed = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const p = randomModel(seed * 53, true);
      expectNoFailure(p, searchFailure, seed);
      const { model } = modelFromProblem(p);
      const pre = presolve(model);
      if (pre.status !== "reduced") continue;
      const out = solveMip(model, pre, { deadline: performance.now() + 60_000, gapTolerance: 0 });
      if (out.stats.probing?.applied) probed++;
    }
    expect(probed).toBeGreaterThan(5);
  });

  it("fixes a binary whose one side breaks a row, and keeps the union of what both sides imply", () => {
    // 10x + 8y ≤ 12 and x + y ≥ 1: x = 1 ⇒ y = 0 and x = 0 ⇒ y = 1; z ≤ 1 + 4x and z ≤ 1 + 4y then give
    // z ≤ 1 on both sides (propagation alone: z ≤ 5); w = 1 leaves 3x + 3y ≤ 2, breaking x + y ≥ 1
    const p = problem({
      variables: [
        { name: "x", type: "binary" },
        { name: "y", type: "binary" },
        { name: "z", lb: 0, ub: 9, type: "integer" },
        { name: "w", type: "binary" },
      ],
      constraints: [
        { name: "knap", terms: [term(10, "x"), term(8, "y")], ub: 12 },
        { name: "cover", terms: [term(1, "x"), term(1, "y")], lb: 1 },
        { name: "capx", terms: [term(1, "z"), term(-4, "x")], ub: 1 },
        { name: "capy", terms: [term(1, "z"), term(-4, "y")], ub: 1 },
        { name: "room", terms: [term(5, "w"), term(3, "x"), term(3, "y")], ub: 7 },
      ],
    });
    const { model } = modelFromProblem(p);
    const r = probeBinaries(model, { workFactor: 1000, staleFactor: 1000, deadline: Infinity });
    expect(r.infeasible).toBe(false);
    expect([r.lower[3], r.upper[3]]).toEqual([0, 0]);
    expect(r.upper[2]).toBe(1);
    expect(probingFailure(p)).toBeNull();
  });

  it("stops after its first slice of work when nothing was found, and goes on once something was", () => {
    // 400 binaries in 100 loose rows (40 of them ≤ 39): no probe concludes anything
    const n = 400;
    const variables = Array.from({ length: n }, (_, j) => ({ name: `x${j}`, type: "binary" as const }));
    const rows = (extra: NonNullable<ProblemInput["constraints"]>) => [
      ...Array.from({ length: 100 }, (_, i) => ({
        name: `r${i}`,
        terms: Array.from({ length: 40 }, (_, k) => term(1, `x${(i * 7 + k * 11) % n}`)),
        ub: 39,
      })),
      ...extra,
    ];
    const opt = { workFactor: 1000, staleFactor: 1000, deadline: Infinity };
    const loose = modelFromProblem(problem({ variables, constraints: rows([]) })).model;
    const whole = probeBinaries(loose, opt);
    const sliced = probeBinaries(loose, { ...opt, firstSliceFactor: 5 });
    expect(whole.probed).toBe(n);
    expect(sliced.fixed + sliced.tightened + whole.fixed + whole.tightened).toBe(0);
    expect(sliced.probed).toBeLessThan(n);
    expect(sliced.work).toBeLessThan(whole.work);
    // a row that fixes a binary by itself: the rows' propagation found something, every binary is probed
    const fixing = modelFromProblem(problem({ variables, constraints: rows([{ name: "fix", terms: [term(1, "x0")], ub: 0 }]) })).model;
    const found = probeBinaries(fixing, { ...opt, firstSliceFactor: 5 });
    expect(found.fixed).toBeGreaterThan(0);
    expect(found.probed).toBe(n - found.fixed);
  });
});
