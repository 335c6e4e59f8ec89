import { describe, expect, it } from "vitest";
import { hasIntegers } from "../../../../../functions/core/problem/schema.js";
import { solveJaos } from "../../../../../functions/core/solvers/jaos-engine.js";
import { jaosWarmUpProblems, jaosWarmUpSequence } from "../../../../../solver-container/src/adapters/jaos-warm-up.js";

/**
 * The standby jaos child's warm-up problems are what they claim: the same every time, each solved by
 * jaos to the verdict its construction promises, and the LPs reach the code paths they are there for.
 */
describe("jaos warm-up problems", () => {
  const problems = jaosWarmUpProblems();
  const solved = problems.map((p) => ({ p, r: solveJaos(p, { timeLimitSeconds: 20, gapTolerance: 1e-6 }) }));

  it("are generated identically on every call (fixed seeds, no files)", () => {
    expect(JSON.stringify(jaosWarmUpProblems())).toBe(JSON.stringify(problems));
  });

  it("end optimal, except the one built infeasible for the certificate path", () => {
    for (const { p, r } of solved) expect([p.name, r.solver_status]).toEqual([p.name, p.name === "warm-infeasible" ? "infeasible" : "optimal"]);
    expect(solved.some(({ p }) => hasIntegers(p))).toBe(true);
  });

  it("the production plan is a staircase LP that presolve reduces and the dual simplex then iterates on", () => {
    const { p, r } = solved.find(({ p }) => p.name === "warm-production-plan")!;
    expect(p.constraints.length).toBeGreaterThan(400);
    expect(r.stats.presolve.rowsRemoved).toBeGreaterThan(100);
    expect(r.stats.presolve.colsRemoved).toBeGreaterThan(100);
    expect(r.iterations!).toBeGreaterThan(100);
  });

  it("the wide LP ends with more columns at their upper bound than it has rows (bound flips, not basis changes)", () => {
    const { p, r } = solved.find(({ p }) => p.name === "warm-wide-boxed")!;
    expect(p.variables.length).toBeGreaterThanOrEqual(2000);
    const atUpper = p.variables.filter((v) => v.ub !== null && Math.abs(r.solution![v.name]! - v.ub) < 1e-9).length;
    expect(atUpper).toBeGreaterThan(p.constraints.length);
  });

  it("the MILPs drive the search's paths (cuts, probing, strong branching, propagation, heuristics) and stay small", () => {
    const milps = solved.filter(({ p }) => hasIntegers(p));
    const stats = milps.map(({ r }) => r.stats.mip!);
    expect(stats.every((m) => m.cutsKept > 0 && m.probing !== null)).toBe(true);
    expect(milps.filter(({ r }) => r.nodes! > 10).length).toBeGreaterThanOrEqual(2);
    expect(stats.some((m) => m.strongBranchings > 0 && m.heuristicSolutions > 0 && m.reducedCostFixings > 0)).toBe(true);
    expect(stats.some((m) => m.propagation.tightenings > 0)).toBe(true);
    // Their cost, in deterministic units: the knapsacks of before took up to 1,560 iterations and 64 nodes each.
    for (const { p, r } of milps) expect([p.name, r.iterations! < 1000 && r.nodes! < 50]).toEqual([p.name, true]);
  });

  it("the sequence runs the LPs every round and the MILPs every milpEvery-th round, in the problems' order", () => {
    const names = (list: { name?: string }[]) => list.map((p) => p.name);
    const lps = names(problems.filter((p) => !hasIntegers(p)));
    const all = names(problems);
    const sequence = names([...jaosWarmUpSequence(5, 2)]);
    expect(sequence).toEqual([...all, ...lps, ...all, ...lps, ...all]);
  });
});
