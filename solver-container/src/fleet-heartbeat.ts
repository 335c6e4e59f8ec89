import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import type { WorkerRuntime } from "./runtime.js";

/**
 * The worker's part of the API's health check: its solvers and a heartbeat time, written at start and
 * every WORKER_HEARTBEAT_SECONDS while it runs (a job in hand included: solves run in child processes,
 * so the timer is never starved), and marked stopped on a clean stop. A failed write is logged and
 * retried on the next beat; health then reads the worker as not live, which is the truth it can see.
 */
export class FleetHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAtMs = Date.now();
  /** Probed once: the image's solvers do not change while the worker runs. */
  private solvers: InventoryEntry[] = [];

  constructor(private readonly runtime: WorkerRuntime) {}

  async start(): Promise<void> {
    this.solvers = await this.runtime.toolkit.inventory();
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.runtime.services.config.workerHeartbeatSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const { services, workerId } = this.runtime;
    await services.workerHeartbeats
      .stopped(workerId, { solvers: this.solvers, startedAtMs: this.startedAtMs, nowMs: services.clock.now() })
      .catch((error) => services.logger.warn("marking the heartbeat stopped failed", { error }));
  }

  private async beat(): Promise<void> {
    const { services, workerId } = this.runtime;
    try {
      await services.workerHeartbeats.beat(workerId, { solvers: this.solvers, startedAtMs: this.startedAtMs, nowMs: services.clock.now() });
    } catch (error) {
      services.logger.warn("heartbeat failed", { error });
    }
  }
}
