import type { PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { SolverChoice } from "../solvers/types.js";
import { and, assign, assignOnce, attributeNotExists, buildUpdate, itemExists } from "../store/conditions.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";
import { takeNextVersionNumber } from "../versioned-models/version-numbers.js";

/**
 * Builder documents and their versions.
 *
 * A document (name, version counter) in its organization's partition; its versions (the model, JModel
 * source + data or a problem, and its solver) in the document's partition; version ids are time-sortable,
 * so the newest version is the last key. Keys: see store/keys.ts.
 *
 * An unnamed version has no `name` attribute at all, so "still unnamed" is a condition DynamoDB can
 * check: pruning deletes only on `attribute_not_exists(name)`, and a trigger's promotion sets the name
 * only on `attribute_exists(pk)`. Whichever lands first wins cleanly, without a transaction.
 */
export interface DocumentRecord {
  id: string;
  org_id: string;
  name: string;
  created_by: string;
  version_count: number;
  created_at: string;
  updated_at: string;
}

export interface VersionRecord {
  id: string;
  document_id: string;
  org_id: string;
  number: number;
  name: string | null;
  solver_name: SolverChoice;
  model_kind: "jmodel" | "problem";
  model: PayloadRef;
  created_by: string;
  created_at: string;
}

export const documentKey = (orgId: string, id: string) => keys.document({ orgId, id });
export const versionKey = (documentId: string, versionId: string) => keys.documentVersion({ documentId, id: versionId });

const toDocument = (item: Record<string, unknown>): DocumentRecord => fromItem<DocumentRecord>(item);

const toVersion = (item: Record<string, unknown>): VersionRecord => fromItem<VersionRecord>(item, { name: null });

/** The version is there and nobody has named it (a named version is kept). */
const versionUnnamed = () => and(itemExists(), attributeNotExists("name"));

export class DocumentStore {
  constructor(private readonly table: Table) {}

  async create(doc: DocumentRecord): Promise<void> {
    await this.table.putNew({ ...documentKey(doc.org_id, doc.id), ...doc });
  }

  async get(orgId: string, id: string): Promise<DocumentRecord | null> {
    const key = documentKey(orgId, id);
    const item = await this.table.get(key.pk, key.sk);
    return item ? toDocument(item) : null;
  }

  async list(orgId: string): Promise<DocumentRecord[]> {
    return (await this.table.queryPrefix(keys.document.partition(orgId), keys.document.prefix, { newestFirst: true })).map(toDocument);
  }

  /** The next version number (one conditional ADD: two saves never share a number). Null when the document is gone. */
  nextVersionNumber(orgId: string, id: string, nowMs: number): Promise<number | null> {
    return takeNextVersionNumber(this.table, documentKey(orgId, id), [assign("updated_at", isoTime(nowMs))]);
  }

  async putVersion(v: VersionRecord): Promise<void> {
    const { name, ...rest } = v;
    await this.table.putNew({ ...versionKey(v.document_id, v.id), ...rest, ...(name !== null ? { name } : {}) });
  }

  async getVersion(documentId: string, versionId: string): Promise<VersionRecord | null> {
    const key = versionKey(documentId, versionId);
    const item = await this.table.get(key.pk, key.sk);
    return item ? toVersion(item) : null;
  }

  async latestVersion(documentId: string): Promise<VersionRecord | null> {
    const items = await this.table.queryPrefix(keys.documentVersion.partition(documentId), keys.documentVersion.prefix, { newestFirst: true, limit: 1 });
    return items[0] ? toVersion(items[0]) : null;
  }

  async listVersions(documentId: string): Promise<VersionRecord[]> {
    return (await this.table.queryPrefix(keys.documentVersion.partition(documentId), keys.documentVersion.prefix, { newestFirst: true })).map(toVersion);
  }

  /** Names an unnamed version (keeps an existing name). Null when the version no longer exists. */
  async nameVersion(documentId: string, versionId: string, name: string): Promise<VersionRecord | null> {
    const out = await this.table.update<Record<string, unknown>>({
      Key: versionKey(documentId, versionId),
      ...buildUpdate({ set: [assignOnce("name", name)], condition: itemExists() }),
    });
    return out ? toVersion(out) : null;
  }

  /** Deletes a version only while it is still unnamed; false when it was named meanwhile (or is gone). */
  async deleteUnnamedVersion(documentId: string, versionId: string): Promise<boolean> {
    const key = versionKey(documentId, versionId);
    return this.table.delete(key.pk, key.sk, versionUnnamed());
  }
}
