import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import type { Clock } from "../clock.js";
import { assignAll, buildCondition, buildUpdate, itemAbsent, itemExists, type Part } from "./conditions.js";
import { isConditionFailure, isKeyTooLarge } from "./dynamo.js";

export type Item = Record<string, unknown> & { pk: string; sk: string };

/**
 * A conditional write whose condition did not hold, with the item as it stood. dynalite (the local
 * stack's emulator) does not implement ReturnValuesOnConditionCheckFailure, so `existing` comes from a
 * consistent read right after the failure, on every backend alike: it can be newer than what the
 * condition saw, never older.
 */
export class ConditionFailedError<T = Item> extends Error {
  constructor(
    readonly key: { pk: string; sk: string },
    readonly existing: T | null,
  ) {
    super(`condition failed on ${key.pk} / ${key.sk}`);
    this.name = new.target.name;
  }
}

/** What a repository's typed condition failure is built from: the key and the item as it stands. */
export type ConditionFailure<T, E extends ConditionFailedError<T>> = new (key: { pk: string; sk: string }, existing: T | null) => E;

/**
 * Thin, typed access to the single table. Repositories build keys and conditions; this class only
 * removes SDK boilerplate. Every state change a repository makes is a conditional write.
 */
export class Table {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly name: string,
    readonly clock: Clock,
  ) {}

  /** An item, read consistently unless `consistent` is false (a read that may lag a write by a moment). */
  async get<T = Item>(pk: string, sk: string, { consistent = true }: { consistent?: boolean } = {}): Promise<T | null> {
    const { Item } = await this.doc
      .send(new GetCommand({ TableName: this.name, Key: { pk, sk }, ConsistentRead: consistent }))
      .catch((error) => (isKeyTooLarge(error) ? { Item: undefined } : Promise.reject(error)));
    if (!Item || this.expired(Item)) return null;
    return Item as T;
  }

  /** Some attributes of an item (a cheap read of a large item), consistent. */
  async getAttributes<T = Record<string, unknown>>(pk: string, sk: string, attributes: string[]): Promise<T | null> {
    const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.name,
        Key: { pk, sk },
        ConsistentRead: true,
        ProjectionExpression: Object.keys(names).join(", "),
        ExpressionAttributeNames: names,
      }),
    );
    return (Item as T | undefined) ?? null;
  }

  /** Put; with `condition`, returns false instead of throwing when the condition fails. */
  async put(item: Item, condition?: Part): Promise<boolean> {
    try {
      await this.doc.send(new PutCommand({ TableName: this.name, Item: item, ...(condition ? buildCondition(condition) : {}) }));
      return true;
    } catch (error) {
      if (condition && isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Put only if no item has this key yet. */
  putNew(item: Item): Promise<boolean> {
    return this.put(item, itemAbsent());
  }

  /** Update; returns the new attributes, or null when the condition failed. */
  async update<T = Item>(input: Omit<UpdateCommandInput, "TableName">): Promise<T | null> {
    try {
      const out = await this.doc.send(new UpdateCommand({ TableName: this.name, ReturnValues: "ALL_NEW", ...input }));
      return (out.Attributes ?? null) as T | null;
    } catch (error) {
      if (input.ConditionExpression && (isConditionFailure(error) || isKeyTooLarge(error))) return null;
      throw error;
    }
  }

  /**
   * Update; returns the new attributes, or throws `failure` (by default a ConditionFailedError)
   * carrying the item as it stands.
   */
  async updateOrExplain<T = Item, E extends ConditionFailedError<T> = ConditionFailedError<T>>(
    input: Omit<UpdateCommandInput, "TableName"> & { Key: { pk: string; sk: string } },
    failure: ConditionFailure<T, E> = ConditionFailedError as unknown as ConditionFailure<T, E>,
  ): Promise<T> {
    const out = await this.update<T>(input);
    if (out !== null) return out;
    throw new failure(input.Key, await this.get<T>(input.Key.pk, input.Key.sk));
  }

  /**
   * As `updateOrExplain`, for a caller to whom a missing item is no refusal but "not there": null when
   * the item is gone, `failure` only when an item that exists refused the condition.
   */
  async updateOrExplainRefusal<T = Item, E extends ConditionFailedError<T> = ConditionFailedError<T>>(
    input: Omit<UpdateCommandInput, "TableName"> & { Key: { pk: string; sk: string } },
    failure: ConditionFailure<T, E>,
  ): Promise<T | null> {
    try {
      return await this.updateOrExplain<T, E>(input, failure);
    } catch (error) {
      if (error instanceof ConditionFailedError && error.existing === null) return null;
      throw error;
    }
  }

  /** Delete; with `condition`, returns false instead of throwing when the condition fails. */
  async delete(pk: string, sk: string, condition?: Part): Promise<boolean> {
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.name, Key: { pk, sk }, ...(condition ? buildCondition(condition) : {}) }));
      return true;
    } catch (error) {
      if (condition && (isConditionFailure(error) || isKeyTooLarge(error))) return false;
      throw error;
    }
  }

  /** One page of a query. */
  async queryPage<T = Item>(input: Omit<QueryCommandInput, "TableName">): Promise<{ items: T[]; next?: Record<string, unknown> }> {
    const out = await this.doc
      .send(new QueryCommand({ TableName: this.name, ...input }))
      .catch((error) => (isKeyTooLarge(error) ? { Items: [], LastEvaluatedKey: undefined } : Promise.reject(error)));
    const items = (out.Items ?? []).filter((i) => !this.expired(i)) as T[];
    return { items, next: out.LastEvaluatedKey };
  }

  /** Every item of a query, following pages. */
  async queryAll<T = Item>(input: Omit<QueryCommandInput, "TableName">): Promise<T[]> {
    const all: T[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.queryPage<T>({ ...input, ExclusiveStartKey: start });
      all.push(...page.items);
      start = page.next;
    } while (start);
    return all;
  }

  /** Items of a partition whose sort key starts with `prefix`, in key order (or reversed). */
  queryPrefix<T = Item>(pk: string, prefix: string, options: { newestFirst?: boolean; limit?: number } = {}): Promise<T[]> {
    const input: Omit<QueryCommandInput, "TableName"> = {
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix },
      ScanIndexForward: !options.newestFirst,
      ConsistentRead: true,
    };
    if (options.limit) return this.queryPage<T>({ ...input, Limit: options.limit }).then((p) => p.items);
    return this.queryAll<T>(input);
  }

  /**
   * How many items a query matches, following pages. A COUNT query still reads the items (and pays
   * for them), but sends none back.
   */
  async count(input: Omit<QueryCommandInput, "TableName" | "Select">): Promise<number> {
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(new QueryCommand({ TableName: this.name, ...input, Select: "COUNT", ExclusiveStartKey: start }));
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return total;
  }

  /** Items of a partition whose sort key starts with `prefix`. */
  countPrefix(pk: string, prefix: string): Promise<number> {
    return this.count({
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": pk, ":p": prefix },
      ConsistentRead: true,
    });
  }

  /**
   * Sets each defined entry of `fields` (an attribute per key; undefined ones are left alone) on the
   * item, on `condition` (default: the item exists). Returns the new item, or null when the condition
   * failed.
   */
  setFields<T = Item>(
    key: { pk: string; sk: string },
    fields: Record<string, unknown>,
    options: { condition?: Part; remove?: string[] } = {},
  ): Promise<T | null> {
    return this.update<T>({ Key: key, ...buildUpdate({ set: assignAll(fields), remove: options.remove, condition: options.condition ?? itemExists() }) });
  }

  /** Deletes many keys, 25 per request, retrying unprocessed ones. */
  async deleteMany(keys: { pk: string; sk: string }[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests: Record<string, unknown>[] = keys.slice(i, i + 25).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
      for (let attempt = 0; requests.length > 0 && attempt < 8; attempt++) {
        const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.name]: requests as never } }));
        requests = (out.UnprocessedItems?.[this.name] ?? []) as Record<string, unknown>[];
        if (requests.length) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      }
    }
  }

  /** TTL is a promise of deletion, not a guarantee of timing (and emulators may not enforce it). */
  private expired(item: Record<string, unknown>): boolean {
    const ttl = item.ttl;
    return typeof ttl === "number" && ttl * 1000 <= this.clock.now();
  }
}
