import type { Hono } from "hono";
import { z } from "zod";
import type { Principal } from "../../core/auth/service.js";
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
import type { ApiEnv } from "../http/context.js";
import { requirePrincipal, requireRole, route } from "../http/route.js";

const ProjectId = z.object({ project_id: z.string().min(1) });
const tag = "Model projects";

/** Writing models needs the solver role; reading them any role. */
const writer = (input: { principal: Principal | null }): Principal => requireRole(input, "solver", "Changing models needs the solver role.");

export function registerProjectRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/projects",
      operationId: "createProject",
      summary: "Create a model project (JModel source, or a canonical problem)",
      tag,
      access: "user",
      body: CreateProjectSchema,
      responses: { 201: { description: "The project.", schema: ProjectViewSchema } },
    },
    async (c, input) => c.json(await c.get("deps").projects.create(writer(input), input.body), 201),
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
      params: z.object({ model_id: z.string().min(1) }),
      body: z.object({ name: z.string().min(1).max(200).optional() }),
      responses: {
        201: { description: "The project and its datasets.", schema: z.object({ project: ProjectViewSchema, datasets: z.array(DatasetViewSchema) }) },
        404: { description: "No such marketplace model." },
      },
    },
    async (c, input) => {
      const principal = writer(input);
      return c.json(await c.get("deps").projects.createFromMarketplace(principal, marketplaceModel(input.params.model_id), input.body.name), 201);
    },
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
      responses: { 200: { description: "Projects.", schema: z.object({ projects: z.array(ProjectViewSchema) }) } },
    },
    async (c, input) => c.json({ projects: await c.get("deps").projects.list(requirePrincipal(input)) }),
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
      params: ProjectId,
      responses: { 200: { description: "The project.", schema: ProjectViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      const deps = c.get("deps");
      return c.json(await deps.projects.view(await deps.projects.get(requirePrincipal(input), input.params.project_id)));
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
      params: ProjectId,
      body: UpdateProjectSchema,
      responses: { 200: { description: "The project.", schema: ProjectViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").projects.update(writer(input), input.params.project_id, input.body)),
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
      description: "Comparisons and matrices made from it keep what they ran.",
      params: ProjectId,
      responses: { 204: { description: "Deleted." }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      await c.get("deps").projects.delete(writer(input), input.params.project_id);
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
      params: ProjectId,
      body: UpdateDraftSchema,
      responses: {
        200: { description: "The project; jmodel_problems lists what a check of the new source finds.", schema: ProjectViewSchema },
        404: { description: "not_found" },
      },
    },
    async (c, input) => c.json(await c.get("deps").projects.updateDraft(writer(input), input.params.project_id, input.body)),
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
      params: ProjectId,
      body: CommitVersionSchema,
      responses: { 201: { description: "The version.", schema: VersionViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").projects.commit(writer(input), input.params.project_id, input.body.name), 201),
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
      params: ProjectId,
      responses: { 200: { description: "Versions.", schema: z.object({ versions: z.array(VersionViewSchema) }) }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json({ versions: await c.get("deps").projects.listVersions(requirePrincipal(input), input.params.project_id) }),
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
      params: ProjectId,
      body: CreateDatasetSchema,
      responses: { 201: { description: "The dataset.", schema: DatasetViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").projects.createDataset(writer(input), input.params.project_id, input.body), 201),
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
      params: ProjectId,
      responses: {
        200: { description: "Datasets (without their data).", schema: z.object({ datasets: z.array(DatasetSummarySchema) }) },
        404: { description: "not_found" },
      },
    },
    async (c, input) => c.json({ datasets: await c.get("deps").projects.listDatasets(requirePrincipal(input), input.params.project_id) }),
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
      params: ProjectId.extend({ dataset_id: z.string().min(1) }),
      responses: { 200: { description: "The dataset.", schema: DatasetViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      const projects = c.get("deps").projects;
      return c.json(await projects.datasetView(await projects.getDataset(requirePrincipal(input), input.params.project_id, input.params.dataset_id)));
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
      params: ProjectId.extend({ dataset_id: z.string().min(1) }),
      responses: { 204: { description: "Deleted." }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      await c.get("deps").projects.deleteDataset(writer(input), input.params.project_id, input.params.dataset_id);
      return c.body(null, 204);
    },
  );
}
