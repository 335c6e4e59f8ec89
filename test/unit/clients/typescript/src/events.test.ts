import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readEventStream, StreamEndedError, type StreamMessage } from "../../../../../clients/typescript/src/events.js";

/** SSE text as the service writes it (hono's writeSSE): `event:` then `data:` and a blank line. */
const sse = (events: StreamMessage[]) => events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join("");

/** A response whose body is `text` in chunks of `chunk` characters (a stream the network cut up). */
function response(text: string, chunk: number): Response {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + chunk));
        at += chunk;
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

/** The events of a comparison's stream: per execution, progress points and log lines numbered from 0. */
const streamEvents = fc
  .array(fc.record({ execution: fc.constantFrom("exe_a", "exe_b"), kind: fc.constantFrom("progress", "log") }), { maxLength: 30 })
  .map((draws) => {
    const counters = new Map<string, number>();
    const events: StreamMessage[] = draws.map(({ execution, kind }) => {
      const key = `${execution}:${kind}`;
      const n = counters.get(key) ?? 0;
      counters.set(key, n + 1);
      const data = { execution_id: execution, solver_name: execution === "exe_a" ? "highs" : "cbc" };
      return kind === "progress"
        ? { event: "progress", data: { ...data, index: n, time_seconds: n, primal: null, dual: null, gap: null, nodes: null } }
        : { event: "log", data: { ...data, offset: n, line: `line ${n}` } };
    });
    return [...events, { event: "final", data: { id: "cmp_1", status: "completed" } }];
  });

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe("readEventStream", () => {
  it("yields every event once, in order, however often the connection drops and the service replays from the start", async () => {
    await fc.assert(
      fc.asyncProperty(streamEvents, fc.array(fc.nat(), { maxLength: 3 }), fc.integer({ min: 1, max: 64 }), async (events, cuts, chunk) => {
        const full = sse(events);
        let opened = 0;
        // The first connections end early (each after `cut` characters, before the final), the last one whole.
        const open = async () => {
          const cut = cuts[opened++];
          return response(cut === undefined ? full : full.slice(0, cut % full.lastIndexOf("event: final")), chunk);
        };
        const got = await collect(readEventStream(open, { reconnects: cuts.length, reconnectDelayMs: 0 }));
        expect(got).toEqual(events);
        expect(opened).toBe(cuts.length + 1);
      }),
      { numRuns: 150 },
    );
  });

  it("gives up after its reconnects when no stream reaches the final event", async () => {
    let opened = 0;
    const open = async () => {
      opened++;
      return response(sse([{ event: "log", data: { execution_id: "exe_a", solver_name: "highs", offset: 0, line: "x" } }]), 8);
    };
    const got: StreamMessage[] = [];
    await expect(
      (async () => {
        for await (const e of readEventStream(open, { reconnects: 2, reconnectDelayMs: 0 })) got.push(e);
      })(),
    ).rejects.toThrow(StreamEndedError);
    expect(opened).toBe(3);
    expect(got).toHaveLength(1);
  });

  it("answers a refused stream with the service's error before any event", async () => {
    const open = async () => new Response(JSON.stringify({ detail: "Execution not found.", error_code: "not_found", status_code: 404 }), { status: 404 });
    await expect(readEventStream(open).next()).rejects.toMatchObject({ status: 404, code: "not_found", message: "Execution not found." });
  });
});
