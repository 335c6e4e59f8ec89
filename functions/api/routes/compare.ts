import type { Hono } from "hono";
import { z } from "zod";
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
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { defineRoute, route } from "../http/route.js";
import { BatchIdParams, ComparisonIdParams, launchErrors } from "../http/route-parts.js";

const tag = "Solver comparison";

/** What a launch can answer besides validation: the spec's comparison and matrix errors, and ours. */
const comparisonLaunchErrors = launchErrors({ before: ["not_found"] });

/** The four operations the tool-calling interface also offers (routes/mcp.ts), declared once for both. */
export const compareSolversRoute = defineRoute({
  method: "post",
  path: "/api/v2/solvers/compare",
  operationId: "compareSolvers",
  summary: "Queue one problem against several solvers",
  tag,
  access: "user",
  role: "solver",
  rateClass: "organization",
  errors: [...comparisonLaunchErrors, "model_cannot_be_compared"],
  description:
    "Exactly one of problem and project_id. Solvers run one after another on one machine with identical settings. A solver that cannot express the model gets an unsupported row and costs no quota.",
  body: CompareRequestSchema,
  responses: {
    202: { description: "The table, shaped: every row pending with solver_status null (unsupported rows already final).", schema: ComparisonDetailSchema },
  },
});

export const getSolverComparisonRoute = defineRoute({
  method: "get",
  path: "/api/v2/solvers/compare/:comparison_id",
  operationId: "getSolverComparison",
  summary: "One comparison in whatever state (poll this)",
  tag,
  access: "user",
  role: "viewer",
  rateClass: "organization",
  errors: ["not_found"],
  params: ComparisonIdParams,
  responses: { 200: { description: "The table, rows filled in as solvers finish.", schema: ComparisonDetailSchema } },
});

export const compareSolversOnDatasetsRoute = defineRoute({
  method: "post",
  path: "/api/v2/solvers/compare/batches",
  operationId: "compareSolversOnDatasets",
  summary: "Queue a matrix: one comparison per dataset of a JModel project",
  tag,
  access: "user",
  role: "solver",
  rateClass: "organization",
  errors: [...comparisonLaunchErrors, "project_has_no_jmodel_source", "dataset_did_not_compile"],
  description:
    "Compiles only the first dataset at launch (422 dataset_did_not_compile with position; 422 project_has_no_jmodel_source). Quota cost = datasets × solvers that can run.",
  body: MatrixRequestSchema,
  responses: { 202: { description: "The matrix, every row pending.", schema: MatrixDetailSchema } },
});

export const getSolverComparisonMatrixRoute = defineRoute({
  method: "get",
  path: "/api/v2/solvers/compare/batches/:batch_id",
  operationId: "getSolverComparisonMatrix",
  summary: "One matrix in whatever state (poll this)",
  tag,
  access: "user",
  role: "viewer",
  rateClass: "organization",
  errors: ["not_found"],
  params: BatchIdParams,
  responses: { 200: { description: "The matrix; status derived from its rows.", schema: MatrixDetailSchema } },
});

export function registerCompareRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "comparisons" | "matrices">): void {
  const { comparisons, matrices } = deps;
  route(app, compareSolversOnDatasetsRoute, async (c, { principal, body }) => c.json(await matrices.launch(principal, body), 202));

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare/batches",
      operationId: "listComparisonMatrices",
      summary: "Matrices, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      query: MatrixListQuerySchema,
      responses: { 200: { description: "Matrices and their total.", schema: z.object({ batches: z.array(MatrixListItemSchema), total: z.number().int() }) } },
    },
    async (c, { principal, query }) => c.json(await matrices.list(principal, { projectId: query.project_id, limit: query.limit, offset: query.offset })),
  );

  route(app, getSolverComparisonMatrixRoute, async (c, { principal, params }) => c.json(await matrices.get(principal, params.batch_id)));

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare/batches/:batch_id/cancel",
      operationId: "cancelComparisonMatrix",
      summary: "Stop every row not finished",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: BatchIdParams,
      responses: { 200: { description: "The matrix.", schema: MatrixDetailSchema } },
    },
    async (c, { principal, params }) => c.json(await matrices.cancel(principal, params.batch_id)),
  );

  route(app, compareSolversRoute, async (c, { principal, body }) => c.json(await comparisons.launch(principal, body), 202));

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare",
      operationId: "listSolverComparisons",
      summary: "The organization's comparisons, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      query: ListQuerySchema,
      responses: {
        200: { description: "Comparisons and their total.", schema: z.object({ comparisons: z.array(ComparisonListItemSchema), total: z.number().int() }) },
      },
    },
    async (c, { principal, query }) => c.json(await comparisons.list(principal, query.limit, query.offset)),
  );

  route(app, getSolverComparisonRoute, async (c, { principal, params }) => c.json(await comparisons.get(principal, params.comparison_id)));

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solvers/compare/:comparison_id/cancel",
      operationId: "cancelSolverComparison",
      summary: "Stop before the next solver starts",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      description: "Unstarted rows become cancelled; the solve in flight finishes; nothing is refunded. A finished comparison is returned unchanged.",
      params: ComparisonIdParams,
      responses: { 200: { description: "The table.", schema: ComparisonDetailSchema } },
    },
    async (c, { principal, params }) => c.json(await comparisons.cancel(principal, params.comparison_id)),
  );
}
