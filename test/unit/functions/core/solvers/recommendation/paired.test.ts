import { describe, expect, it } from "vitest";
import { newComparisonRecord } from "../../../../../../functions/core/comparisons/records.js";
import type { Problem } from "../../../../../../functions/core/problem/schema.js";
import { featuresOf } from "../../../../../../functions/core/solvers/recommendation/features.js";
import { type Observation, observationOfComparison } from "../../../../../../functions/core/solvers/recommendation/observations.js";
import { pairedComparison } from "../../../../../../functions/core/solvers/recommendation/paired.js";
import { recommend, type Tuning } from "../../../../../../functions/core/solvers/recommendation/recommender.js";
import { structureCountsOf } from "../../../../../../functions/core/solvers/recommendation/structure.js";

const ALL = new Set(["highs", "scip", "cbc", "glpk", "jaos"]);

const milp = (id: string, rows: number, times: Record<string, number>): Observation => ({
  id,
  source: "organization",
  features: featuresOf({ problem_class: "MILP", variable_count: rows * 2, constraint_count: rows }),
  runs: Object.entries(times).map(([solver, t]) => ({ solver, seconds: Math.abs(t), solved: t >= 0, time_limit_seconds: 60 })),
});
const query = (rows: number) => featuresOf({ problem_class: "MILP", variable_count: rows * 2, constraint_count: rows });
/** The mechanism under test, not the service's chosen constants: a fixed base every case starts from. */
const BASE: Tuning = { k: 5, shrinkage: 3, confidence: 1, distanceWeighted: false, prior: "class" };
const ask = (history: Observation[], tuning: Tuning = {}) =>
  recommend({ features: query(500), available: ALL, organization: history, public: [], tuning: { ...BASE, ...tuning } })!;

/** A small seeded generator, so the generated cases are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1103515245 + 12345) % 2147483648;
    return a / 2147483648;
  };
}

describe("the evidence rule (paired comparisons against the default)", () => {
  it("keeps the default with thin, noisy evidence and says it was for lack of clear evidence", () => {
    // CBC faster on two of three, much slower on the third: the mean favours CBC, the spread does not.
    const history = [milp("a", 500, { highs: 4, cbc: 1 }), milp("b", 520, { highs: 5, cbc: 1.2 }), milp("c", 480, { highs: 2, cbc: 9 })];
    const r = ask(history, { confidence: 1 });
    expect(r.solver).toBe("highs");
    expect(r.basis).toBe("organization");
    expect(r.reason).toMatch(/^Kept HiGHS, the default for MILP, for lack of clear evidence: .* CBC was faster on 2 of 3 .*more comparisons would tell\.$/);
    expect(r.ranking[0]!.solver).toBe("highs");
  });

  it("switches with clear evidence: another solver faster on every similar problem by a steady factor", () => {
    const history = Array.from({ length: 6 }, (_, i) => milp(`m${i}`, 450 + 20 * i, { highs: 8 + i, cbc: 1 + i / 10, scip: 12 }));
    const r = ask(history, { k: 9, confidence: 2 });
    expect(r.solver).toBe("cbc");
    expect(r.reason).toMatch(
      /^CBC was fastest on 6 of the 6 most similar models you compared .*clearly faster than HiGHS, the default for MILP \(faster on 6 of 6, about 0\.\d+× its time\)\.$/,
    );
  });

  it("never leaves the default with infinite confidence, and shrinkage toward no difference holds it back", () => {
    const history = Array.from({ length: 5 }, (_, i) => milp(`m${i}`, 500, { highs: 3 + (i % 2), cbc: i === 4 ? 5 : 1 }));
    expect(ask(history, { confidence: 0 }).solver).toBe("cbc");
    expect(ask(history, { confidence: Number.POSITIVE_INFINITY }).solver).toBe("highs");
    const neighbours = history.map((observation) => ({ observation, distance: 0 }));
    const rule = { confidence: 1, distanceWeighted: false, scale: "log" as const, prior: "zero" as const };
    const free = pairedComparison("cbc", "highs", neighbours, { ...rule, shrinkage: 0 }, { shift: 1, minPairs: 3 })!;
    const held = pairedComparison("cbc", "highs", neighbours, { ...rule, shrinkage: 50 }, { shift: 1, minPairs: 3 })!;
    expect(free.clearly_faster).toBe(true);
    expect(held.clearly_faster).toBe(false);
    expect(held.time_ratio).toBeGreaterThan(free.time_ratio);
    // Fewer pairs than the minimum: no comparison at all.
    expect(pairedComparison("cbc", "highs", neighbours.slice(0, 2), { ...rule, shrinkage: 0 }, { shift: 1, minPairs: 3 })).toBeNull();
  });

  it("with the class-wide prior, a solver that runs out of time elsewhere in the class carries that risk", () => {
    const near = Array.from({ length: 5 }, (_, i) => milp(`near${i}`, 500 + 10 * i, { highs: 3 + i / 10, cbc: 1 + i / 5 }));
    // Far from the query (two decades bigger): CBC ran out of time on every one.
    const far = Array.from({ length: 10 }, (_, i) => milp(`far${i}`, 50_000 + i, { highs: 5, cbc: -60 }));
    const history = [...near, ...far];
    expect(ask(history, { k: 5, shrinkage: 3, confidence: 1, prior: "zero" }).solver).toBe("cbc");
    const wary = ask(history, { k: 5, shrinkage: 3, confidence: 1, prior: "class" });
    expect(wary.solver).toBe("highs");
    expect(wary.evidence.similar_problems.every((id) => id.startsWith("near"))).toBe(true);
    expect(wary.reason).toMatch(/^Kept HiGHS, the default for MILP, for lack of clear evidence: .* CBC was faster on 5 of 5/);
  });

  it("on generated histories: deterministic in any order, never switches to a solver never faster, always to one steadily faster", () => {
    const random = seeded(29);
    for (let round = 0; round < 40; round++) {
      const factor = 0.2 + random() * 0.5;
      const history = Array.from({ length: 3 + Math.floor(random() * 8) }, (_, i) => {
        const highs = 0.5 + random() * 20;
        return milp(`g${round}_${i}`, 300 + Math.floor(random() * 400), { highs, cbc: highs * factor, glpk: highs * (1 + random()) });
      });
      for (const tuning of [{ confidence: 2 }, { confidence: 1, distanceWeighted: true }, { confidence: 1, shrinkage: 1, scale: "seconds" as const }]) {
        const r = ask(history, tuning);
        expect(ask([...history].reverse(), tuning)).toEqual(r);
        expect(r.solver).not.toBe("glpk");
        expect(r.solver).toBe("cbc");
      }
    }
  });
});

describe("structure counts", () => {
  it("counts rows by kind from the rows alone, each row once", () => {
    const b = (name: string) => ({ name, lb: 0, ub: 1, type: "binary" as const });
    const problem = {
      name: "s",
      sense: "minimize",
      variables: [b("x"), b("y"), b("z"), { name: "n", lb: 0, ub: 10, type: "integer" as const }, { name: "c", lb: 0, ub: null, type: "continuous" as const }],
      objective: { constant: 0, terms: [] },
      constraints: [
        { name: "part", terms: ["x", "y", "z"].map((v) => ({ var: v, coef: 1 })), lb: 1, ub: 1 },
        { name: "pack", terms: ["x", "y"].map((v) => ({ var: v, coef: 1 })), lb: null, ub: 1 },
        { name: "cover", terms: ["y", "z"].map((v) => ({ var: v, coef: 1 })), lb: 1, ub: null },
        { name: "card", terms: ["x", "y", "z"].map((v) => ({ var: v, coef: 1 })), lb: null, ub: 2 },
        {
          name: "knap",
          terms: [
            { var: "x", coef: 3 },
            { var: "n", coef: 2 },
            { var: "z", coef: 5 },
          ],
          lb: null,
          ub: 9,
        },
        {
          name: "vub",
          terms: [
            { var: "c", coef: 1 },
            { var: "x", coef: -40 },
          ],
          lb: null,
          ub: 0,
        },
        {
          name: "bal",
          terms: [
            { var: "c", coef: 1 },
            { var: "n", coef: 2 },
            { var: "y", coef: 0.5 },
          ],
          lb: 4,
          ub: 4,
        },
        { name: "other", terms: [{ var: "c", coef: 1 }], lb: 1, ub: null },
      ],
    } as Problem;
    expect(structureCountsOf(problem)).toEqual({
      set_partitioning: 1,
      set_packing: 1,
      set_covering: 1,
      cardinality: 1,
      knapsack: 1,
      variable_bound: 1,
      equality: 1,
      rows: 8,
    });
  });
});

describe("comparison records and the features they keep", () => {
  const base = {
    id: "cmp_n",
    problem_class: "MILP",
    variable_count: 100,
    constraint_count: 50,
    settings: { time_limit_seconds: 30 },
    agreement: null,
    results: [{ solver_name: "highs", status: "completed" as const, solver_status: "optimal" as const, solver_time_seconds: 1 }],
  };
  const structure = { set_partitioning: 10, set_packing: 0, set_covering: 0, cardinality: 0, knapsack: 5, variable_bound: 0, equality: 5, rows: 50 };

  it("are built with nonzero, integer and structure counts, and an observation reads them", () => {
    const record = newComparisonRecord({
      id: "cmp_n",
      orgId: "org",
      createdBy: "u",
      problemName: "p",
      settings: { time_limit_seconds: 30 } as never,
      stats: { problem_class: "MILP", variable_count: 100, constraint_count: 50, nonzero_count: 400, integer_count: 20, binary_count: 30 },
      structure,
      solverNames: ["highs"],
      rows: [],
      problem: null,
      creditsEach: 1,
      priority: 0,
      numerics: null,
      nowMs: 0,
    });
    expect([record.nonzero_count, record.integer_variable_count, record.structure_counts]).toEqual([400, 50, structure]);
    const o = observationOfComparison({ ...base, nonzero_count: 400, integer_variable_count: 50, structure_counts: structure })!;
    expect(o.features.integer_share).toBe(0.5);
    expect(o.features.log_nonzeros).toBeCloseTo(Math.log10(401), 9);
    expect([o.features.set_share, o.features.knapsack_share, o.features.equality_share]).toEqual([0.2, 0.1, 0.1]);
  });

  it("from before those counts still count, with those features unknown", () => {
    const o = observationOfComparison(base)!;
    expect(o.features.log_nonzeros).toBeNull();
    expect(o.features.integer_share).toBeNull();
    expect(o.features.set_share).toBeUndefined();
    expect(o.runs).toHaveLength(1);
  });
});
