import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { CapacityReached, type TaskLauncher } from "../../functions/dispatcher/task-launcher.js";
import type { JobMessage } from "../../functions/core/queue/messages.js";

/**
 * The local stack's stand-in for Fargate: each job runs in its own worker process, the command a task
 * runs (`node <worker build>/worker.js`, built by solver-container/build.ts as the image is). At most
 * `maxWorkers` run at once. A few workers are started ahead in `--standby` mode (solvers loaded, waiting
 * for a job on stdin), so a job does not wait for Node and Python to start — Fargate's own start-up in
 * AWS.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

interface Standby {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<boolean>;
}

export interface WorkerPoolOptions {
  /** The worker build's folder (holds worker.js). */
  build: string;
  maxWorkers: number;
  /** Workers kept started ahead (at most maxWorkers). */
  standby: number;
  env: Record<string, string | undefined>;
  onOutput?: (line: string) => void;
}

export class LocalWorkerPool implements TaskLauncher {
  private readonly standby: Standby[] = [];
  private readonly busy = new Set<ChildProcessWithoutNullStreams>();
  private stopped = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  start(): void {
    this.topUp();
  }

  /** Free slots: what the jobs poller may take from the queue now. */
  capacity(): number {
    return Math.max(0, this.options.maxWorkers - this.busy.size);
  }

  get running(): number {
    return this.busy.size;
  }

  /** Resolves when a started-ahead worker is ready for a job (benchmarks wait for the steady state). */
  async standbyReady(): Promise<void> {
    for (;;) {
      const first = this.standby[0];
      if (!first) {
        this.topUp();
        if (!this.standby[0]) return;
        continue;
      }
      if (await first.ready) return;
    }
  }

  async launch(job: JobMessage): Promise<void> {
    if (this.stopped) throw new Error("worker pool stopped");
    if (this.busy.size >= this.options.maxWorkers) throw new CapacityReached(this.busy.size, this.options.maxWorkers);
    let worker = this.standby.shift() ?? this.spawnWorker();
    if (!(await worker.ready)) worker = this.spawnWorker();
    if (!(await worker.ready)) throw new Error("a worker process failed to start");
    this.busy.add(worker.child);
    worker.child.once("exit", () => {
      this.busy.delete(worker.child);
      this.topUp();
    });
    worker.child.stdin.end(`${JSON.stringify(job)}\n`);
    this.topUp();
  }

  private topUp(): void {
    if (this.stopped) return;
    const wanted = Math.min(this.options.standby, this.options.maxWorkers);
    while (this.standby.length < wanted) this.standby.push(this.spawnWorker());
  }

  private spawnWorker(): Standby {
    const child = spawn(process.execPath, [path.join(this.options.build, "worker.js"), "--standby"], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.options.env } as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let resolveReady!: (ok: boolean) => void;
    const ready = new Promise<boolean>((r) => (resolveReady = r));
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        if (line.includes('"event":"ready"')) resolveReady(true);
        else if (line.trim()) this.options.onOutput?.(line);
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) =>
      chunk
        .split("\n")
        .filter((l) => l.trim())
        .forEach((l) => {
          this.options.onOutput?.(l);
        }),
    );
    child.once("exit", () => {
      resolveReady(false);
      const i = this.standby.findIndex((s) => s.child === child);
      if (i >= 0) this.standby.splice(i, 1);
    });
    child.once("error", () => resolveReady(false));
    return { child, ready };
  }

  /** Stops every worker: standby ones at once, busy ones after `graceMs` (their jobs are then swept). */
  async stop(graceMs = 2000): Promise<void> {
    this.stopped = true;
    const all = [...this.standby.map((s) => s.child), ...this.busy];
    this.standby.length = 0;
    await Promise.all(
      all.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
            child.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill("SIGTERM");
          }),
      ),
    );
  }
}
