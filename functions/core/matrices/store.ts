import type { Settings } from "../solvers/settings.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";

/** A matrix (keys: see store/keys.ts): its rows are comparisons with `batch_id`; its status is derived. */
export interface MatrixRecord {
  id: string;
  org_id: string;
  created_by: string;
  project_id: string;
  project_name: string;
  model_project_version_id: string | null;
  settings: Settings;
  solver_names: string[];
  machine_note: string | null;
  quota_cost: number;
  rows: { comparison_id: string; dataset_id: string; dataset_name: string }[];
  created_at: string;
}

/** Matrices (their rows' comparisons are in comparisons/store.ts). */
export class MatrixStore {
  constructor(private readonly table: Table) {}

  async create(m: MatrixRecord): Promise<void> {
    await this.table.putNew({ ...keys.matrix({ orgId: m.org_id, id: m.id }), ...keys.matrix.projectIndex(m.project_id, m.id), ...m });
  }

  async get(orgId: string, id: string): Promise<MatrixRecord | null> {
    const item = await this.table.get(keys.matrix.partition(orgId), `${keys.matrix.prefix}${id}`);
    if (!item) return null;
    return fromItem<MatrixRecord>(item);
  }

  /** Newest first, optionally of one project. */
  async list(orgId: string, projectId: string | undefined): Promise<MatrixRecord[]> {
    const items = projectId
      ? await this.table.queryAll<Record<string, unknown>>({
          IndexName: "gsi1",
          KeyConditionExpression: "gsi1pk = :p",
          ExpressionAttributeValues: { ":p": keys.matrix.projectIndexPartition(projectId) },
          ScanIndexForward: false,
        })
      : await this.table.queryPrefix<Record<string, unknown>>(keys.matrix.partition(orgId), keys.matrix.prefix, { newestFirst: true });
    return items.filter((i) => i.org_id === orgId).map((i) => fromItem<MatrixRecord>(i));
  }
}
