import { describe, expect, it } from "vitest";
import { judgeSolverFleet } from "../../../../../functions/core/health/solver-check.js";
import type { WorkerHeartbeat } from "../../../../../functions/core/health/worker-heartbeats.js";

const NOW = Date.parse("2026-01-01T12:00:00Z");
const settings = { heartbeatSeconds: 60, minWorkers: 1 };
const solvers = [
  { name: "highs", available: true, version: "1.15.1", detail: null },
  { name: "scip", available: false, version: null, detail: "not installed" },
];

function worker(secondsAgo: number, extra: Partial<WorkerHeartbeat> = {}): WorkerHeartbeat {
  return {
    worker_id: `w${secondsAgo}`,
    solvers,
    started_at: new Date(NOW - 3_600_000).toISOString(),
    heartbeat_at: new Date(NOW - secondsAgo * 1000).toISOString(),
    stopped_at: null,
    ...extra,
  };
}

describe("solver component from the fleet's heartbeats", () => {
  it("is healthy while a worker beat within three intervals, naming the available solvers with versions", () => {
    const verdict = judgeSolverFleet([worker(170)], NOW, settings);
    expect(verdict.status).toBe("healthy");
    expect(verdict.message).toBe("1 live worker(s); solvers: highs 1.15.1");
  });

  it("is down when the last beat is older than three intervals and the stage keeps workers", () => {
    const verdict = judgeSolverFleet([worker(181)], NOW, settings);
    expect(verdict.status).toBe("down");
    expect(verdict.message).toContain("no live worker");
  });

  it("is down when no worker ever reported, even on a stage that idles at zero", () => {
    expect(judgeSolverFleet([], NOW, { ...settings, minWorkers: 0 }).status).toBe("down");
  });

  it("is idle (healthy) with the last inventory when a stage that idles at zero has no live worker", () => {
    const verdict = judgeSolverFleet([worker(7200)], NOW, { ...settings, minWorkers: 0 });
    expect(verdict.status).toBe("healthy");
    expect(verdict.message).toMatch(/^idle: .*highs 1\.15\.1/);
  });

  it("does not count a worker that stopped cleanly as live", () => {
    const stopped = worker(5, { stopped_at: new Date(NOW - 5000).toISOString() });
    expect(judgeSolverFleet([stopped], NOW, settings).status).toBe("down");
  });

  it("is down when live workers report no available solver", () => {
    const none = worker(5, { solvers: [{ name: "highs", available: false, version: null, detail: "missing" }] });
    expect(judgeSolverFleet([none], NOW, { ...settings, minWorkers: 0 }).status).toBe("down");
  });
});

describe("a worker still warming up", () => {
  it("does not count as live for health until its first idle beat (it has no inventory yet)", () => {
    const starting = worker(5, { state: "starting", solvers: [] });
    expect(judgeSolverFleet([starting], NOW, settings).message).toContain("no live worker");
    expect(judgeSolverFleet([starting, worker(10, { state: "busy" })], NOW, settings).status).toBe("healthy");
  });
});
