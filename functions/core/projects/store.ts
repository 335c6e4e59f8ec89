import { isoTime } from "../clock.js";
import type { PayloadRef } from "../blob/blob-store.js";
import { itemExists } from "../store/conditions.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";
import { takeNextVersionNumber } from "../versioned-models/version-numbers.js";

/**
 * Model projects, their committed versions and their datasets.
 *
 * A project (name, draft: JModel source + default data, or a canonical problem) in its organization's
 * partition; its committed versions (frozen copies of the draft, numbered 1, 2, …) and its datasets (JSON
 * documents of sets and parameters) in the project's own partition. Keys: see store/keys.ts.
 *
 * A project is found through its organization's partition, so another organization's id is simply
 * not found (404, never 403).
 */
export interface ModelContent {
  jmodel_source: string | null;
  /** Data compiled with the source when no dataset is named (single comparisons). */
  default_data: Record<string, unknown> | null;
  /** A flat or imported canonical problem, for projects without JModel source. */
  problem: PayloadRef | null;
}

export interface ProjectRecord {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  draft: ModelContent;
  version_count: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface VersionRecord extends ModelContent {
  id: string;
  project_id: string;
  number: number;
  name: string | null;
  created_by: string;
  created_at: string;
}

export interface DatasetRecord {
  id: string;
  project_id: string;
  name: string;
  data: PayloadRef;
  created_at: string;
}

export class ProjectStore {
  constructor(private readonly table: Table) {}

  async create(p: ProjectRecord): Promise<void> {
    await this.table.putNew({ ...keys.project({ orgId: p.org_id, id: p.id }), ...p });
  }

  async get(orgId: string, id: string): Promise<ProjectRecord | null> {
    const item = await this.table.get(keys.project.partition(orgId), `${keys.project.prefix}${id}`);
    return item ? fromItem<ProjectRecord>(item) : null;
  }

  async list(orgId: string): Promise<ProjectRecord[]> {
    return (await this.table.queryPrefix(keys.project.partition(orgId), keys.project.prefix, { newestFirst: true })).map((i) => fromItem<ProjectRecord>(i));
  }

  async update(
    orgId: string,
    { id, fields, nowMs }: { id: string; fields: Partial<Pick<ProjectRecord, "name" | "description" | "draft">>; nowMs: number },
  ): Promise<ProjectRecord | null> {
    const out = await this.table.setFields<Record<string, unknown>>(keys.project({ orgId, id }), { ...fields, updated_at: isoTime(nowMs) });
    return out ? fromItem<ProjectRecord>(out) : null;
  }

  /** The next version number: one conditional ADD, so two commits never share a number. */
  nextVersionNumber(orgId: string, id: string): Promise<number | null> {
    return takeNextVersionNumber(this.table, keys.project({ orgId, id }));
  }

  async putVersion(v: VersionRecord): Promise<void> {
    await this.table.putNew({ ...keys.projectVersion({ projectId: v.project_id, id: v.id }), ...v });
  }

  async getVersion(projectId: string, versionId: string): Promise<VersionRecord | null> {
    const item = await this.table.get(keys.projectVersion.partition(projectId), `${keys.projectVersion.prefix}${versionId}`);
    return item ? fromItem<VersionRecord>(item) : null;
  }

  async listVersions(projectId: string): Promise<VersionRecord[]> {
    return (await this.table.queryPrefix(keys.projectVersion.partition(projectId), keys.projectVersion.prefix, { newestFirst: true })).map((i) =>
      fromItem<VersionRecord>(i),
    );
  }

  /** Deletes a project with its versions and datasets; false when the organization has no such project. */
  async delete(orgId: string, id: string): Promise<boolean> {
    if (!(await this.table.delete(keys.project.partition(orgId), `${keys.project.prefix}${id}`, itemExists()))) return false;
    const children = await this.table.queryAll<{ pk: string; sk: string }>({
      KeyConditionExpression: "pk = :pk",
      // The project's partition holds its versions and its datasets.
      ExpressionAttributeValues: { ":pk": keys.projectVersion.partition(id) },
      ProjectionExpression: "pk, sk",
    });
    await this.table.deleteMany(children);
    return true;
  }

  async putDataset(d: DatasetRecord): Promise<void> {
    await this.table.putNew({ ...keys.dataset({ projectId: d.project_id, id: d.id }), ...d });
  }

  async getDataset(projectId: string, datasetId: string): Promise<DatasetRecord | null> {
    const item = await this.table.get(keys.dataset.partition(projectId), `${keys.dataset.prefix}${datasetId}`);
    return item ? fromItem<DatasetRecord>(item) : null;
  }

  async listDatasets(projectId: string): Promise<DatasetRecord[]> {
    return (await this.table.queryPrefix(keys.dataset.partition(projectId), keys.dataset.prefix, { newestFirst: true })).map((i) => fromItem<DatasetRecord>(i));
  }

  async deleteDataset(projectId: string, datasetId: string): Promise<boolean> {
    return this.table.delete(keys.dataset.partition(projectId), `${keys.dataset.prefix}${datasetId}`, itemExists());
  }
}
