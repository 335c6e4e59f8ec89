import { isServing, type WorkerHeartbeat } from "./worker-heartbeats.js";
import type { ComponentStatus } from "./system.js";

/**
 * The health endpoint's solver component, judged from the fleet's own reports (worker-heartbeats.ts)
 * rather than by solving in the API: the Lambda carries no solver, and a solver that works in the API
 * says nothing about the workers that actually solve.
 *
 * - healthy: at least one live worker (heartbeat within three intervals, not stopped) reports an
 *   available solver; the message lists the workers and the solvers with versions.
 * - healthy, "idle": no live worker, but the stage may idle at zero (FLEET_MIN_WORKERS=0) and the last
 *   report listed available solvers. A job then starts a task (scale from zero), so solving is slower,
 *   not unavailable; the message says so and shows the last inventory.
 * - down: live workers report no available solver; or no live worker where one should run
 *   (FLEET_MIN_WORKERS ≥ 1); or no worker has ever reported.
 */
export interface FleetCheckSettings {
  heartbeatSeconds: number;
  minWorkers: number;
}

export interface SolverComponentVerdict {
  status: ComponentStatus;
  message: string;
}

function listSolvers(worker: WorkerHeartbeat): string {
  const available = worker.solvers.filter((s) => s.available);
  return available.length ? available.map((s) => (s.version ? `${s.name} ${s.version}` : s.name)).join(", ") : "none";
}

const hasSolver = (worker: WorkerHeartbeat) => worker.solvers.some((s) => s.available);

export function judgeSolverFleet(workers: WorkerHeartbeat[], nowMs: number, settings: FleetCheckSettings): SolverComponentVerdict {
  // A worker still warming up has no inventory yet: it counts once it serves (its first idle beat).
  const live = workers.filter((w) => isServing(w, nowMs, settings.heartbeatSeconds));
  const newest = [...workers].sort((a, b) => Date.parse(b.heartbeat_at) - Date.parse(a.heartbeat_at))[0];

  if (live.length > 0) {
    const serving = live.filter(hasSolver);
    if (serving.length === 0) return { status: "down", message: `${live.length} live worker(s) report no available solver` };
    return { status: "healthy", message: `${serving.length} live worker(s); solvers: ${listSolvers(serving[0]!)}` };
  }
  if (!newest) return { status: "down", message: "solver unavailable: no worker has reported" };
  const last = `last report ${newest.heartbeat_at}`;
  if (settings.minWorkers === 0 && hasSolver(newest)) {
    return { status: "healthy", message: `idle: no worker running, the next job starts one (${last}; solvers: ${listSolvers(newest)})` };
  }
  return { status: "down", message: `solver unavailable: no live worker (${last})` };
}
