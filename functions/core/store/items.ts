/**
 * The attributes the single table keeps for itself — keys, the gsi1 index entry, the ACTIVE partition's
 * kind and wait start, a worker's lease, the TTL — and never part of a record a repository hands out.
 */
export const INTERNAL_ATTRIBUTES: ReadonlySet<string> = new Set([
  "pk",
  "sk",
  "gsi1pk",
  "gsi1sk",
  "active_kind",
  "queued_at",
  "lease_owner",
  "lease_expires_at_ms",
  "ttl",
]);

/**
 * A stored item as the record it holds: the internal attributes left out, and `defaults` filled in for
 * attributes an item may lack (a time not set yet is absent, not null, so `if_not_exists` can set it).
 */
export function fromItem<T>(item: Record<string, unknown>, defaults: Partial<T> = {}): T {
  const record: Record<string, unknown> = { ...defaults };
  for (const [attribute, value] of Object.entries(item)) if (!INTERNAL_ATTRIBUTES.has(attribute)) record[attribute] = value;
  for (const [attribute, value] of Object.entries(defaults)) record[attribute] ??= value;
  return record as T;
}
