import { type BlobStore, deleteStoredBlob } from "../blob/blob-store.js";
import { type Clock, epochSeconds } from "../clock.js";
import { assign, buildUpdate, itemExists } from "../store/conditions.js";
import { TABLE_KEYS } from "../store/dynamo.js";
import type { Table } from "../store/table.js";
import type { ProgressPoint } from "./schemas.js";
import { keys } from "../store/keys.js";
import { blobKeys } from "../blob/keys.js";

/**
 * A running execution's log lines and progress points, written by its worker in chunks (one per flush)
 * under their own partition (keys: see store/keys.ts).
 *
 * Bounds: the first TABLE_LINE_CHUNKS chunks keep their lines in the item; later chunks put their lines
 * in the blob store (the item keeps where, and how many). Past MAX_KEPT_LINES lines in all, the oldest
 * chunks after the first (which holds the solver's banner) are summarised: their lines are deleted and
 * one summary line answers for them. Points are small and always stay in the items, MAX_POINTS at most
 * (the recorder keeps only improving incumbents past that).
 *
 * Retention: every chunk carries the table's TTL, `retentionDays` after it was written, so DynamoDB
 * deletes an execution's progress on its own (its blobs expire by the bucket's lifecycle rule).
 */
/** An old chunk replaced by one summary line: which execution's, which chunk, and the line. */
export interface ChunkSummary {
  executionId: string;
  chunk: Pick<ProgressChunk, "seq" | "first_line" | "line_count">;
  summary: string;
}

export const TABLE_LINE_CHUNKS = 32;
export const MAX_KEPT_LINES = 20_000;
export const MAX_POINTS = 5_000;
export const MAX_LINE_CHARS = 500;
export const LOG_PAGE_LINES = 1_000;

export interface ProgressChunk {
  seq: number;
  first_line: number;
  line_count: number;
  /** Inline lines (early chunks). */
  lines?: string[];
  /** Where the lines are (later chunks). */
  blob?: string;
  /** Set once the chunk's lines were summarised away. */
  summary?: string;
  first_point: number;
  points: ProgressPoint[];
}

export class ProgressStore {
  constructor(
    private readonly table: Table,
    private readonly blobs: BlobStore,
    private readonly retention: { clock: Clock; retentionDays: number },
  ) {}

  /** Writes one chunk; `seq` counts from 0 per execution. */
  async append(orgId: string, executionId: string, chunk: Omit<ProgressChunk, "blob" | "summary">): Promise<void> {
    const ttl = epochSeconds(this.retention.clock.now()) + this.retention.retentionDays * 86_400;
    const item: Record<string, unknown> = { ...keys.progressChunk.key(orgId, executionId, chunk.seq), ...chunk, [TABLE_KEYS.ttlAttribute]: ttl };
    if (chunk.seq >= TABLE_LINE_CHUNKS && chunk.line_count > 0) {
      const key = blobKeys.executionLogChunk(orgId, executionId, chunk.seq);
      await this.blobs.put(key, JSON.stringify(chunk.lines ?? []));
      delete item.lines;
      item.blob = key;
    }
    await this.table.put(item as never);
  }

  /** Replaces a chunk's lines by one summary line (its blob is deleted). */
  async summarise(orgId: string, { executionId, chunk, summary }: ChunkSummary): Promise<void> {
    const key = keys.progressChunk.key(orgId, executionId, chunk.seq);
    const updated = await this.table.update<Record<string, unknown>>({
      Key: key,
      ...buildUpdate({ set: [assign("summary", summary)], remove: ["lines", "blob"], condition: itemExists() }),
      ReturnValues: "ALL_OLD",
    });
    const blob = updated?.blob;
    if (typeof blob === "string") await deleteStoredBlob(this.blobs, "results/", blob).catch(() => undefined);
  }

  async chunks(orgId: string, executionId: string): Promise<ProgressChunk[]> {
    return this.table.queryPrefix<ProgressChunk>(keys.progressChunk.partition(orgId, executionId), keys.progressChunk.prefix);
  }

  /**
   * Lines from `offset` (at most `maxLines`) and points from `pointOffset`. A summarised chunk answers
   * with its summary line, and `next_offset` moves past the lines it stands for.
   */
  async read(
    orgId: string,
    { executionId, offset, pointOffset, maxLines = LOG_PAGE_LINES }: { executionId: string; offset: number; pointOffset: number; maxLines?: number },
  ): Promise<{ lines: string[]; nextOffset: number; points: ProgressPoint[]; nextPointOffset: number }> {
    const chunks = await this.chunks(orgId, executionId);
    const lines: string[] = [];
    let nextOffset = offset;
    for (const chunk of chunks) {
      const end = chunk.first_line + chunk.line_count;
      if (end <= nextOffset || chunk.line_count === 0) continue;
      if (lines.length >= maxLines) break;
      if (chunk.summary !== undefined) {
        lines.push(chunk.summary);
        nextOffset = end;
        continue;
      }
      const all = chunk.lines ?? (chunk.blob ? (JSON.parse((await this.blobs.get(chunk.blob)) ?? "[]") as string[]) : []);
      const from = Math.max(0, nextOffset - chunk.first_line);
      const taken = all.slice(from, from + (maxLines - lines.length));
      lines.push(...taken);
      nextOffset = chunk.first_line + from + taken.length;
    }
    const points: ProgressPoint[] = [];
    let nextPointOffset = pointOffset;
    for (const chunk of chunks) {
      const end = chunk.first_point + chunk.points.length;
      if (end <= nextPointOffset) continue;
      points.push(...chunk.points.slice(Math.max(0, nextPointOffset - chunk.first_point)));
      nextPointOffset = end;
    }
    return { lines, nextOffset, points, nextPointOffset };
  }
}
