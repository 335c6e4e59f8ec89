import { isoTime } from "../clock.js";
import { timeSortablePart } from "../ids.js";
import { keys } from "../store/keys.js";
import type { Table } from "../store/table.js";

/**
 * An organization's credit history: one entry per movement of its balance, in the organization's
 * partition (keys: see store/keys.ts), newest first by key. Written right after the balance's conditional ADD
 * (not in one transaction with it: a crash in between loses a line of history, never credits).
 */
export type LedgerKind = "initial_grant" | "operator_grant" | "charge" | "refund";

export interface LedgerEntry {
  id: string;
  kind: LedgerKind;
  /** Signed: a grant adds, a charge takes. */
  credits: number;
  balance_after: number;
  /** What it was for (a grant's note, a charge's solve count). */
  note: string | null;
  created_at: string;
}

export class CreditLedger {
  constructor(private readonly table: Table) {}

  async record(orgId: string, entry: Omit<LedgerEntry, "id" | "created_at">, nowMs: number): Promise<LedgerEntry> {
    const id = `crd_${timeSortablePart(nowMs)}`;
    const full: LedgerEntry = { id, ...entry, created_at: isoTime(nowMs) };
    await this.table.put({ ...keys.credit({ orgId, id }), ...full });
    return full;
  }

  /** Newest first, `limit` at most, after the entry `before` (an id from an earlier page). */
  async page(orgId: string, limit: number, before?: string): Promise<{ entries: LedgerEntry[]; next: string | null }> {
    const { items, next } = await this.table.queryPage<LedgerEntry & { pk: string; sk: string }>({
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": keys.credit.partition(orgId), ":prefix": keys.credit.prefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
      ...(before ? { ExclusiveStartKey: keys.credit({ orgId, id: before }) } : {}),
    });
    const entries = items.map(({ pk: _pk, sk: _sk, ...entry }) => entry as LedgerEntry);
    return { entries, next: next && entries.length === limit ? entries.at(-1)!.id : null };
  }
}
