import { describe, expect, it } from "vitest";
import type { Observation } from "../../../../../functions/core/solvers/recommendation/observations.js";
import { featuresOf } from "../../../../../functions/core/solvers/recommendation/features.js";
import { RecommendationSchema } from "../../../../../functions/core/solvers/recommendation/schemas.js";
import { SolverRecommendations } from "../../../../../functions/core/solvers/recommendation/service.js";
import { as, fakeApp } from "../../../../support/fake-api.js";

const past = (id: string, rows: number): Observation => ({
  id,
  source: "organization",
  features: featuresOf({ problem_class: "MILP", variable_count: rows, constraint_count: rows }),
  runs: [
    { solver: "highs", seconds: 3, solved: true, time_limit_seconds: 60 },
    { solver: "cbc", seconds: 0.5, solved: true, time_limit_seconds: 60 },
  ],
});

function app(history: Observation[], available = ["highs", "cbc", "scip"]) {
  const asked: string[] = [];
  const recommendations = new SolverRecommendations({
    clock: { now: () => 0 },
    inventory: { available: async () => new Set(available) as never },
    organization: {
      of: async (orgId: string) => {
        asked.push(orgId);
        return history;
      },
    },
    publicObservations: [],
  });
  return { app: fakeApp({ recommendations }).app, asked };
}

describe("GET /api/v2/solvers/recommendation: what auto would pick, before solving", () => {
  it("ranks the available solvers by expected time on the organization's similar comparisons, for a viewer", async () => {
    const w = app([past("cmp_1", 500), past("cmp_2", 600), past("cmp_3", 400), past("cmp_far", 5)]);
    const res = await w.app.request("/api/v2/solvers/recommendation?class=MILP&variables=500&constraints=500&integer_variables=100", as("viewer"));
    expect(res.status).toBe(200);
    const body = RecommendationSchema.parse(await res.json());
    expect(w.asked).toEqual(["org_test"]);
    expect(body.solver).toBe("cbc");
    expect(body.basis).toBe("organization");
    expect(body.evidence).toEqual({ comparisons: 4, similar_problems: ["cmp_1", "cmp_2", "cmp_3"] });
    expect(body.ranking.map((r) => [r.solver, r.runs, r.fastest_on])).toEqual([
      ["cbc", 3, 3],
      ["highs", 3, 0],
      ["scip", 0, 0],
    ]);
    expect(body.reason).toMatch(
      /^CBC was fastest on 3 of the 3 most similar models you compared \(MILP, 10\^2–10\^3 rows\); expected 0\.5 s vs 3 s for HiGHS, clearly faster than HiGHS, the default for MILP \(faster on 3 of 3, about 0\.\d+× its time\)\.$/,
    );
  });

  it("answers today's rule, saying why, without similar comparisons", async () => {
    const res = await app([]).app.request("/api/v2/solvers/recommendation?class=LP&variables=10&constraints=5", as("viewer"));
    const body = RecommendationSchema.parse(await res.json());
    expect(body).toMatchObject({ solver: "highs", basis: "default_rule", evidence: { comparisons: 0, similar_problems: [] } });
    expect(body.reason).toContain("HiGHS by the default rule for LP");
  });

  it("refuses stats it cannot read, and a class no available solver can run", async () => {
    const w = app([], ["cbc"]);
    expect((await w.app.request("/api/v2/solvers/recommendation?class=XP&variables=1&constraints=1", as("viewer"))).status).toBe(422);
    expect((await w.app.request("/api/v2/solvers/recommendation?class=LP&constraints=1", as("viewer"))).status).toBe(422);
    const res = await w.app.request("/api/v2/solvers/recommendation?class=QP&variables=1&constraints=1", as("viewer"));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: "no_solver_can_run_this_model", reasons: { auto: "not_available" } });
  });

  it("needs a credential", async () => {
    expect((await app([]).app.request("/api/v2/solvers/recommendation?class=LP&variables=1&constraints=1")).status).toBe(401);
  });
});
