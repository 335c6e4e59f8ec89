import { describe, expect, it } from "vitest";
import { IncumbentClient } from "../../../../../clients/typescript/src/client.js";
import type { Problem } from "../../../../../clients/typescript/src/types.js";
import { RecommendationSchema } from "../../../../../functions/core/solvers/recommendation/schemas.js";

const PROBLEM: Problem = {
  name: "tiny",
  sense: "minimize",
  variables: [{ name: "x", lb: 0, ub: 1, type: "binary" }],
  objective: { constant: 0, terms: [{ var: "x", coef: 1 }] },
  constraints: [{ name: "c", terms: [{ var: "x", coef: 1 }], lb: 1, ub: null }],
};

const ANSWER = RecommendationSchema.parse({
  solver: "highs",
  reason:
    "No 3 MILP models like this one in your comparisons or the public benchmark yet (0 of yours, 0 public within reach): HiGHS by the default rule for MILP.",
  basis: "default_rule",
  evidence: { comparisons: 0, similar_problems: [] },
  ranking: [{ solver: "highs", expected_seconds: null, fastest_on: 0, runs: 0 }],
});

describe("the client's recommendationFor", () => {
  it("posts the problem to /api/v2/solvers/recommendation and answers the ranking", async () => {
    const seen: { method: string; path: string; body: unknown; auth: string | null }[] = [];
    const client = new IncumbentClient({
      baseUrl: "http://service.test",
      credential: "inc_key_test",
      fetch: async (request) => {
        seen.push({ method: request.method, path: new URL(request.url).pathname, body: await request.json(), auth: request.headers.get("authorization") });
        return new Response(JSON.stringify(ANSWER), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    expect(await client.recommendationFor(PROBLEM)).toEqual(ANSWER);
    expect(seen).toEqual([{ method: "POST", path: "/api/v2/solvers/recommendation", body: { problem: PROBLEM }, auth: "Bearer inc_key_test" }]);
  });

  it("sends a file as multipart to /api/v2/solvers/recommendation/import", async () => {
    const seen: { method: string; path: string; file: string; name: string; format: unknown }[] = [];
    const client = new IncumbentClient({
      baseUrl: "http://service.test",
      credential: "inc_key_test",
      fetch: async (request) => {
        const form = await request.formData();
        const file = form.get("file") as File;
        seen.push({ method: request.method, path: new URL(request.url).pathname, file: await file.text(), name: file.name, format: form.get("format") });
        return new Response(JSON.stringify(ANSWER), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    expect(await client.recommendationForFile({ content: "NAME t\nENDATA\n", filename: "t.mps", format: "mps" })).toEqual(ANSWER);
    expect(seen).toEqual([{ method: "POST", path: "/api/v2/solvers/recommendation/import", file: "NAME t\nENDATA\n", name: "t.mps", format: "mps" }]);
  });
});
