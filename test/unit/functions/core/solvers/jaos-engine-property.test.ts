/**
 * Random small LPs and MILPs from a fixed seed, solved by jaos and by HiGHS (WebAssembly build): the
 * statuses must agree and, when both are optimal, the objectives (1e-6 relative). Every jaos solution
 * also passes the independent checker. The generator mixes bound types (boxed, one-sided, free,
 * fixed), row types (≤, ≥, =, ranged), both senses and objective constants, so infeasible and
 * unbounded LPs occur as well as optimal ones. The larger MILPs (10–20 columns) reach cutting planes
 * and deeper trees. MILP columns are boxed (an unbounded MILP is decided
 * differently by different solvers and is covered by the unit tests).
 */
import { describe, expect, it } from "vitest";
import { writeLp } from "../../../../../functions/core/problem/lp.js";
import type { Problem, ProblemInput } from "../../../../../functions/core/problem/schema.js";
import { problem, solveChecked, seededGenerator } from "../../../../support/jaos.js";

function randomProblem(seed: number, mixedInteger: boolean, larger = false): Problem {
  const g = seededGenerator(seed);
  const n = larger ? g.int(10, 20) : g.int(2, 8);
  const m = larger ? g.int(5, 12) : g.int(1, 7);
  const variables: ProblemInput["variables"] = [];
  for (let j = 0; j < n; j++) {
    const integer = mixedInteger && g.next() < 0.6;
    if (mixedInteger) {
      const lb = g.int(-3, 1);
      variables.push({ name: `x${j}`, lb, ub: lb + g.int(0, 6), type: integer ? "integer" : "continuous" });
      continue;
    }
    const r = g.next();
    let lb: number | null = 0;
    let ub: number | null = null;
    if (r < 0.35) ub = g.next() < 0.5 ? null : g.int(1, 10);
    else if (r < 0.55) [lb, ub] = [g.int(-5, 0), g.int(1, 10)];
    else if (r < 0.65) [lb, ub] = [null, null];
    else if (r < 0.75) [lb, ub] = [null, g.int(0, 10)];
    else if (r < 0.82) lb = ub = g.int(-2, 4);
    else [lb, ub] = [g.int(-3, 3), null];
    variables.push({ name: `x${j}`, lb, ub });
  }
  const coef = () => (g.next() < 0.2 ? g.int(-12, 12) / 2 : g.int(-6, 6));
  const constraints: ProblemInput["constraints"] = [];
  // larger instances are built around a point inside the bounds, so they are feasible and the search
  // (cuts, branching) has work to do rather than an early infeasibility proof
  const anchor = larger ? variables.map((v) => g.int(v.lb as number, v.ub as number)) : [];
  for (let i = 0; i < m; i++) {
    const terms = [];
    for (let j = 0; j < n; j++) if (g.next() < 0.6) terms.push({ var: `x${j}`, coef: coef() });
    const kind = g.next();
    let lb: number | null;
    let ub: number | null;
    if (larger) {
      const act = terms.reduce((s, t) => s + t.coef * anchor[Number(t.var.slice(1))]!, 0);
      [lb, ub] = kind < 0.45 ? [null, act + g.int(0, 3)] : kind < 0.9 ? [act - g.int(0, 3), null] : [act, act];
    } else {
      const rhs = g.int(-10, 20);
      [lb, ub] = kind < 0.4 ? [null, rhs] : kind < 0.7 ? [rhs, null] : kind < 0.85 ? [rhs, rhs] : [rhs - g.int(0, 8), rhs];
    }
    constraints.push({ name: `r${i}`, terms, lb, ub });
  }
  const objective = { constant: g.int(-5, 5), terms: variables.map((v) => ({ var: v.name, coef: g.int(-5, 5) })) };
  return problem({ name: `random${seed}`, sense: g.next() < 0.5 ? "minimize" : "maximize", variables, objective, constraints });
}

interface HighsLike {
  solve(lp: string, options?: Record<string, unknown>): { Status: string; ObjectiveValue: number };
}

async function loadHighs(): Promise<HighsLike> {
  const module = await import("highs");
  return (await module.default()) as unknown as HighsLike;
}

function highsVerdict(highs: HighsLike, p: Problem): { status: string; objective: number } {
  const written = writeLp(p, { safeNames: true, omitObjectiveConstant: true, rangedRows: "split" });
  const r = highs.solve(written.text, { presolve: "off" });
  const status = { Optimal: "optimal", Infeasible: "infeasible", Unbounded: "unbounded" }[r.Status] ?? r.Status;
  return { status, objective: r.ObjectiveValue * written.objectiveSign + written.omittedObjectiveConstant };
}

describe("jaos agrees with HiGHS on random small problems (fixed seed)", () => {
  const groups = [
    ["LP", false, 400, false],
    ["MILP", true, 200, false],
    ["larger MILP", true, 60, true],
  ] as const;
  for (const [label, mixedInteger, count, larger] of groups) {
    it(`${count} random ${label}s`, async () => {
      const highs = await loadHighs();
      const seen: Record<string, number> = {};
      for (let seed = 1; seed <= count; seed++) {
        const p = randomProblem(seed * 7919 + (mixedInteger ? 1 : 0) + (larger ? 2 : 0), mixedInteger, larger);
        const reference = highsVerdict(highs, p);
        const jaos = solveChecked(p, { timeLimitSeconds: 10, gapTolerance: 0 });
        const where = `${label} seed ${seed}: HiGHS ${reference.status} ${reference.objective}, jaos ${jaos.solver_status} ${jaos.objective_value}`;
        expect(jaos.solver_status, where).toBe(reference.status);
        if (reference.status === "optimal") {
          expect(Math.abs(jaos.objective_value! - reference.objective), where).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(reference.objective)));
        }
        seen[reference.status] = (seen[reference.status] ?? 0) + 1;
      }
      // the small generators must exercise more than one verdict (the larger ones are feasible by design)
      if (!larger) expect(Object.keys(seen).length, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
    }, 120_000);
  }
});
