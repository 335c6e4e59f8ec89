import type { Hono } from "hono";
import { z } from "zod";
import {
  CommitVersionSchema,
  CreateDatasetSchema,
  CreateProjectSchema,
  DatasetSummarySchema,
  DatasetViewSchema,
  ProjectViewSchema,
  UpdateDraftSchema,
  UpdateProjectSchema,
  VersionViewSchema,
} from "../../core/projects/schemas.js";
import { marketplaceModel, marketplaceModels } from "../../core/marketplace/catalog.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { ModelIdParams, ProjectIdParams } from "../http/route-parts.js";

const tag = "Model projects";

/** Writing models needs the solver role; reading them any role. */
export function registerProjectRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "projects">): void {
  const { projects } = deps;
  route(
    app,
    {
      method: "post",
      path: "/api/v2/projects",
      operationId: "createProject",
      summary: "Create a model project (JModel source, or a canonical problem)",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: [],
      body: CreateProjectSchema,
      responses: { 201: { description: "The project.", schema: ProjectViewSchema } },
    },
    async (c, input) => c.json(await projects.create(input.principal, input.body), 201),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/marketplace",
      operationId: "listMarketplace",
      summary: "Ready-made models a project can start from",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: {
        200: {
          description: "The classic models, each with its datasets.",
          schema: z.object({ models: z.array(z.object({ id: z.string(), title: z.string(), summary: z.string(), datasets: z.array(z.string()) })) }),
        },
      },
    },
    (c) => c.json({ models: marketplaceModels().map((m) => ({ id: m.id, title: m.title, summary: m.summary, datasets: m.datasets.map((d) => d.name) })) }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/projects/from-marketplace/:model_id",
      operationId: "createProjectFromMarketplace",
      summary: "Create a project from a marketplace model, with its datasets",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ModelIdParams,
      body: z.object({ name: z.string().min(1).max(200).optional() }),
      responses: {
        201: { description: "The project and its datasets.", schema: z.object({ project: ProjectViewSchema, datasets: z.array(DatasetViewSchema) }) },
      },
    },
    async (c, input) => c.json(await projects.createFromMarketplace(input.principal, marketplaceModel(input.params.model_id), input.body.name), 201),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/projects",
      operationId: "listProjects",
      summary: "The organization's projects, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "Projects.", schema: z.object({ projects: z.array(ProjectViewSchema) }) } },
    },
    async (c, input) => c.json({ projects: await projects.list(input.principal) }),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/projects/:project_id",
      operationId: "getProject",
      summary: "One project with its draft",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      responses: { 200: { description: "The project.", schema: ProjectViewSchema } },
    },
    async (c, input) => {
      return c.json(await projects.view(await projects.get(input.principal, input.params.project_id)));
    },
  );

  route(
    app,
    {
      method: "patch",
      path: "/api/v2/projects/:project_id",
      operationId: "updateProject",
      summary: "Rename or describe a project",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      body: UpdateProjectSchema,
      responses: { 200: { description: "The project.", schema: ProjectViewSchema } },
    },
    async (c, input) => c.json(await projects.update(input.principal, input.params.project_id, input.body)),
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/projects/:project_id",
      operationId: "deleteProject",
      summary: "Delete a project with its versions and datasets",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      description: "Comparisons and matrices made from it keep what they ran.",
      params: ProjectIdParams,
      responses: { 204: { description: "Deleted." } },
    },
    async (c, input) => {
      await projects.delete(input.principal, input.params.project_id);
      return c.body(null, 204);
    },
  );

  route(
    app,
    {
      method: "put",
      path: "/api/v2/projects/:project_id/draft",
      operationId: "updateDraft",
      summary: "Replace the draft's JModel source (and default data) or problem",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      body: UpdateDraftSchema,
      responses: {
        200: { description: "The project; jmodel_problems lists what a check of the new source finds.", schema: ProjectViewSchema },
      },
    },
    async (c, input) => c.json(await projects.updateDraft(input.principal, input.params.project_id, input.body)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/projects/:project_id/versions",
      operationId: "commitVersion",
      summary: "Commit the draft as the next numbered version",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      body: CommitVersionSchema,
      responses: { 201: { description: "The version.", schema: VersionViewSchema } },
    },
    async (c, input) => c.json(await projects.commit(input.principal, input.params.project_id, input.body.name), 201),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/projects/:project_id/versions",
      operationId: "listVersions",
      summary: "Committed versions, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      responses: { 200: { description: "Versions.", schema: z.object({ versions: z.array(VersionViewSchema) }) } },
    },
    async (c, input) => c.json({ versions: await projects.listVersions(input.principal, input.params.project_id) }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/projects/:project_id/datasets",
      operationId: "createDataset",
      summary: "Add a dataset (JSON sets and parameters)",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      body: CreateDatasetSchema,
      responses: { 201: { description: "The dataset.", schema: DatasetViewSchema } },
    },
    async (c, input) => c.json(await projects.createDataset(input.principal, input.params.project_id, input.body), 201),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/projects/:project_id/datasets",
      operationId: "listDatasets",
      summary: "The project's datasets, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams,
      responses: {
        200: { description: "Datasets (without their data).", schema: z.object({ datasets: z.array(DatasetSummarySchema) }) },
      },
    },
    async (c, input) => c.json({ datasets: await projects.listDatasets(input.principal, input.params.project_id) }),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/projects/:project_id/datasets/:dataset_id",
      operationId: "getDataset",
      summary: "One dataset with its data",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams.extend({ dataset_id: z.string().min(1) }),
      responses: { 200: { description: "The dataset.", schema: DatasetViewSchema } },
    },
    async (c, input) => {
      return c.json(await projects.datasetView(await projects.getDataset(input.principal, input.params.project_id, input.params.dataset_id)));
    },
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/projects/:project_id/datasets/:dataset_id",
      operationId: "deleteDataset",
      summary: "Delete a dataset",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: ProjectIdParams.extend({ dataset_id: z.string().min(1) }),
      responses: { 204: { description: "Deleted." } },
    },
    async (c, input) => {
      await projects.deleteDataset(input.principal, input.params.project_id, input.params.dataset_id);
      return c.body(null, 204);
    },
  );
}
