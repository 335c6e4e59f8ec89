import { describe, expect, it } from "vitest";
import { admittedExecutionRecord } from "../../../../../functions/core/executions/records.js";
import { ExecutionService } from "../../../../../functions/core/executions/service.js";
import { executionView } from "../../../../../functions/core/executions/store.js";
import type { ProblemStats } from "../../../../../functions/core/problem/schema.js";
import { featuresOf, sizesOfStats } from "../../../../../functions/core/solvers/recommendation/features.js";
import type { Observation } from "../../../../../functions/core/solvers/recommendation/observations.js";
import type { Recommendation } from "../../../../../functions/core/solvers/recommendation/recommender.js";
import { SolverRecommendations } from "../../../../../functions/core/solvers/recommendation/service.js";

const STATS: ProblemStats = {
  problem_class: "MILP",
  variable_count: 120,
  constraint_count: 40,
  integer_count: 20,
  binary_count: 10,
  nonzero_count: 400,
  quadratic_term_count: 0,
};

const RECOMMENDED: Recommendation = {
  solver: "cbc",
  reason: "CBC was fastest on 3 of the 3 most similar models you compared (MILP, 10^1–10^2 rows); expected 0.2 s vs 1 s for HiGHS.",
  basis: "organization",
  ranking: [],
  evidence: { comparisons: 5, similar_problems: ["cmp_1", "cmp_2", "cmp_3"] },
};

function service(recommendations?: { recommend: (...args: unknown[]) => Promise<Recommendation | null> }) {
  const asked: unknown[][] = [];
  const executions = new ExecutionService({
    clock: { now: () => 0 },
    inventory: { available: async () => new Set(["highs", "cbc", "scip"]) },
    ...(recommendations
      ? {
          recommendations: {
            recommend: (...args: unknown[]) => {
              asked.push(args);
              return recommendations.recommend(...args);
            },
          },
        }
      : {}),
  } as never);
  return { executions, asked };
}

describe("ExecutionService.chooseSolver with auto", () => {
  it("runs the recommended solver and keeps why, asking with the organization and the problem's sizes", async () => {
    const s = service({ recommend: async () => RECOMMENDED });
    const plan = await s.executions.chooseSolver("auto", STATS, "org_a");
    expect(plan).toEqual({ solver: "cbc", auto_choice: { solver: "cbc", reason: RECOMMENDED.reason, basis: "organization", evidence: RECOMMENDED.evidence } });
    expect(s.asked[0]!.slice(0, 2)).toEqual([
      "org_a",
      { problem_class: "MILP", variable_count: 120, constraint_count: 40, nonzero_count: 400, integer_count: 30 },
    ]);
  });

  it("goes on by today's rule, saying so, when the history cannot be read", async () => {
    const s = service({
      recommend: async () => {
        throw new Error("table unreachable");
      },
    });
    const plan = await s.executions.chooseSolver("auto", STATS, "org_a");
    expect(plan.solver).toBe("highs");
    expect(plan.auto_choice).toEqual({
      solver: "highs",
      reason: "Your comparisons could not be read just now: HiGHS by the default rule for MILP.",
      basis: "default_rule",
      evidence: { comparisons: 0, similar_problems: [] },
    });
  });

  it("leaves a named solver alone, and without a recommender keeps today's rule", async () => {
    const s = service({ recommend: async () => RECOMMENDED });
    expect(await s.executions.chooseSolver("scip", STATS, "org_a")).toEqual({ solver: "scip" });
    expect(s.asked).toEqual([]);
    expect(await service().executions.chooseSolver("auto", STATS, "org_a")).toEqual({ solver: "highs" });
  });

  it("with the service's own recommender, says in words when the guard kept the default", async () => {
    // Three comparisons like this problem (the service's k): CBC a tenth of HiGHS's time on two, and out of its
    // shorter 10 s limit on the third, where HiGHS took 20 s. The paired times alone say switch; the guard does not.
    const features = featuresOf(sizesOfStats(STATS));
    const run = (solver: string, seconds: number, solved = true, limit = 30) => ({ solver, seconds, solved, time_limit_seconds: limit });
    const history: Observation[] = [20, 15, 20].map((highs, i) => ({
      id: `cmp_${i}`,
      source: "organization",
      features,
      runs: [run("highs", highs), i === 2 ? run("cbc", 10, false, 10) : run("cbc", highs / 10)],
    }));
    const recommendations = new SolverRecommendations({
      clock: { now: () => 0 },
      inventory: { available: async () => new Set(["highs", "cbc"]) },
      organization: { of: async () => history },
      publicObservations: [],
    });
    const plan = await service(recommendations as never).executions.chooseSolver("auto", STATS, "org_a");
    expect(plan.solver).toBe("highs");
    expect(plan.auto_choice?.reason).toMatch(
      /^Kept HiGHS, the default for MILP: on the 3 most similar models you compared \(MILP, .*\) CBC was faster on 3 of 3 \(about [\d.]+× its time\) but did not answer 1 of them right within its limit \(HiGHS: none\)\.$/,
    );
  });

  it("keeps the choice on the execution record and shows it in the view", async () => {
    const plan = await service({ recommend: async () => RECOMMENDED }).executions.chooseSolver("auto", STATS, "org_a");
    const record = admittedExecutionRecord(
      {
        id: "exe_1",
        plan: { ...plan, solves: 1 },
        problem: { inline: "{}" },
        stats: STATS,
        settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
        creditsEach: 1,
      } as never,
      { orgId: "org_a", createdBy: "usr_1", origin: { kind: "solve", id: null }, notify: false, solverRequested: "auto", problemName: "p", nowMs: 0 },
    );
    expect(record.auto_choice).toEqual(plan.auto_choice);
    expect(executionView(record, null).auto_choice).toEqual(plan.auto_choice);
    expect(executionView({ ...record, auto_choice: undefined }, null).auto_choice).toBeNull();
  });
});
