import { buildUpdate, increment, itemExists, type Part } from "../store/conditions.js";
import type { Table } from "../store/table.js";

/**
 * Version numbering, shared by the two versioned models (builder documents and model projects; see
 * docs/decisions.md, "Documents and projects stay two modules", 2026-11-28): the parent item counts its
 * versions in `version_count`, and the next number is taken with one conditional ADD, so two saves
 * never share a number and a deleted parent takes none. `alsoSet`: fields written in the same update
 * (a document's `updated_at`). Null when the parent is gone.
 */
export async function takeNextVersionNumber(table: Pick<Table, "update">, parent: { pk: string; sk: string }, alsoSet: Part[] = []): Promise<number | null> {
  const out = await table.update<{ version_count: number }>({
    Key: parent,
    ...buildUpdate({ set: alsoSet, add: [increment("version_count")], condition: itemExists() }),
  });
  return out?.version_count ?? null;
}
