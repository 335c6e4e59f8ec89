import type { WorkerBeat, WorkerState } from "../../functions/core/health/worker-heartbeats.js";
import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import type { WorkerRuntime } from "./runtime.js";

/**
 * The worker's part of the API's health check and of a race's count of free workers: its solvers, a
 * heartbeat time and its state (starting, idle, busy, and since when). The first beat is written at
 * once (`starting`, before the warm-up: a race launched meanwhile counts this worker, which polls
 * within seconds), then every WORKER_HEARTBEAT_SECONDS while it runs (a job in hand included: solves
 * run in child processes, so the timer is never starved), once more at each change of state — a job
 * taken, a job done, nothing else — and marked stopped on a clean stop. A failed write is logged and
 * retried on the next beat; health then reads the worker as not live, which is the truth it can see.
 */
export class FleetHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAtMs = Date.now();
  /** Probed once: the image's solvers do not change while the worker runs. */
  private solvers: InventoryEntry[] = [];
  private state: WorkerState = "starting";
  private stateSinceMs = Date.now();
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly runtime: WorkerRuntime) {}

  /** The first beat, before the warm-up: the worker exists and will poll, with no inventory yet. */
  async announceStarting(): Promise<void> {
    await this.beat();
  }

  /** After the warm-up: the inventory, `idle`, and the beats from now on. */
  async start(): Promise<void> {
    this.solvers = await this.runtime.toolkit.inventory();
    await this.enter("idle");
    this.timer = setInterval(() => void this.beat(), this.runtime.services.config.workerHeartbeatSeconds * 1000);
    this.timer.unref();
  }

  /** A job taken (`busy`) or done (`idle`): one beat with the new state, only when it changed. */
  async enter(state: WorkerState): Promise<void> {
    if (state === this.state) return;
    this.state = state;
    this.stateSinceMs = this.runtime.services.clock.now();
    await this.beat();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const { services, workerId } = this.runtime;
    await this.writing;
    await services.workerHeartbeats
      .stopped(workerId, { solvers: this.solvers, startedAtMs: this.startedAtMs, nowMs: services.clock.now() })
      .catch((error) => services.logger.warn("marking the heartbeat stopped failed", { error }));
  }

  /** Beats are written one after another, each with the state when it was asked for: the last write holds the last state. */
  private beat(): Promise<void> {
    const beat: WorkerBeat = {
      solvers: this.solvers,
      startedAtMs: this.startedAtMs,
      nowMs: this.runtime.services.clock.now(),
      state: this.state,
      stateSinceMs: this.stateSinceMs,
    };
    this.writing = this.writing.then(() => this.write(beat));
    return this.writing;
  }

  private async write(beat: WorkerBeat): Promise<void> {
    const { services, workerId } = this.runtime;
    try {
      await services.workerHeartbeats.beat(workerId, beat);
    } catch (error) {
      services.logger.warn("heartbeat failed", { error });
    }
  }
}
