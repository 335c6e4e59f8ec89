import type { Hono } from "hono";
import { AppError } from "../../core/errors.js";
import { assertWithinCaps, modelCaps } from "../../core/limits/model-caps.js";
import { problemStats } from "../../core/problem/schema.js";
import type { Recommendation } from "../../core/solvers/recommendation/recommender.js";
import { describeProblem } from "../../core/solvers/recommendation/live.js";
import { RecommendationBodySchema, RecommendationQuerySchema, RecommendationSchema } from "../../core/solvers/recommendation/schemas.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { FILE_UPLOAD_BODY, FILE_UPLOAD_ERRORS, readUploadedModel } from "./import.js";

const DESCRIPTION =
  "The ranking comes from your organization's finished comparisons and matrix rows of similar problems, else from the public benchmark table shipped with the service, else from the default rule.";

function answer(r: Recommendation | null, cls: string) {
  if (!r) throw new AppError("no_solver_can_run_this_model", `No available solver can run a ${cls} problem.`, { reasons: { auto: "not_available" } });
  return { solver: r.solver, reason: r.reason, basis: r.basis, evidence: r.evidence, ranking: r.ranking };
}

/**
 * What `auto` would run, and why (issue 29): GET for a problem of these stats, POST for the problem itself,
 * POST …/import for a problem file (read as the import preview reads it, in the model thread).
 */
export function registerRecommendationRoute(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "recommendations" | "config" | "modelWork">): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/recommendation",
      operationId: "solverRecommendation",
      summary: "Which solver `auto` would pick for a problem, with expected times and the evidence",
      description: `Give the problem's stats (as an import preview or a solve reports them); POST the problem itself for the choice \`auto\` would make on it (its coefficient ranges too). ${DESCRIPTION}`,
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
      return c.json(answer(r, q.class));
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/recommendation",
      operationId: "solverRecommendationForProblem",
      summary: "Which solver `auto` would pick for this problem, with expected times and the evidence",
      description: `Send the problem as a solve's \`problem\`: the answer is the choice \`auto\` would make solving it now, judged by the same features (sizes, integer share, coefficient ranges). Nothing is solved, stored or charged; the body is held to MAX_REQUEST_BODY_MB and the instance's size caps, and counted as a solve request. ${DESCRIPTION}`,
      tag: "Solve",
      access: "user",
      role: "viewer",
      // Like the solve routes: a problem as large as a solve's is parsed and read here.
      rateClass: "solve",
      errors: ["no_solver_can_run_this_model", "variable_limit_exceeded", "model_size_limit_exceeded"],
      body: RecommendationBodySchema,
      responses: { 200: { description: "The solver auto would pick for this problem, why, and every candidate ranked.", schema: RecommendationSchema } },
    },
    async (c, input) => {
      const { problem } = input.body;
      const stats = problemStats(problem);
      assertWithinCaps(modelCaps(deps.config), stats);
      const { sizes, numerics } = describeProblem(problem, stats);
      const r = await deps.recommendations.recommend(input.principal.orgId, sizes, { numerics });
      return c.json(answer(r, stats.problem_class));
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/recommendation/import",
      operationId: "solverRecommendationForFile",
      summary: "Which solver `auto` would pick for a problem file, with expected times and the evidence",
      description: `The file as POST /api/v2/solve/import/preview takes it (multipart \`file\`, the body itself with \`?format=\` and \`?filename=\`, or JSON \`{content, format, filename}\`), read within the same limits; the answer is what POST /api/v2/solvers/recommendation answers for the problem it holds. Nothing is stored or charged. ${DESCRIPTION}`,
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "solve",
      errors: ["no_solver_can_run_this_model", ...FILE_UPLOAD_ERRORS],
      rawBody: FILE_UPLOAD_BODY,
      responses: { 200: { description: "The solver auto would pick for the file's problem, why, and every candidate ranked.", schema: RecommendationSchema } },
    },
    async (c, input) => {
      // Read off the event loop where there is a model thread; its stats, numerics and structure come back with it.
      const read = await readUploadedModel(c, { deps, kind: "read" });
      if (read.kind !== "compiled") throw new Error("internal: a file read answered without its problem");
      const { sizes, numerics } = describeProblem(read.problem);
      const r = await deps.recommendations.recommend(input.principal.orgId, sizes, { numerics });
      return c.json(answer(r, read.problem.stats.problem_class));
    },
  );
}
