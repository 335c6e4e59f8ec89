import { describe, expect, it } from "vitest";
import { freeWorkers, isServing, type WorkerHeartbeat } from "../../../../../functions/core/health/worker-heartbeats.js";

/** A race's count of free workers (issue 29) from the fleet's heartbeats: live, and no job in hand. */
const NOW = Date.parse("2026-11-28T12:00:00Z");
const HEARTBEAT_SECONDS = 60;

function worker(id: string, extra: Partial<WorkerHeartbeat> = {}): WorkerHeartbeat {
  return {
    worker_id: id,
    solvers: [{ name: "highs", available: true, version: "1.12.0", detail: null }],
    started_at: new Date(NOW - 3_600_000).toISOString(),
    heartbeat_at: new Date(NOW - 5_000).toISOString(),
    stopped_at: null,
    state: "idle",
    ...extra,
  };
}

describe("free workers", () => {
  it("counts the live workers without a job in hand", () => {
    const fleet = [worker("a"), worker("b", { state: "busy", state_since: new Date(NOW - 30_000).toISOString() }), worker("c")];
    expect(freeWorkers(fleet, NOW, HEARTBEAT_SECONDS)).toEqual({ live: 3, free: 2 });
  });

  it("counts a worker still warming up as free (it polls within seconds), but not as serving", () => {
    const starting = worker("a", { state: "starting", solvers: [] });
    expect(freeWorkers([starting], NOW, HEARTBEAT_SECONDS)).toEqual({ live: 1, free: 1 });
    expect(isServing(starting, NOW, HEARTBEAT_SECONDS)).toBe(false);
    expect(isServing(worker("b"), NOW, HEARTBEAT_SECONDS)).toBe(true);
  });

  it("leaves out stopped workers and those whose last beat is older than three intervals", () => {
    const fleet = [
      worker("stopped", { stopped_at: new Date(NOW - 1_000).toISOString() }),
      worker("silent", { heartbeat_at: new Date(NOW - 181_000).toISOString() }),
      worker("live"),
    ];
    expect(freeWorkers(fleet, NOW, HEARTBEAT_SECONDS)).toEqual({ live: 1, free: 1 });
  });

  it("reads an item written before the state was kept as idle", () => {
    const { state: _state, ...old } = worker("old");
    expect(freeWorkers([old], NOW, HEARTBEAT_SECONDS)).toEqual({ live: 1, free: 1 });
  });

  it("says when every live worker is busy, and when none is live at all", () => {
    expect(freeWorkers([worker("a", { state: "busy" }), worker("b", { state: "busy" })], NOW, HEARTBEAT_SECONDS)).toEqual({ live: 2, free: 0 });
    expect(freeWorkers([], NOW, HEARTBEAT_SECONDS)).toEqual({ live: 0, free: 0 });
  });
});
