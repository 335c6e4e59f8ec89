/**
 * Condition and update expressions for the single table, built from named parts instead of strings
 * spelled out in each repository. Every part draws its placeholders from one `Placeholders`, so parts
 * combine without name clashes, and a reader sees the rule ("the lease is held by this worker") rather
 * than its DynamoDB spelling.
 */
export class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private counter = 0;

  /** A document path (`status`, `results[2].status`) with every attribute name behind a placeholder. */
  path(path: string): string {
    return path.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (attr) => {
      const existing = Object.entries(this.names).find(([, name]) => name === attr);
      if (existing) return existing[0];
      const placeholder = `#p${this.counter++}`;
      this.names[placeholder] = attr;
      return placeholder;
    });
  }

  value(value: unknown): string {
    const placeholder = `:p${this.counter++}`;
    this.values[placeholder] = value;
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
  (path: string): Part =>
  (p) =>
    `attribute_exists(${p.path(path)})`;

export const attributeNotExists =
  (path: string): Part =>
  (p) =>
    `attribute_not_exists(${p.path(path)})`;

export const equals =
  (path: string, value: unknown): Part =>
  (p) =>
    `${p.path(path)} = ${p.value(value)}`;

export const notEquals =
  (path: string, value: unknown): Part =>
  (p) =>
    `${p.path(path)} <> ${p.value(value)}`;

/** The item's `status` is one of `statuses`. */
export const statusIs = (...statuses: string[]): Part => or(...statuses.map((status) => equals("status", status)));

/** Running under `worker`'s lease (whether or not it has lapsed: only its owner renews it). */
export const leaseHeldBy = (worker: string): Part => and(statusIs("running"), equals("lease_owner", worker));

/** Running under a lease whose expiry has passed: its worker stopped renewing it. */
export const leaseLapsed = (nowMs: number): Part => and(statusIs("running"), (p) => `${p.path("lease_expires_at_ms")} < ${p.value(nowMs)}`);

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
  (path: string, value: unknown): Part =>
  (p) =>
    `${p.path(path)} = ${p.value(value)}`;

/** `path = if_not_exists(path, value)`: set once, never overwritten. */
export const assignOnce =
  (path: string, value: unknown): Part =>
  (p) =>
    `${p.path(path)} = if_not_exists(${p.path(path)}, ${p.value(value)})`;

export interface BuiltUpdate {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** An update: SET parts, REMOVE paths, on a condition; placeholders shared by all three. */
export function buildUpdate(update: { set: Part[]; remove?: string[]; condition: Part }): BuiltUpdate {
  const p = new Placeholders();
  const set = update.set.map((part) => part(p));
  const remove = (update.remove ?? []).map((path) => p.path(path));
  const condition = update.condition(p);
  const expression = [set.length ? `SET ${set.join(", ")}` : "", remove.length ? `REMOVE ${remove.join(", ")}` : ""].filter(Boolean).join(" ");
  return {
    UpdateExpression: expression,
    ConditionExpression: condition,
    ExpressionAttributeNames: p.names,
    ...(Object.keys(p.values).length ? { ExpressionAttributeValues: p.values } : {}),
  };
}

/** SET parts for every defined entry of `fields` (undefined ones are left alone). */
export const assignAll = (fields: Record<string, unknown>): Part[] =>
  Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(
      ([attr, value]) =>
        (p: Placeholders) =>
          `${p.path(attr)} = ${p.value(value)}`,
    );
