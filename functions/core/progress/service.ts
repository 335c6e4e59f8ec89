import type { Principal } from "../auth/service.js";
import { notFound } from "../errors.js";
import type { Services } from "../services.js";
import type { ExecutionLog, ProgressStreamEvent } from "./schemas.js";
import { LOG_PAGE_LINES } from "./store.js";

const FINAL = new Set(["completed", "failed", "cancelled"]);

/** How often a stream looks for new progress (the worker flushes about this often too). */
export const STREAM_POLL_MS = 500;

interface Cursor {
  executionId: string;
  solverName: string;
  offset: number;
  pointOffset: number;
}

/**
 * Reading a running solve: its log by line offset (as NEOS's), and the same content as a stream of
 * events for an execution, or for every row of a comparison.
 */
export class ProgressService {
  constructor(private readonly deps: Pick<Services, "executionStore" | "progressStore" | "executions" | "comparisonStore" | "comparisons">) {}

  async log(principal: Principal, { executionId, offset, pointOffset }: { executionId: string; offset: number; pointOffset: number }): Promise<ExecutionLog> {
    const outcome = await this.deps.executionStore.outcome(principal.orgId, executionId);
    if (!outcome) throw notFound("Execution");
    // Status first: a final execution has every chunk written already (the worker writes them before it ends).
    const done = FINAL.has(outcome.status);
    const page = await this.deps.progressStore.read(principal.orgId, { executionId, offset, pointOffset });
    return {
      offset,
      next_offset: page.nextOffset,
      lines: page.lines,
      progress: page.points,
      next_progress_offset: page.nextPointOffset,
      done: done && page.lines.length < LOG_PAGE_LINES,
    };
  }

  /** The events of one execution until it ends. Throws not_found before the stream starts. */
  async executionEvents(principal: Principal, executionId: string, signal: AbortSignal): Promise<AsyncGenerator<ProgressStreamEvent>> {
    const record = await this.deps.executionStore.get(principal.orgId, executionId);
    if (!record) throw notFound("Execution");
    const cursor: Cursor = { executionId, solverName: record.solver_name, offset: 0, pointOffset: 0 };
    const self = this;
    return (async function* () {
      for (;;) {
        const outcome = await self.deps.executionStore.outcome(principal.orgId, executionId);
        const ended = outcome !== null && FINAL.has(outcome.status);
        const more = yield* self.advance(principal.orgId, cursor);
        if (more) continue;
        if (ended) {
          yield { event: "final", data: await self.deps.executions.view(principal, executionId) } as ProgressStreamEvent;
          return;
        }
        if (!(await pause(signal))) return;
      }
    })();
  }

  /** The events of every row of a comparison (each named by its solver) until the comparison ends. */
  async comparisonEvents(principal: Principal, comparisonId: string, signal: AbortSignal): Promise<AsyncGenerator<ProgressStreamEvent>> {
    if (!(await this.deps.comparisonStore.get(principal.orgId, comparisonId))) throw notFound("Comparison");
    const self = this;
    const cursors = new Map<string, Cursor>();
    return (async function* () {
      for (;;) {
        const record = await self.deps.comparisonStore.get(principal.orgId, comparisonId);
        if (!record) return;
        const ended = FINAL.has(record.status);
        let more = false;
        for (const row of record.results) {
          if (!row.execution_id) continue;
          let cursor = cursors.get(row.execution_id);
          if (!cursor) {
            cursor = { executionId: row.execution_id, solverName: row.solver_name, offset: 0, pointOffset: 0 };
            cursors.set(row.execution_id, cursor);
          }
          if (yield* self.advance(principal.orgId, cursor)) more = true;
        }
        if (more) continue;
        if (ended) {
          yield { event: "final", data: await self.deps.comparisons.get(principal, comparisonId) } as ProgressStreamEvent;
          return;
        }
        if (!(await pause(signal))) return;
      }
    })();
  }

  /** Yields what is new for one execution; true when a full page came back (read again at once). */
  private async *advance(orgId: string, cursor: Cursor): AsyncGenerator<ProgressStreamEvent, boolean> {
    const page = await this.deps.progressStore.read(orgId, { executionId: cursor.executionId, offset: cursor.offset, pointOffset: cursor.pointOffset });
    const source = { execution_id: cursor.executionId, solver_name: cursor.solverName };
    for (const [i, point] of page.points.entries()) {
      yield { event: "progress", data: { ...point, ...source, index: cursor.pointOffset + i } };
    }
    let offset = cursor.offset;
    for (const line of page.lines) yield { event: "log", data: { ...source, offset: offset++, line } };
    cursor.offset = page.nextOffset;
    cursor.pointOffset = page.nextPointOffset;
    return page.lines.length >= LOG_PAGE_LINES;
  }
}

/** Waits one poll interval; false when the client went away meanwhile. */
function pause(signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, STREAM_POLL_MS);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
