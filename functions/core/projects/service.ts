import type { Services } from "../services.js";
import type { z } from "zod";
import type { Principal } from "../auth/service.js";
import { loadPayload, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { notFound } from "../errors.js";
import { newId } from "../ids.js";
import { checkJModel } from "../jmodel/index.js";
import type { MarketplaceModel } from "../marketplace/catalog.js";
import type { Problem } from "../problem/schema.js";
import type { CreateProjectSchema, DatasetViewSchema, ProjectViewSchema, UpdateDraftSchema, VersionViewSchema } from "./schemas.js";
import type { DatasetRecord, ModelContent, ProjectRecord, VersionRecord } from "./store.js";
import { blobKeys } from "../blob/keys.js";

type ProjectView = z.infer<typeof ProjectViewSchema>;
type VersionView = z.infer<typeof VersionViewSchema>;
type DatasetView = z.infer<typeof DatasetViewSchema>;

const kindOf = (m: ModelContent) => (m.jmodel_source !== null ? "jmodel" : m.problem !== null ? "problem" : "empty") as "jmodel" | "problem" | "empty";

/** What a comparison runs: a project's draft or one of its committed versions. */
export interface ResolvedModel {
  project: ProjectRecord;
  version: VersionRecord | null;
  content: ModelContent;
}

export class ProjectService {
  constructor(private readonly deps: Pick<Services, "projectStore" | "blobs" | "clock" | "config">) {}

  /** A project's model content from `input`, over the `base` it replaces (a draft being edited). */
  private async content(
    orgId: string,
    {
      id,
      input,
      base,
    }: { id: string; input: { jmodel_source?: string; default_data?: Record<string, unknown> | null; problem?: Problem }; base?: ModelContent },
  ): Promise<ModelContent> {
    if (input.problem !== undefined) {
      return {
        jmodel_source: null,
        default_data: null,
        problem: await storePayload(this.deps.blobs, blobKeys.projectVersionProblem(orgId, id, newId("ver")), {
          value: input.problem,
          inlineMaxBytes: this.deps.config.inlinePayloadMaxBytes,
        }),
      };
    }
    return {
      jmodel_source: input.jmodel_source ?? base?.jmodel_source ?? null,
      default_data: input.default_data !== undefined ? input.default_data : (base?.default_data ?? null),
      problem: input.jmodel_source !== undefined ? null : (base?.problem ?? null),
    };
  }

  async create(principal: Principal, input: z.infer<typeof CreateProjectSchema>): Promise<ProjectView> {
    const now = this.deps.clock.now();
    const id = newId("prj", now);
    const record: ProjectRecord = {
      id,
      org_id: principal.orgId,
      name: input.name,
      description: input.description ?? null,
      draft: await this.content(principal.orgId, { id, input }),
      version_count: 0,
      created_by: principal.userId,
      created_at: isoTime(now),
      updated_at: isoTime(now),
    };
    await this.deps.projectStore.create(record);
    return this.view(record);
  }

  /**
   * Copies a marketplace model into the organization: a project with its JModel source (the first
   * dataset as default data, so a single comparison compiles it at once) and every dataset.
   */
  async createFromMarketplace(
    principal: Principal,
    model: MarketplaceModel,
    name: string | undefined,
  ): Promise<{ project: ProjectView; datasets: DatasetView[] }> {
    const project = await this.create(principal, {
      name: name ?? model.title,
      description: model.summary,
      jmodel_source: model.jmodel_source,
      default_data: model.datasets[0]?.data,
    });
    const datasets: DatasetView[] = [];
    for (const d of model.datasets) datasets.push(await this.createDataset(principal, project.id, { name: d.name, data: d.data }));
    return { project, datasets };
  }

  async get(principal: Principal, id: string): Promise<ProjectRecord> {
    const p = await this.deps.projectStore.get(principal.orgId, id);
    if (!p) throw notFound("Project");
    return p;
  }

  async list(principal: Principal): Promise<ProjectView[]> {
    return Promise.all((await this.deps.projectStore.list(principal.orgId)).map((p) => this.view(p)));
  }

  async update(principal: Principal, id: string, fields: { name?: string; description?: string | null }): Promise<ProjectView> {
    const p = await this.deps.projectStore.update(principal.orgId, { id, fields, nowMs: this.deps.clock.now() });
    if (!p) throw notFound("Project");
    return this.view(p);
  }

  async updateDraft(principal: Principal, id: string, input: z.infer<typeof UpdateDraftSchema>): Promise<ProjectView> {
    const project = await this.get(principal, id);
    const draft = await this.content(principal.orgId, { id, input, base: project.draft });
    const p = await this.deps.projectStore.update(principal.orgId, { id, fields: { draft }, nowMs: this.deps.clock.now() });
    if (!p) throw notFound("Project");
    return this.view(p);
  }

  /**
   * Deletes a project, its versions and its datasets. Comparisons and matrices made from it keep what
   * they ran (each stored its own copy of the problem or the model).
   */
  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await this.deps.projectStore.delete(principal.orgId, id))) throw notFound("Project");
  }

  /** Freezes the draft as the next numbered version. */
  async commit(principal: Principal, id: string, name: string | undefined): Promise<VersionView> {
    const project = await this.get(principal, id);
    const number = await this.deps.projectStore.nextVersionNumber(principal.orgId, id);
    if (number === null) throw notFound("Project");
    const now = this.deps.clock.now();
    const version: VersionRecord = {
      ...project.draft,
      id: newId("ver", now),
      project_id: id,
      number,
      name: name ?? null,
      created_by: principal.userId,
      created_at: isoTime(now),
    };
    await this.deps.projectStore.putVersion(version);
    return this.versionView(version);
  }

  async listVersions(principal: Principal, id: string): Promise<VersionView[]> {
    await this.get(principal, id);
    return (await this.deps.projectStore.listVersions(id)).map((v) => this.versionView(v));
  }

  async getVersion(principal: Principal, id: string, versionId: string): Promise<VersionRecord> {
    await this.get(principal, id);
    const v = await this.deps.projectStore.getVersion(id, versionId);
    if (!v) throw notFound("Version");
    return v;
  }

  async resolve(principal: Principal, projectId: string, versionId: string | undefined): Promise<ResolvedModel> {
    const project = await this.get(principal, projectId);
    if (!versionId) return { project, version: null, content: project.draft };
    const version = await this.deps.projectStore.getVersion(projectId, versionId);
    if (!version) throw notFound("Version");
    return { project, version, content: version };
  }

  async problemOf(content: ModelContent): Promise<Problem | null> {
    return content.problem ? loadPayload<Problem>(this.deps.blobs, content.problem) : null;
  }

  async createDataset(principal: Principal, projectId: string, input: { name: string; data: Record<string, unknown> }): Promise<DatasetView> {
    await this.get(principal, projectId);
    const now = this.deps.clock.now();
    const id = newId("dst", now);
    const record: DatasetRecord = {
      id,
      project_id: projectId,
      name: input.name,
      data: await storePayload(this.deps.blobs, blobKeys.dataset(principal.orgId, id), {
        value: input.data,
        inlineMaxBytes: this.deps.config.inlinePayloadMaxBytes,
      }),
      created_at: isoTime(now),
    };
    await this.deps.projectStore.putDataset(record);
    return { id, project_id: projectId, name: input.name, data: input.data, created_at: record.created_at };
  }

  async getDataset(principal: Principal, projectId: string, datasetId: string): Promise<DatasetRecord> {
    await this.get(principal, projectId);
    const d = await this.deps.projectStore.getDataset(projectId, datasetId);
    if (!d) throw notFound("Dataset");
    return d;
  }

  async datasetData(d: DatasetRecord): Promise<Record<string, unknown>> {
    return loadPayload<Record<string, unknown>>(this.deps.blobs, d.data);
  }

  async datasetView(d: DatasetRecord): Promise<DatasetView> {
    return { id: d.id, project_id: d.project_id, name: d.name, data: await this.datasetData(d), created_at: d.created_at };
  }

  async listDatasets(principal: Principal, projectId: string): Promise<Omit<DatasetView, "data">[]> {
    await this.get(principal, projectId);
    return (await this.deps.projectStore.listDatasets(projectId)).map((d) => ({ id: d.id, project_id: d.project_id, name: d.name, created_at: d.created_at }));
  }

  async deleteDataset(principal: Principal, projectId: string, datasetId: string): Promise<void> {
    await this.get(principal, projectId);
    if (!(await this.deps.projectStore.deleteDataset(projectId, datasetId))) throw notFound("Dataset");
  }

  async view(p: ProjectRecord): Promise<ProjectView> {
    const problem = await this.problemOf(p.draft);
    return {
      id: p.id,
      name: p.name,
      description: p.description,
      kind: kindOf(p.draft),
      jmodel_source: p.draft.jmodel_source,
      default_data: p.draft.default_data,
      problem_name: problem?.name ?? null,
      jmodel_problems:
        p.draft.jmodel_source !== null
          ? checkJModel(p.draft.jmodel_source).map((x) => ({ line: x.line, column: x.column, message: x.message, kind: x.kind, code: x.code }))
          : [],
      version_count: p.version_count,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  versionView(v: VersionRecord): VersionView {
    return {
      id: v.id,
      project_id: v.project_id,
      number: v.number,
      name: v.name,
      kind: kindOf(v),
      jmodel_source: v.jmodel_source,
      default_data: v.default_data,
      created_at: v.created_at,
    };
  }
}
