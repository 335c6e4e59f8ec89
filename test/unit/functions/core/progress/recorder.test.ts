import { describe, expect, it } from "vitest";
import { ProgressRecorder, type ProgressWriter } from "../../../../../functions/core/progress/recorder.js";
import { MAX_KEPT_LINES, MAX_POINTS, type ProgressChunk } from "../../../../../functions/core/progress/store.js";

/** A writer that keeps chunks in memory, optionally slow, to watch the recorder's writes. */
function memoryWriter(delayMs = 0) {
  const chunks: Omit<ProgressChunk, "blob" | "summary">[] = [];
  const summarised: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const writer: ProgressWriter = {
    async append(_org, _id, chunk) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, delayMs));
      chunks.push(chunk);
      inFlight--;
    },
    async summarise(_org, { chunk }) {
      summarised.push(chunk.seq);
    },
  };
  return { writer, chunks, summarised, maxInFlight: () => maxInFlight };
}

describe("progress recorder", () => {
  it("buffers points and lines off the solver's path and writes them in order, one chunk per flush, one write at a time", async () => {
    let now = 0;
    const mem = memoryWriter(5);
    const rec = new ProgressRecorder(mem.writer, { orgId: "org", executionId: "exe" }, { sense: "minimize", flushMs: 10, now: () => now });
    rec.sink.line("banner");
    now = 1500;
    rec.sink.point({ incumbent: 10, bound: 2, nodes: 0 });
    await new Promise((r) => setTimeout(r, 30));
    now = 2500;
    rec.sink.point({ incumbent: 8, bound: 4, nodes: 100 });
    rec.sink.line("x".repeat(2000));
    await rec.close();
    expect(mem.maxInFlight()).toBe(1);
    const points = mem.chunks.flatMap((c) => c.points);
    expect(points).toEqual([
      { time_seconds: 1.5, primal: 10, dual: 2, gap: 0.8, nodes: 0 },
      { time_seconds: 2.5, primal: 8, dual: 4, gap: 0.5, nodes: 100 },
    ]);
    const lines = mem.chunks.flatMap((c) => c.lines ?? []);
    expect(lines[0]).toBe("banner");
    expect(lines[1]!.length).toBeLessThan(600);
    expect(mem.chunks.map((c) => c.seq)).toEqual(mem.chunks.map((_, i) => i));
    // Offsets are consecutive across chunks.
    for (let i = 1; i < mem.chunks.length; i++) {
      expect(mem.chunks[i]!.first_line).toBe(mem.chunks[i - 1]!.first_line + mem.chunks[i - 1]!.line_count);
      expect(mem.chunks[i]!.first_point).toBe(mem.chunks[i - 1]!.first_point + mem.chunks[i - 1]!.points.length);
    }
  });

  it("lists every improving incumbent with its time, in the objective's sense, and skips repeated points", async () => {
    let now = 0;
    const mem = memoryWriter();
    const rec = new ProgressRecorder(mem.writer, { orgId: "org", executionId: "exe" }, { sense: "maximize", flushMs: 1000, now: () => now });
    for (const [t, primal] of [
      [100, 5],
      [200, 5],
      [300, 4],
      [400, 9],
    ] as const) {
      now = t;
      rec.sink.point({ incumbent: primal, bound: 20, nodes: null });
    }
    await rec.close();
    expect(rec.incumbents()).toEqual([
      { time_seconds: 0.1, objective_value: 5 },
      { time_seconds: 0.4, objective_value: 9 },
    ]);
    expect(mem.chunks.flatMap((c) => c.points)).toHaveLength(3);
  });

  it("keeps at most MAX_POINTS points, and past that still every improving incumbent", async () => {
    const mem = memoryWriter();
    const rec = new ProgressRecorder(mem.writer, { orgId: "org", executionId: "exe" }, { sense: "minimize", flushMs: 60_000 });
    for (let i = 0; i < MAX_POINTS + 50; i++) rec.sink.point({ incumbent: 100, bound: i % 50, nodes: i });
    rec.sink.point({ incumbent: 99, bound: 1, nodes: 1 });
    await rec.close();
    const points = mem.chunks.flatMap((c) => c.points);
    expect(points).toHaveLength(MAX_POINTS + 1);
    expect(points.at(-1)!.primal).toBe(99);
  });

  it("summarises the oldest chunks after the first once more than MAX_KEPT_LINES lines were written", async () => {
    const mem = memoryWriter();
    const rec = new ProgressRecorder(mem.writer, { orgId: "org", executionId: "exe" }, { sense: "minimize", flushMs: 60_000 });
    const perChunk = MAX_KEPT_LINES / 4;
    for (let c = 0; c < 6; c++) {
      for (let i = 0; i < perChunk; i++) rec.sink.line(`chunk ${c} line ${i}`);
      (rec as unknown as { flush(): void }).flush();
    }
    await rec.close();
    expect(mem.chunks).toHaveLength(6);
    // 6 × ¼ of the bound: the two oldest after the banner chunk go.
    expect(mem.summarised).toEqual([1, 2]);
  });

  it("loses a chunk whose write failed, never the solve", async () => {
    const rec = new ProgressRecorder(
      {
        append: () => Promise.reject(new Error("throttled")),
        summarise: () => Promise.resolve(),
      },
      { orgId: "org", executionId: "exe" },
      { sense: "minimize", flushMs: 60_000 },
    );
    rec.sink.point({ incumbent: 1, bound: 0, nodes: 0 });
    await expect(rec.close()).resolves.toBeUndefined();
    expect(rec.writeFailures).toBe(1);
    expect(rec.incumbents()).toHaveLength(1);
  });
});
