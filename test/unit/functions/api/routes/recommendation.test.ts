import { describe, expect, it } from "vitest";
import type { Observation } from "../../../../../functions/core/solvers/recommendation/observations.js";
import { featuresOf } from "../../../../../functions/core/solvers/recommendation/features.js";
import { featuresOfProblem } from "../../../../../functions/core/solvers/recommendation/live.js";
import { recommend } from "../../../../../functions/core/solvers/recommendation/recommender.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { RecommendationSchema } from "../../../../../functions/core/solvers/recommendation/schemas.js";
import { SolverRecommendations } from "../../../../../functions/core/solvers/recommendation/service.js";
import { gzipSync } from "node:zlib";
import { as, fakeApp } from "../../../../support/fake-api.js";
import { instanceBytes, readInstance } from "../../../../support/manifest.js";

const past = (id: string, rows: number): Observation => ({
  id,
  source: "organization",
  features: featuresOf({ problem_class: "MILP", variable_count: rows, constraint_count: rows }),
  runs: [
    { solver: "highs", seconds: 3, solved: true, time_limit_seconds: 60 },
    { solver: "cbc", seconds: 0.5, solved: true, time_limit_seconds: 60 },
  ],
});

function app(history: Observation[], available = ["highs", "cbc", "scip"], env: Record<string, string> = {}) {
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
  return { app: fakeApp({ recommendations }, env).app, asked };
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

/** A MILP of 40 binaries and 20 rows, one of them a big-M row spanning seven decades. */
function milp(): Problem {
  const variables = Array.from({ length: 40 }, (_, i) => ({ name: `x${i}`, lb: 0, ub: 1, type: "binary" as const }));
  const constraints = Array.from({ length: 20 }, (_, r) => ({
    name: `r${r}`,
    terms: [
      { var: `x${r}`, coef: 1 },
      { var: `x${r + 20}`, coef: r === 0 ? 1e7 : 2 },
    ],
    lb: null,
    ub: r === 0 ? 1e7 : 2,
  }));
  return {
    name: "m",
    sense: "minimize",
    variables,
    objective: { constant: 0, terms: variables.map((v, i) => ({ var: v.name, coef: 1 + (i % 5) })) },
    constraints,
  };
}

const post = (body: unknown, role: "viewer" | "solver" = "viewer") => {
  const init = as(role) as { headers: Record<string, string> };
  return { method: "POST", headers: { ...init.headers, "content-type": "application/json" }, body: JSON.stringify(body) };
};

describe("POST /api/v2/solvers/recommendation: the same ranking for a problem itself", () => {
  const problem = milp();
  const like = featuresOfProblem(problem);
  // Similar past problems of the same sizes and numerics, where CBC was steadily faster.
  const history: Observation[] = ["cmp_1", "cmp_2", "cmp_3", "cmp_4"].map((id, i) => ({
    id,
    source: "organization",
    features: like,
    runs: [
      { solver: "highs", seconds: 4 + i, solved: true, time_limit_seconds: 60 },
      { solver: "cbc", seconds: 0.4 + i / 10, solved: true, time_limit_seconds: 60 },
    ],
  }));

  it("answers what auto would choose solving it: recommend() on the problem's features", async () => {
    const res = await app(history).app.request("/api/v2/solvers/recommendation", post({ problem }));
    expect(res.status, await res.clone().text()).toBe(200);
    const body = RecommendationSchema.parse(await res.json());
    const expected = recommend({ features: like, available: new Set(["highs", "cbc", "scip"]), organization: history, public: [] })!;
    expect(body).toEqual({ solver: expected.solver, reason: expected.reason, basis: expected.basis, evidence: expected.evidence, ranking: expected.ranking });
    expect(body.solver).toBe("cbc");
    expect(like.matrix_range_decades).toBeCloseTo(7, 9);
  });

  it("refuses a body that is not a problem, a problem past the size caps, and needs a credential", async () => {
    const w = app(history);
    expect((await w.app.request("/api/v2/solvers/recommendation", post({ problem: { variables: [] } }))).status).toBe(422);
    const unauthenticated = await w.app.request("/api/v2/solvers/recommendation", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ problem }),
    });
    expect(unauthenticated.status).toBe(401);
    const capped = await app(history, undefined, { INSTANCE_MAX_VARIABLES: "10" }).app.request("/api/v2/solvers/recommendation", post({ problem }));
    expect(capped.status).toBe(403);
    expect(await capped.json()).toMatchObject({ error: "variable_limit_exceeded", limit: 10 });
  });
});

describe("POST /api/v2/solvers/recommendation/import: the same ranking for a problem file", () => {
  it("reads the file as the import preview does and answers what POST with its problem answers", async () => {
    const bytes = instanceBytes("afiro.mps");
    // Previewed as the bytes on disk; sent below gzip-compressed, as a user's afiro.mps.gz.
    const previewed = await fakeApp().app.request(
      "/api/v2/solve/import/preview",
      as("viewer", { method: "POST", headers: { "content-type": "text/plain" }, body: bytes }),
    );
    const problem = ((await previewed.json()) as { problem: Problem }).problem;
    const like = featuresOfProblem(problem);
    const history: Observation[] = ["cmp_1", "cmp_2", "cmp_3"].map((id, i) => ({
      id,
      source: "organization",
      features: like,
      runs: [
        { solver: "highs", seconds: 2 + i, solved: true, time_limit_seconds: 60 },
        { solver: "cbc", seconds: 0.2, solved: true, time_limit_seconds: 60 },
      ],
    }));
    const w = app(history);
    const byProblem = RecommendationSchema.parse(await (await w.app.request("/api/v2/solvers/recommendation", post({ problem }))).json());
    const form = new FormData();
    form.set("file", new Blob([gzipSync(readInstance("afiro.mps"))]), "afiro.mps.gz");
    const byFile = await w.app.request("/api/v2/solvers/recommendation/import", as("viewer", { method: "POST", body: form }));
    expect(byFile.status, await byFile.clone().text()).toBe(200);
    expect(RecommendationSchema.parse(await byFile.json())).toEqual(byProblem);
    expect(byProblem.evidence.similar_problems).toEqual(["cmp_1", "cmp_2", "cmp_3"]);
  });

  it("refuses an empty file and one that does not read", async () => {
    const w = app([]);
    const empty = await w.app.request(
      "/api/v2/solvers/recommendation/import",
      as("viewer", { method: "POST", headers: { "content-type": "text/plain" }, body: " " }),
    );
    expect(empty.status).toBe(422);
    const garbled = await w.app.request(
      "/api/v2/solvers/recommendation/import?format=mps",
      as("viewer", { method: "POST", headers: { "content-type": "text/plain" }, body: "ROWS\n N obj\nCOLUMNS\n x obj nonsense\n" }),
    );
    expect(garbled.status).toBe(422);
    expect(((await garbled.json()) as { error: string }).error).toBe("invalid_problem_file");
  });
});
