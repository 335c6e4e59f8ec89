import type { Hono } from "hono";
import { z } from "zod";
import type { Principal } from "../../core/auth/service.js";
import {
  CompareRequestSchema,
  ComparisonDetailSchema,
  ComparisonListItemSchema,
  ListQuerySchema,
  MatrixDetailSchema,
  MatrixListItemSchema,
  MatrixListQuerySchema,
  MatrixRequestSchema,
} from "../../core/comparisons/schemas.js";
import type { ApiEnv } from "../http/context.js";
import { requirePrincipal, requireRole, route } from "../http/route.js";

const tag = "Solver comparison";

const solverRole = (input: { principal: Principal | null }): Principal => requireRole(input, "solver", "Comparing solvers needs the solver role.");

const launchErrors = {
  403: { description: "variable_limit_exceeded, daily_solve_quota_exceeded (the solves counted before the refusal stay spent) or insufficient_credits." },
  404: { description: "not_found: project, version or dataset." },
  503: { description: "enqueue_failed: the broker refused the job; the comparison exists and records it. Retry shortly." },
};

export function registerCompareRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare/batches",
      operationId: "compareSolversOnDatasets",
      summary: "Queue a matrix: one comparison per dataset of a JModel project",
      tag,
      access: "user",
      description:
        "Compiles only the first dataset at launch (422 dataset_did_not_compile with position; 422 project_has_no_jmodel_source). Quota cost = datasets × solvers that can run.",
      body: MatrixRequestSchema,
      responses: {
        202: { description: "The matrix, every row pending.", schema: MatrixDetailSchema },
        422: { description: "Validation, project_has_no_jmodel_source, dataset_did_not_compile or no_solver_can_run_this_model." },
        ...launchErrors,
      },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.launchMatrix(solverRole(input), input.body), 202),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare/batches",
      operationId: "listComparisonMatrices",
      summary: "Matrices, newest first",
      tag,
      access: "user",
      query: MatrixListQuerySchema,
      responses: { 200: { description: "Matrices and their total.", schema: z.object({ batches: z.array(MatrixListItemSchema), total: z.number().int() }) } },
    },
    async (c, input) =>
      c.json(await c.get("deps").comparisons.listMatrices(requirePrincipal(input), input.query.project_id, input.query.limit, input.query.offset)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare/batches/:batch_id",
      operationId: "getSolverComparisonMatrix",
      summary: "One matrix in whatever state (poll this)",
      tag,
      access: "user",
      params: z.object({ batch_id: z.string().min(1) }),
      responses: { 200: { description: "The matrix; status derived from its rows.", schema: MatrixDetailSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.getMatrix(requirePrincipal(input), input.params.batch_id)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare/batches/:batch_id/cancel",
      operationId: "cancelComparisonMatrix",
      summary: "Stop every row not finished",
      tag,
      access: "user",
      params: z.object({ batch_id: z.string().min(1) }),
      responses: { 200: { description: "The matrix.", schema: MatrixDetailSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.cancelMatrix(solverRole(input), input.params.batch_id)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare",
      operationId: "compareSolvers",
      summary: "Queue one problem against several solvers",
      tag,
      access: "user",
      description:
        "Exactly one of problem and project_id. Solvers run one after another on one machine with identical settings. A solver that cannot express the model gets an unsupported row and costs no quota.",
      body: CompareRequestSchema,
      responses: {
        202: { description: "The table, shaped: every row pending with solver_status null (unsupported rows already final).", schema: ComparisonDetailSchema },
        422: { description: "Validation, no_solver_can_run_this_model (reasons per solver) or model_cannot_be_compared (up to three problems)." },
        ...launchErrors,
      },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.launch(solverRole(input), input.body), 202),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare",
      operationId: "listSolverComparisons",
      summary: "The organization's comparisons, newest first",
      tag,
      access: "user",
      query: ListQuerySchema,
      responses: {
        200: { description: "Comparisons and their total.", schema: z.object({ comparisons: z.array(ComparisonListItemSchema), total: z.number().int() }) },
      },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.list(requirePrincipal(input), input.query.limit, input.query.offset)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare/:comparison_id",
      operationId: "getSolverComparison",
      summary: "One comparison in whatever state (poll this)",
      tag,
      access: "user",
      params: z.object({ comparison_id: z.string().min(1) }),
      responses: { 200: { description: "The table, rows filled in as solvers finish.", schema: ComparisonDetailSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.get(requirePrincipal(input), input.params.comparison_id)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare/:comparison_id/cancel",
      operationId: "cancelSolverComparison",
      summary: "Stop before the next solver starts",
      tag,
      access: "user",
      description: "Unstarted rows become cancelled; the solve in flight finishes; nothing is refunded. A finished comparison is returned unchanged.",
      params: z.object({ comparison_id: z.string().min(1) }),
      responses: { 200: { description: "The table.", schema: ComparisonDetailSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").comparisons.cancel(solverRole(input), input.params.comparison_id)),
  );
}
