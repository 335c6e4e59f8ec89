/**
 * Condition and update expressions for the single table, built from named parts instead of strings
 * spelled out in each repository. Every part draws its placeholders from one `Placeholders`, so parts
 * combine without name clashes, and a reader sees the rule ("the lease is held by this worker") rather
 * than its DynamoDB spelling.
 */
/** Where an attribute is: a document path, or one top-level attribute named as it is (any characters). */
export type Path = string | { attribute: string };

/** A top-level attribute whose name is taken as it is (it may contain `.`, `[` or `]`). */
export const attribute = (name: string): Path => ({ attribute: name });

export class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly byName = new Map<string, string>();
  private counter = 0;

  /**
   * A document path (`status`, `webhook.delivery_id`, `results[2].status`) with every attribute name
   * behind a placeholder; segments split on `.` and list indexes only, so a name may hold other
   * characters (`solves-day_20413`). An `attribute(name)` is one top-level name taken as it is.
   */
  path(path: Path): string {
    if (typeof path !== "string") return this.name(path.attribute);
    return path
      .split(".")
      .map((segment) => {
        const [, name, indexes] = /^(.*?)((?:\[\d+\])*)$/.exec(segment)!;
        return `${this.name(name!)}${indexes}`;
      })
      .join(".");
  }

  value(value: unknown): string {
    const placeholder = `:p${this.counter++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  private name(attr: string): string {
    const existing = this.byName.get(attr);
    if (existing) return existing;
    const placeholder = `#p${this.counter++}`;
    this.names[placeholder] = attr;
    this.byName.set(attr, placeholder);
    return placeholder;
  }
}

/**
 * A piece of an expression, rendered against shared placeholders. `kind` says how it binds, so that
 * `and`/`or` add parentheses only where precedence needs them (AND binds before OR): the local
 * emulator's expression parser spends ~10 ms on each nested level, on every job's critical path.
 */
export type Part = ((p: Placeholders) => string) & { kind?: "and" | "or" };

const withKind = (kind: "and" | "or", render: (p: Placeholders) => string): Part => Object.assign(render, { kind });

export const attributeExists =
  (path: Path): Part =>
  (p) =>
    `attribute_exists(${p.path(path)})`;

export const attributeNotExists =
  (path: Path): Part =>
  (p) =>
    `attribute_not_exists(${p.path(path)})`;

/** The item is there (every item has a partition key). */
export const itemExists = (): Part => attributeExists("pk");

/** No item has this key yet. */
export const itemAbsent = (): Part => attributeNotExists("pk");

const compare =
  (operator: string) =>
  (path: Path, value: unknown): Part =>
  (p) =>
    `${p.path(path)} ${operator} ${p.value(value)}`;

export const equals = compare("=");
export const notEquals = compare("<>");
export const lessThan = compare("<");
export const atMost = compare("<=");
export const greaterThan = compare(">");
export const atLeast = compare(">=");

/** The attribute holds null (a stored null, not a missing attribute: DynamoDB tells them apart). */
export const isNull = (path: Path): Part => equals(path, null);

/** The item's `status` is one of `statuses`. */
export const statusIs = (...statuses: string[]): Part => or(...statuses.map((status) => equals("status", status)));

/** Running under `worker`'s lease (whether or not it has lapsed: only its owner renews it). */
export const leaseHeldBy = (worker: string): Part => and(statusIs("running"), equals("lease_owner", worker));

/** Running under a lease whose expiry has passed: its worker stopped renewing it. */
export const leaseLapsed = (nowMs: number): Part => and(statusIs("running"), lessThan("lease_expires_at_ms", nowMs));

/** Waiting in `status` with no worker's lease on it. */
export const waitingUnleased = (status: string): Part => and(statusIs(status), attributeNotExists("lease_owner"));

export function and(...parts: Part[]): Part {
  if (parts.length === 1) return parts[0]!;
  return withKind("and", (p) => parts.map((part) => (part.kind === "or" ? `(${part(p)})` : part(p))).join(" AND "));
}

export function or(...parts: Part[]): Part {
  if (parts.length === 1) return parts[0]!;
  return withKind("or", (p) => parts.map((part) => part(p)).join(" OR "));
}

/** `path = value`, for an update's SET clause. */
export const assign =
  (path: Path, value: unknown): Part =>
  (p) =>
    `${p.path(path)} = ${p.value(value)}`;

/** `path = if_not_exists(path, value)`: set once, never overwritten. */
export const assignOnce =
  (path: Path, value: unknown): Part =>
  (p) =>
    `${p.path(path)} = if_not_exists(${p.path(path)}, ${p.value(value)})`;

/** `path = list_append(path, items)`: items added at the end of a list. */
export const append =
  (path: Path, items: unknown[]): Part =>
  (p) =>
    `${p.path(path)} = list_append(${p.path(path)}, ${p.value(items)})`;

/** `path amount`, for an update's ADD clause: an atomic increment (from 0 when absent). */
export const increment =
  (path: Path, amount = 1): Part =>
  (p) =>
    `${p.path(path)} ${p.value(amount)}`;

/** A condition on its own (a put's or a delete's), with the placeholders it uses. */
export interface BuiltCondition {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

export interface BuiltUpdate {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** DynamoDB refuses an empty names or values map, so each is sent only when something uses it. */
const placeholdersOf = (p: Placeholders) => ({
  ...(Object.keys(p.names).length ? { ExpressionAttributeNames: p.names } : {}),
  ...(Object.keys(p.values).length ? { ExpressionAttributeValues: p.values } : {}),
});

export function buildCondition(condition: Part): BuiltCondition {
  const p = new Placeholders();
  return { ConditionExpression: condition(p), ...placeholdersOf(p) };
}

/**
 * An update: SET parts, ADD parts, REMOVE paths, on a condition (none: the write is unconditional,
 * and creates the item when it is missing); placeholders shared by all four.
 */
export function buildUpdate(update: { set?: Part[]; add?: Part[]; remove?: string[]; condition?: Part }): BuiltUpdate {
  const p = new Placeholders();
  const set = (update.set ?? []).map((part) => part(p));
  const add = (update.add ?? []).map((part) => part(p));
  const remove = (update.remove ?? []).map((path) => p.path(path));
  const condition = update.condition?.(p);
  const expression = [set.length ? `SET ${set.join(", ")}` : "", add.length ? `ADD ${add.join(", ")}` : "", remove.length ? `REMOVE ${remove.join(", ")}` : ""]
    .filter(Boolean)
    .join(" ");
  return { UpdateExpression: expression, ...(condition !== undefined ? { ConditionExpression: condition } : {}), ...placeholdersOf(p) };
}

/** SET parts for every defined entry of `fields` (undefined ones are left alone). */
export const assignAll = (fields: Record<string, unknown>): Part[] =>
  Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([attr, value]) => assign(attr, value));

/** A race (races/store.ts) nobody has won or ended yet: still running, no `race.decided_by`. */
export const raceUndecided = (): Part => and(statusIs("running"), isNull("race.decided_by"));

/** A race entrant's row still open (queued or running): each entrant's end is written once. */
export const raceEntrantOpen = (index: number): Part =>
  or(equals(`race.entrants[${index}].state`, "queued"), equals(`race.entrants[${index}].state`, "running"));
