import { describe, expect, it } from "vitest";
import type { WorkerBeat } from "../../../../functions/core/health/worker-heartbeats.js";
import { FleetHeartbeat } from "../../../../solver-container/src/fleet-heartbeat.js";
import type { WorkerRuntime } from "../../../../solver-container/src/runtime.js";

/**
 * The worker's heartbeat: written first thing (`starting`), then `idle` with its inventory after the
 * warm-up, and once per change of state (a job taken, a job done) — never a write more — in order.
 */
function runtime() {
  const writes: (WorkerBeat & { kind: "beat" | "stopped" })[] = [];
  let now = Date.parse("2026-11-28T12:00:00Z");
  const rt = {
    workerId: "w1",
    toolkit: { inventory: async () => [{ name: "highs", available: true, version: "1.12.0", detail: null }] },
    services: {
      clock: { now: () => now },
      config: { workerHeartbeatSeconds: 3600 },
      logger: { warn: () => undefined },
      workerHeartbeats: {
        beat: async (_id: string, beat: WorkerBeat) => {
          // A slow first write: the next one must still land after it.
          if (writes.length === 0) await new Promise((r) => setTimeout(r, 20));
          writes.push({ ...beat, kind: "beat" });
        },
        stopped: async (_id: string, beat: WorkerBeat) => void writes.push({ ...beat, kind: "stopped" }),
      },
    },
  } as unknown as WorkerRuntime;
  return { rt, writes, tick: (ms: number) => (now += ms) };
}

describe("the fleet heartbeat's state", () => {
  it("beats starting before the warm-up, idle after it, then once per change of state, in order", async () => {
    const { rt, writes, tick } = runtime();
    const heartbeat = new FleetHeartbeat(rt);
    void heartbeat.announceStarting();
    await heartbeat.start();
    tick(1000);
    void heartbeat.enter("busy");
    void heartbeat.enter("busy");
    tick(1000);
    await heartbeat.enter("idle");
    await heartbeat.stop();
    expect(writes.map((w) => [w.kind, w.state ?? null, w.solvers.length])).toEqual([
      ["beat", "starting", 0],
      ["beat", "idle", 1],
      ["beat", "busy", 1],
      ["beat", "idle", 1],
      ["stopped", null, 1],
    ]);
    expect(writes[3]!.stateSinceMs! - writes[2]!.stateSinceMs!).toBe(1000);
  });
});
