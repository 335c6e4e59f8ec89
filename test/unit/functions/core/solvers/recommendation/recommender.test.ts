import { describe, expect, it } from "vitest";
import { featureDistance, featuresOf, sizesOfStats } from "../../../../../../functions/core/solvers/recommendation/features.js";
import { observationOfComparison, type Observation } from "../../../../../../functions/core/solvers/recommendation/observations.js";
import {
  candidatesInRuleOrder,
  K_NEAREST,
  MIN_SIMILAR,
  recommend,
  shiftedGeometricMean,
} from "../../../../../../functions/core/solvers/recommendation/recommender.js";
import { pickAuto } from "../../../../../../functions/core/solvers/registry.js";

const ALL = new Set(["highs", "scip", "cbc", "glpk", "jaos"]);

/** A past LP of about `rows` rows, with each solver's time (a negative time: not solved right, at the limit). */
function lp(id: string, rows: number, times: Record<string, number>, cls: "LP" | "MILP" = "LP"): Observation {
  return {
    id,
    source: "organization",
    features: featuresOf({ problem_class: cls, variable_count: rows * 2, constraint_count: rows }),
    runs: Object.entries(times).map(([solver, t]) => ({ solver, seconds: Math.abs(t), solved: t >= 0, time_limit_seconds: 60 })),
  };
}

const query = (rows: number, cls: "LP" | "MILP" = "LP") => featuresOf({ problem_class: cls, variable_count: rows * 2, constraint_count: rows });

describe("features", () => {
  it("count sizes in decades, integers as a share, and ranges in decades", () => {
    const f = featuresOf(
      sizesOfStats({
        problem_class: "MILP",
        variable_count: 999,
        constraint_count: 99,
        integer_count: 100,
        binary_count: 150,
        nonzero_count: 9999,
        quadratic_term_count: 0,
      }),
      {
        matrix_range: { min: 0.01, max: 100 },
        objective_range: null,
        bounds_range: null,
        rhs_range: null,
        warnings: [],
      },
    );
    expect(f).toEqual({
      problem_class: "MILP",
      log_variables: 3,
      log_constraints: 2,
      log_nonzeros: 4,
      integer_share: 250 / 999,
      matrix_range_decades: 4,
      objective_range_decades: null,
    });
  });

  it("measure distance within a class only, over the features both sides have", () => {
    const a = featuresOf({ problem_class: "LP", variable_count: 999, constraint_count: 99, nonzero_count: 5000 });
    const b = featuresOf({ problem_class: "LP", variable_count: 9999, constraint_count: 999 });
    expect(featureDistance(a, b)).toBeCloseTo(1, 6); // one decade in both shared features; nonzeros unknown on b
    expect(featureDistance(a, { ...b, problem_class: "MILP" })).toBe(Number.POSITIVE_INFINITY);
    expect(featureDistance(a, a)).toBe(0);
  });
});

describe("the recommender", () => {
  it("ranks by the shifted geometric mean of the nearest problems' times, a failed run at its time limit", () => {
    const history = [
      lp("cmp_1", 1000, { highs: 5, scip: 0.5 }),
      lp("cmp_2", 1200, { highs: 8, scip: 0.4 }),
      lp("cmp_3", 900, { highs: 4, scip: -5 }), // SCIP did not solve it: counted at 60 s
      lp("cmp_4", 1100, { highs: 6, scip: 0.6 }),
    ];
    // The mechanism, not the service's chosen constants: four neighbours (k 5), the earlier evidence rule.
    const base = { k: 5, shrinkage: 3, confidence: 1, distanceWeighted: false, prior: "class" as const };
    const r = recommend({ features: query(1000), available: ALL, organization: history, public: [], tuning: base })!;
    expect(r.basis).toBe("organization");
    expect(r.evidence).toEqual({ comparisons: 4, similar_problems: ["cmp_1", "cmp_4", "cmp_3", "cmp_2"] });
    // In the neighbours' order (nearest first), as the recommender sums them.
    const scip = shiftedGeometricMean([0.5, 0.6, 60, 0.4]);
    const highs = shiftedGeometricMean([5, 6, 4, 8]);
    expect(scip).toBeLessThan(highs);
    expect(scip).toBeGreaterThan(shiftedGeometricMean([0.5, 0.4, 5, 0.6]));
    // One of SCIP's four ran out of time: too noisy to leave HiGHS, the default, with the stated margin.
    expect(r.solver).toBe("highs");
    expect(r.reason).toMatch(
      /^Kept HiGHS, the default for LP, for lack of clear evidence: on the 4 most similar models you compared \(LP, 10\^2–10\^4 rows\) SCIP was faster on 3 of 4/,
    );
    expect(r.ranking.slice(0, 2)).toEqual([
      { solver: "highs", expected_seconds: highs, fastest_on: 1, runs: 4 },
      { solver: "scip", expected_seconds: scip, fastest_on: 3, runs: 4 },
    ]);
    // The solvers never compared follow, in the default rule's order.
    expect(r.ranking.slice(2).map((e) => [e.solver, e.expected_seconds])).toEqual([
      ["cbc", null],
      ["jaos", null],
      ["glpk", null],
    ]);
    // Without a margin the service's guard still keeps HiGHS: SCIP did not answer one of the four, HiGHS answered all.
    const unguarded = { failurePrior: null, unseenFailures: null };
    const guarded = recommend({ features: query(1000), available: ALL, organization: history, public: [], tuning: { ...base, confidence: 0 } })!;
    expect(guarded.solver).toBe("highs");
    expect(guarded.reason).toMatch(
      /^Kept HiGHS, the default for LP: .* SCIP was faster on 3 of 4 .* but did not answer 1 of them right within its limit \(HiGHS: none\)\.$/,
    );
    // Without a margin or the guard it follows the expected times.
    const bold = recommend({ features: query(1000), available: ALL, organization: history, public: [], tuning: { ...base, confidence: 0, ...unguarded } })!;
    expect(bold.solver).toBe("scip");
    expect(bold.ranking.slice(0, 2).map((e) => e.solver)).toEqual(["scip", "highs"]);
    expect(bold.reason).toMatch(
      new RegExp(
        `^SCIP was fastest on 3 of the 4 most similar models you compared \\(LP, 10\\^2–10\\^4 rows\\); expected ${Number(scip.toPrecision(2))} s vs ${Number(highs.toPrecision(2))} s for HiGHS, clearly faster than HiGHS`,
      ),
    );
  });

  it("is deterministic: the same history in any order gives the same answer", () => {
    const history = Array.from({ length: 20 }, (_, i) => lp(`cmp_${i}`, 500 + 50 * (i % 5), { highs: 1 + (i % 3), cbc: 1 + (i % 4), scip: 2 }));
    const once = recommend({ features: query(600), available: ALL, organization: history, public: [] });
    const shuffled = [...history].reverse().sort((a, b) => (a.id.length % 2) - (b.id.length % 2));
    expect(recommend({ features: query(600), available: ALL, organization: shuffled, public: [] })).toEqual(once);
    expect(once!.evidence.similar_problems).toHaveLength(K_NEAREST);
  });

  it("breaks ties by the default rule's order", () => {
    const history = [1, 2, 3].map((i) => lp(`cmp_${i}`, 100, { cbc: 1, highs: 1 }));
    expect(recommend({ features: query(100), available: ALL, organization: history, public: [] })!.solver).toBe("highs");
  });

  it("compares within the class and leaves out solvers that are unavailable", () => {
    const history = [1, 2, 3].map((i) => lp(`cmp_${i}`, 100, { cbc: 0.1, highs: 5 }, "MILP"));
    expect(recommend({ features: query(100, "MILP"), available: ALL, organization: history, public: [] })!.solver).toBe("cbc");
    expect(recommend({ features: query(100, "MILP"), available: new Set(["highs", "scip"]), organization: history, public: [] })!.solver).toBe("highs");
    // An LP of that size has no MILP history to judge by.
    expect(recommend({ features: query(100), available: ALL, organization: history, public: [] })!.basis).toBe("default_rule");
  });

  it("falls back to today's rule with fewer than the minimum of similar problems, and says so", () => {
    const history = [lp("cmp_1", 1000, { scip: 0.1, highs: 9 }), lp("cmp_2", 1000, { scip: 0.1, highs: 9 }), lp("far", 10, { scip: 0.1, highs: 9 })];
    expect(MIN_SIMILAR).toBe(3);
    const r = recommend({ features: query(1000), available: ALL, organization: history, public: [] })!;
    expect(r.solver).toBe(pickAuto("LP", ALL));
    expect(r.basis).toBe("default_rule");
    expect(r.reason).toBe(
      "No 3 LP models like this one in your comparisons or the public benchmark yet (2 of yours, 0 public within reach): HiGHS by the default rule for LP.",
    );
    expect(r.ranking.every((e) => e.expected_seconds === null)).toBe(true);
  });

  it("judges by the public benchmark where the organization has no similar problems", () => {
    const publicTable = [1, 2, 3].map((i) => ({ ...lp(`inst${i}.mps`, 1000, { cbc: 0.2, highs: 4 }), source: "public" as const }));
    const r = recommend({ features: query(1000), available: ALL, organization: [lp("cmp_1", 1000, { highs: 1 })], public: publicTable })!;
    expect(r.basis).toBe("public");
    expect(r.solver).toBe("cbc");
    expect(r.evidence).toEqual({ comparisons: 1, similar_problems: ["inst1.mps", "inst2.mps", "inst3.mps"] });
    expect(r.reason).toMatch(/^CBC was fastest on 3 of the 3 most similar models of the public benchmark \(LP, /);
  });

  it("answers nothing when no available solver can run the class", () => {
    expect(recommend({ features: query(10, "MILP"), available: new Set(["nothing"]), organization: [], public: [] })).toBeNull();
    expect(candidatesInRuleOrder("QP", ALL)).toEqual(["highs", "scip"]);
  });
});

describe("a comparison as an observation", () => {
  const base = {
    id: "cmp_a",
    problem_class: "MILP",
    variable_count: 100,
    constraint_count: 50,
    settings: { time_limit_seconds: 30 },
    agreement: { disagreeing_solvers: ["glpk"] },
  };

  it("keeps the rows that ran, solved only with an undisputed proven verdict", () => {
    const o = observationOfComparison({
      ...base,
      results: [
        { solver_name: "highs", status: "completed", solver_status: "optimal", solver_time_seconds: 1 },
        { solver_name: "cbc", status: "completed", solver_status: "time_limit", solver_time_seconds: 30 },
        { solver_name: "glpk", status: "completed", solver_status: "infeasible", solver_time_seconds: 2 },
        { solver_name: "scip", status: "failed", solver_status: null, solver_time_seconds: null },
        { solver_name: "jaos", status: "completed", solver_status: "unsupported", solver_time_seconds: null },
      ],
    })!;
    expect(o.runs).toEqual([
      { solver: "highs", seconds: 1, solved: true, time_limit_seconds: 30 },
      { solver: "cbc", seconds: 30, solved: false, time_limit_seconds: 30 },
      { solver: "glpk", seconds: 2, solved: false, time_limit_seconds: 30 },
    ]);
  });

  it("is nothing without a compiled problem or a row that ran", () => {
    expect(observationOfComparison({ ...base, problem_class: null, results: [] })).toBeNull();
    expect(
      observationOfComparison({ ...base, results: [{ solver_name: "highs", status: "cancelled", solver_status: null, solver_time_seconds: null }] }),
    ).toBeNull();
  });
});
