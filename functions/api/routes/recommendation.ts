import type { Hono } from "hono";
import { AppError } from "../../core/errors.js";
import { RecommendationQuerySchema, RecommendationSchema } from "../../core/solvers/recommendation/schemas.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";

/** GET /api/v2/solvers/recommendation: what `auto` would run for a problem of these stats, and why (issue 29). */
export function registerRecommendationRoute(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "recommendations">): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/recommendation",
      operationId: "solverRecommendation",
      summary: "Which solver `auto` would pick for a problem, with expected times and the evidence",
      description:
        "Give the problem's stats (as an import preview or a solve reports them). The ranking comes from your organization's finished comparisons and matrix rows of similar problems, else from the public benchmark table shipped with the service, else from the default rule.",
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["no_solver_can_run_this_model"],
      query: RecommendationQuerySchema,
      responses: { 200: { description: "The solver auto would pick, why, and every candidate ranked.", schema: RecommendationSchema } },
    },
    async (c, input) => {
      const q = input.query;
      const r = await deps.recommendations.recommend(input.principal.orgId, {
        problem_class: q.class,
        variable_count: q.variables,
        constraint_count: q.constraints,
        nonzero_count: q.nonzeros ?? null,
        integer_count: q.integer_variables ?? null,
      });
      if (!r) throw new AppError("no_solver_can_run_this_model", `No available solver can run a ${q.class} problem.`, { reasons: { auto: "not_available" } });
      return c.json({ solver: r.solver, reason: r.reason, basis: r.basis, evidence: r.evidence, ranking: r.ranking });
    },
  );
}
