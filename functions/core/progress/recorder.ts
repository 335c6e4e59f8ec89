import { relativeGap } from "../solvers/gap.js";
import type { IncumbentEntry, ProgressPoint } from "./schemas.js";
import { type ChunkSummary, MAX_KEPT_LINES, MAX_LINE_CHARS, MAX_POINTS, type ProgressChunk } from "./store.js";

/** What the recorder writes to: the progress store, or a test's fake. */
export interface ProgressWriter {
  append(orgId: string, executionId: string, chunk: Omit<ProgressChunk, "blob" | "summary">): Promise<void>;
  summarise(orgId: string, summarised: ChunkSummary): Promise<void>;
}

export interface ProgressRecorderOptions {
  /** How often buffered lines and points are written (the solver never waits for a write). */
  flushMs?: number;
  /** Objective sense: which way an incumbent improves. */
  sense: "minimize" | "maximize";
  /** Milliseconds, monotonic; tests pass their own. */
  now?: () => number;
}

const DEFAULT_FLUSH_MS = 500;

/**
 * Buffers a solve's progress points and log lines in memory and writes them as one chunk per flush
 * (every `flushMs`, and at close), one write at a time, off the solver's path: `point` and `line` only
 * push to arrays. A failed write loses that chunk's content, never the solve.
 */
export class ProgressRecorder {
  private readonly started: number;
  private readonly now: () => number;
  private readonly sign: number;
  private pendingLines: string[] = [];
  private pendingPoints: ProgressPoint[] = [];
  private nextSeq = 0;
  private nextLine = 0;
  private nextPoint = 0;
  /** Chunks holding lines, oldest first, that may still be summarised (never the first). */
  private readonly lineChunks: Pick<ProgressChunk, "seq" | "first_line" | "line_count">[] = [];
  private keptLines = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly found: IncumbentEntry[] = [];
  private last: { primal: number | null; dual: number | null; nodes: number | null } | null = null;
  private closed = false;
  writeFailures = 0;

  private readonly orgId: string;
  private readonly executionId: string;

  constructor(
    private readonly writer: ProgressWriter,
    execution: { orgId: string; executionId: string },
    options: ProgressRecorderOptions,
  ) {
    this.orgId = execution.orgId;
    this.executionId = execution.executionId;
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.sign = options.sense === "maximize" ? -1 : 1;
    this.timer = setInterval(() => this.flush(), options.flushMs ?? DEFAULT_FLUSH_MS);
    this.timer.unref?.();
  }

  /** The sink a solver adapter reports to. */
  readonly sink = {
    point: (p: { incumbent: number | null; bound: number | null; nodes: number | null }) => this.point(p.incumbent, p.bound, p.nodes),
    line: (text: string) => this.line(text),
  };

  point(primal: number | null, dual: number | null, nodes: number | null): void {
    if (this.closed) return;
    if (this.last && this.last.primal === primal && this.last.dual === dual && this.last.nodes === nodes) return;
    const time = this.elapsed();
    const improved =
      primal !== null && Number.isFinite(primal) && (this.found.length === 0 || this.sign * primal < this.sign * this.found.at(-1)!.objective_value);
    if (improved) this.found.push({ time_seconds: time, objective_value: primal });
    // Past the bound only what changes the incumbent is kept.
    if (this.nextPoint + this.pendingPoints.length >= MAX_POINTS && !improved) return;
    this.last = { primal, dual, nodes };
    this.pendingPoints.push({ time_seconds: time, primal, dual, gap: relativeGap(primal, dual), nodes });
  }

  line(text: string): void {
    if (this.closed) return;
    this.pendingLines.push(text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)} […]` : text);
  }

  /** Every incumbent the solver reported, in order, each better than the one before. */
  incumbents(): IncumbentEntry[] {
    return [...this.found];
  }

  /** What the search had reached: its best incumbent and its last bound (a stopped race entrant's row, races/). */
  reached(): { incumbent: number | null; bound: number | null } {
    return { incumbent: this.found.at(-1)?.objective_value ?? null, bound: this.last?.dual ?? null };
  }

  /** Writes what is buffered and stops the timer; resolves once every write has ended. */
  async close(final?: { primal: number | null; dual: number | null }): Promise<void> {
    if (final && (final.primal !== null || final.dual !== null)) this.point(final.primal, final.dual, this.last?.nodes ?? null);
    this.closed = true;
    clearInterval(this.timer);
    this.flush();
    await this.writing;
  }

  private elapsed(): number {
    return Math.round(this.now() - this.started) / 1000;
  }

  private flush(): void {
    if (this.pendingLines.length === 0 && this.pendingPoints.length === 0) return;
    const chunk = {
      seq: this.nextSeq++,
      first_line: this.nextLine,
      line_count: this.pendingLines.length,
      lines: this.pendingLines,
      first_point: this.nextPoint,
      points: this.pendingPoints,
    };
    this.nextLine += chunk.line_count;
    this.nextPoint += chunk.points.length;
    this.pendingLines = [];
    this.pendingPoints = [];
    const toSummarise = this.summariseFor(chunk);
    this.writing = this.writing
      .then(async () => {
        await this.writer.append(this.orgId, this.executionId, chunk);
        for (const old of toSummarise) {
          await this.writer.summarise(this.orgId, {
            executionId: this.executionId,
            chunk: old,
            summary: `[lines ${old.first_line}–${old.first_line + old.line_count - 1} summarised: ${old.line_count} lines past the log's bound of ${MAX_KEPT_LINES}]`,
          });
        }
      })
      .catch(() => {
        this.writeFailures++;
      });
  }

  /** The oldest chunks (never the first) whose lines go so that at most MAX_KEPT_LINES stay. */
  private summariseFor(chunk: Pick<ProgressChunk, "seq" | "first_line" | "line_count">): Pick<ProgressChunk, "seq" | "first_line" | "line_count">[] {
    if (chunk.line_count === 0) return [];
    this.keptLines += chunk.line_count;
    if (chunk.seq > 0) this.lineChunks.push(chunk);
    const out: Pick<ProgressChunk, "seq" | "first_line" | "line_count">[] = [];
    while (this.keptLines > MAX_KEPT_LINES && this.lineChunks.length > 1) {
      const old = this.lineChunks.shift()!;
      this.keptLines -= old.line_count;
      out.push(old);
    }
    return out;
  }
}
