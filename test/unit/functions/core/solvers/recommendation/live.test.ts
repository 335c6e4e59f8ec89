import { describe, expect, it } from "vitest";
import { ExecutionService } from "../../../../../../functions/core/executions/service.js";
import { numericsAreRisky, numericsOf } from "../../../../../../functions/core/problem/numerics.js";
import { type Problem, problemStats } from "../../../../../../functions/core/problem/schema.js";
import { serializeProblem } from "../../../../../../functions/core/problem/serialized.js";
import { featuresOf, type ProblemFeatures, sizesOfStats } from "../../../../../../functions/core/solvers/recommendation/features.js";
import { describeProblem, featuresOfProblem } from "../../../../../../functions/core/solvers/recommendation/live.js";
import type { Observation } from "../../../../../../functions/core/solvers/recommendation/observations.js";
import { recommend } from "../../../../../../functions/core/solvers/recommendation/recommender.js";
import { SolverRecommendations } from "../../../../../../functions/core/solvers/recommendation/service.js";
import { structureCountsOf } from "../../../../../../functions/core/solvers/recommendation/structure.js";
import type { SolverName } from "../../../../../../functions/core/solvers/types.js";

const AVAILABLE = new Set<SolverName>(["highs", "cbc", "scip"]);

/**
 * A MILP with set-partitioning rows (each group of binaries picks one) and big-M rows (y ≤ 10^7·x): its
 * matrix spans seven decades, which the verification gate calls risky.
 */
function riskyPartitioning(groups = 12, perGroup = 4): Problem {
  const variables: Problem["variables"] = [];
  const constraints: Problem["constraints"] = [];
  const objective: Problem["objective"] = { constant: 0, terms: [] };
  for (let g = 0; g < groups; g++) {
    const xs = Array.from({ length: perGroup }, (_, i) => `x_${g}_${i}`);
    for (const [i, name] of xs.entries()) {
      variables.push({ name, lb: 0, ub: 1, type: "binary" });
      objective.terms.push({ var: name, coef: 1 + ((g + i) % 9) });
    }
    constraints.push({ name: `pick_${g}`, terms: xs.map((v) => ({ var: v, coef: 1 })), lb: 1, ub: 1 });
    const y = `y_${g}`;
    variables.push({ name: y, lb: 0, ub: null, type: "continuous" });
    objective.terms.push({ var: y, coef: -1 });
    constraints.push({
      name: `bigm_${g}`,
      terms: [
        { var: y, coef: 1 },
        { var: xs[0]!, coef: -1e7 },
      ],
      lb: null,
      ub: 0,
    });
  }
  return { name: "risky-partitioning", sense: "minimize", variables, objective, constraints };
}

/** The features as the bench computes an instance's (test/bench/auto.ts measure). */
function benchFeatures(problem: Problem): ProblemFeatures {
  return featuresOf({ ...sizesOfStats(problemStats(problem)), structure: structureCountsOf(problem) }, numericsOf(problem));
}

const run = (solver: string, seconds: number) => ({ solver, seconds, solved: true, time_limit_seconds: 60 });

/**
 * A history where the coefficient range decides: five past problems of the same sizes with a matrix as wide as
 * this one's, where CBC was steadily faster, and three tame ones (a matrix of one decade) where HiGHS was,
 * with ids sorting first, so a choice blind to the numerics sees the tame ones as near as the others.
 */
function history(like: ProblemFeatures): Observation[] {
  const wide = Array.from({ length: 5 }, (_, i) => ({
    id: `cmp_wide_${i}`,
    source: "organization" as const,
    features: like,
    runs: [run("highs", 9 + i), run("cbc", 1 + i / 10), run("scip", 12)],
  }));
  const tame = Array.from({ length: 3 }, (_, i) => ({
    id: `cmp_a_tame_${i}`,
    source: "organization" as const,
    features: { ...like, matrix_range_decades: 0 },
    runs: [run("highs", 1), run("cbc", 9 + i), run("scip", 12)],
  }));
  return [...tame, ...wide];
}

function executionsWith(observations: Observation[]) {
  const recommendations = new SolverRecommendations({
    clock: { now: () => 0 } as never,
    inventory: { available: async () => AVAILABLE },
    organization: { of: async () => observations },
    publicObservations: [],
  });
  return new ExecutionService({ clock: { now: () => 0 }, inventory: { available: async () => AVAILABLE }, recommendations } as never);
}

describe("auto's live choice", () => {
  const problem = riskyPartitioning();
  const stats = problemStats(problem);
  const features = benchFeatures(problem);
  const observations = history(features);
  const expected = recommend({ features, available: AVAILABLE, organization: observations, public: [] })!;

  it("sees the problem's numerics: the fixture is risky and has set-partitioning rows", () => {
    expect(numericsAreRisky(numericsOf(problem))).toBe(true);
    expect(structureCountsOf(problem).set_partitioning).toBe(12);
    expect(features.matrix_range_decades).toBeCloseTo(7, 9);
  });

  it("is the bench's choice, recommend(featuresOf(…)), for a problem in hand and one built off the event loop", async () => {
    const executions = executionsWith(observations);
    for (const given of [problem, serializeProblem(problem)]) {
      const plan = await executions.chooseSolver("auto", stats, "org_a", given);
      expect(plan.solver).toBe(expected.solver);
      expect(plan.auto_choice).toEqual({ solver: expected.solver, reason: expected.reason, basis: expected.basis, evidence: expected.evidence });
    }
    // The numerics decided: the nearest five are the wide ones, where CBC was clearly faster.
    expect(expected.solver).toBe("cbc");
    expect(expected.evidence.similar_problems.every((id) => id.startsWith("cmp_wide_"))).toBe(true);
  });

  it("differs from the stats-only choice this history would give (the case the live path missed)", async () => {
    const statsOnly = await executionsWith(observations).chooseSolver("auto", stats, "org_a");
    expect(statsOnly.solver).not.toBe(expected.solver);
  });

  it("describes a serialized problem as the problem itself, without parsing its bytes", () => {
    const serialized = serializeProblem(problem);
    const bytesUnread = { ...serialized, json: new Uint8Array() };
    expect(describeProblem(bytesUnread, undefined, { structure: true })).toEqual(describeProblem(problem, undefined, { structure: true }));
    expect(featuresOfProblem(bytesUnread, undefined, { structure: true })).toEqual(features);
    expect(featuresOfProblem(problem, undefined, { structure: true })).toEqual(features);
  });

  it("counts the structure only when the recommender reads it", () => {
    expect(describeProblem(problem).sizes.structure).toBeNull();
    const counted = describeProblem(problem, undefined, { structure: true }).sizes.structure!;
    expect(counted).toMatchObject({ set_partitioning: 12, variable_bound: 12, rows: 24 });
    expect(featuresOfProblem(problem, undefined, { structure: true }).set_share).toBeCloseTo(0.5, 9);
  });
});
