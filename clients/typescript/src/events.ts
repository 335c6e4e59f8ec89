import { EventSourceParserStream } from "eventsource-parser/stream";
import { IncumbentError } from "./errors.js";

/** What every progress stream carries: progress points and log lines named by execution, and one final. */
export interface StreamMessage {
  event: string;
  data: unknown;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /**
   * How many times a stream that ends before its `final` (a dropped connection, a proxy's timeout) is
   * opened again. The service replays a stream from its start; events already yielded are skipped.
   * Default 3.
   */
  reconnects?: number;
  /** The wait before the n-th reopening is n times this; default 500 ms. */
  reconnectDelayMs?: number;
}

/** A stream that kept ending before its final event, every time it was opened. */
export class StreamEndedError extends Error {
  override name = "StreamEndedError";
}

/** Opens the stream once: the response whose body is text/event-stream. */
export type OpenStream = (signal: AbortSignal | undefined) => Promise<Response>;

/** How far an execution's events have been yielded: a replayed stream skips up to here. */
interface Seen {
  index: number;
  offset: number;
}

function sourceOf(data: unknown): { executionId: string; index?: number; offset?: number } | null {
  if (!data || typeof data !== "object" || !("execution_id" in data) || typeof data.execution_id !== "string") return null;
  const d = data as { execution_id: string; index?: unknown; offset?: unknown };
  return { executionId: d.execution_id, index: typeof d.index === "number" ? d.index : undefined, offset: typeof d.offset === "number" ? d.offset : undefined };
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export { pause as abortablePause };

/**
 * The messages of a Server-Sent Events route as an async iterator, parsed with eventsource-parser,
 * ending after `final`. The caller's type `E` is the route's documented event union; each message's
 * data is the JSON the service wrote. Leaving the loop early (break, throw) closes the connection.
 */
export async function* readEventStream<E extends StreamMessage>(open: OpenStream, options: StreamOptions = {}): AsyncGenerator<E, void, undefined> {
  const seen = new Map<string, Seen>();
  const reconnects = options.reconnects ?? 3;
  for (let attempt = 0; ; attempt++) {
    const res = await open(options.signal);
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => "");
      throw new IncumbentError({ status: res.status, body: parseJson(text), requestId: res.headers.get("x-request-id") });
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    let dropped: unknown = null;
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (options.signal?.aborted) throw error;
          dropped = error;
          break;
        }
        if (chunk.done) break;
        const message = { event: chunk.value.event ?? "message", data: parseJson(chunk.value.data) } as E;
        if (message.event === "final") {
          yield message;
          return;
        }
        if (alreadyYielded(seen, message)) continue;
        yield message;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    if (attempt >= reconnects) {
      throw new StreamEndedError(`the event stream ended ${attempt + 1} times before its final event${dropped ? ` (${String(dropped)})` : ""}`);
    }
    await pause((options.reconnectDelayMs ?? 500) * (attempt + 1), options.signal);
  }
}

/** Records a progress or log event as yielded; true when a replay already yielded it. */
function alreadyYielded(seen: Map<string, Seen>, message: StreamMessage): boolean {
  const source = sourceOf(message.data);
  if (!source) return false;
  const mark = seen.get(source.executionId) ?? { index: -1, offset: -1 };
  seen.set(source.executionId, mark);
  if (message.event === "progress" && source.index !== undefined) {
    if (source.index <= mark.index) return true;
    mark.index = source.index;
  } else if (message.event === "log" && source.offset !== undefined) {
    if (source.offset <= mark.offset) return true;
    mark.offset = source.offset;
  }
  return false;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
