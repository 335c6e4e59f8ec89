import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import type { ExecutionOutcome } from "../../functions/core/executions/store.js";
import type { TraceMarks } from "../../functions/core/trace/solve-trace.js";

/**
 * Solver workers on this machine: `count` long-lived processes, each the program a Fargate task of the
 * fleet runs (`node <worker build>/worker.js`, built by solver-container/build.ts as the image is),
 * polling the jobs queue its environment names — the local stack's fauxqs, LocalStack, or SQS. A
 * worker that exits is replaced, as the ECS service replaces a stopped task. `npm start` and
 * `npm run worker` both run their workers through this.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

export interface WorkerFleetOptions {
  /** The worker build's folder (holds worker.js). */
  build: string;
  count: number;
  env: Record<string, string | undefined>;
  /** Extra arguments for each worker (e.g. `--job …`). */
  args?: string[];
  /** Replace a worker that exits (a fleet); false for one-shot runs. */
  replace?: boolean;
  /** What the workers may take after SIGTERM (their WORKER_STOP_TIMEOUT_SECONDS); then SIGKILL. */
  stopTimeoutSeconds: number;
  onOutput?: (line: string) => void;
  /** An execution a worker has just written final, with what it wrote when the write was its own. */
  onFinal?: (executionId: string, outcome?: ExecutionOutcome) => void;
  /** A job's timestamps, printed by a worker running with SOLVE_TRACE=1. */
  onTrace?: (id: string, marks: TraceMarks) => void;
  onExit?: (pid: number, code: number | null, signal: NodeJS.Signals | null) => void;
  /**
   * Benchmarks only (`npm run bench -- race --pin`): the CPUs worker `index` (0 … count − 1; a replacement
   * keeps its index) may run on, in taskset's list form ("0", "2-3"), or null for any. Set with taskset
   * (util-linux) right after the process starts, before its warm-up starts its solvers' processes, which
   * inherit it. Absent: the operating system places the workers, as everywhere else.
   */
  cpuAffinity?: (index: number) => string | null;
}

interface Worker {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the worker first polls (false if it died before). */
  ready: Promise<boolean>;
  closed: Promise<void>;
  /** What it last announced: idle with its solvers warm, or holding a job. */
  state: "starting" | "idle" | "busy";
}

export class LocalWorkerFleet {
  private readonly workers = new Set<Worker>();
  private stopped = false;
  private restarts = 0;

  constructor(private readonly options: WorkerFleetOptions) {}

  start(): void {
    for (let i = 0; i < this.options.count; i++) this.spawnWorker(i);
  }

  /** How many workers run now. */
  get size(): number {
    return this.workers.size;
  }

  /** The workers' process ids. */
  pids(): number[] {
    return [...this.workers].map((w) => w.child.pid!).filter(Boolean);
  }

  /** Resolves when every running worker polls the queue (false if one died before it got there). */
  async ready(): Promise<boolean> {
    const all = await Promise.all([...this.workers].map((w) => w.ready));
    return all.every(Boolean);
  }

  /**
   * Resolves when every running worker is idle with its solvers warm (none holds a job, none is still
   * warming up after one): benchmarks wait for it, so a request meets the fleet as it is between jobs.
   */
  async idle(): Promise<void> {
    while ([...this.workers].some((w) => w.state !== "idle")) await new Promise((r) => setTimeout(r, 10));
  }

  /** Resolves when every worker has exited (one-shot runs, which are not replaced). */
  async exited(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.closed));
  }

  private spawnWorker(index: number): void {
    const child = spawn(process.execPath, [path.join(this.options.build, "worker.js"), "--announce-ready", ...(this.options.args ?? [])], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.options.env } as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end();
    this.pin(child, index);
    const startedAt = Date.now();
    let resolveReady!: (ok: boolean) => void;
    const worker: Worker = {
      child,
      ready: new Promise<boolean>((resolve) => (resolveReady = resolve)),
      closed: new Promise<void>((resolve) => child.once("close", () => resolve())),
      state: "starting",
    };
    this.workers.add(worker);
    forwardLines(child.stdout, (line) => {
      if (line.startsWith('{"event":"ready"')) {
        worker.state = "idle";
        resolveReady(true);
      } else if (line.startsWith('{"event":"busy"')) worker.state = "busy";
      else if (line.startsWith('{"event":"final"')) {
        const { id, outcome } = JSON.parse(line) as { id: string; outcome?: ExecutionOutcome };
        this.options.onFinal?.(id, outcome);
      } else if (line.startsWith('{"event":"trace"')) {
        const { id, marks } = JSON.parse(line) as { id: string; marks: TraceMarks };
        this.options.onTrace?.(id, marks);
      } else this.options.onOutput?.(line);
    });
    forwardLines(child.stderr, (line) => this.options.onOutput?.(line));
    child.once("error", (error) => {
      this.options.onOutput?.(`worker could not start: ${error.message}`);
      resolveReady(false);
    });
    child.once("close", (code, signal) => {
      resolveReady(false);
      this.workers.delete(worker);
      this.options.onExit?.(child.pid ?? 0, code, signal);
      if (this.stopped || this.options.replace === false) return;
      // A worker that keeps dying at start is replaced ever more slowly (at most every 10 s).
      const quick = Date.now() - startedAt < 5000;
      this.restarts = quick ? this.restarts + 1 : 0;
      setTimeout(() => !this.stopped && this.spawnWorker(index), quick ? Math.min(10_000, 250 * 2 ** this.restarts) : 0).unref();
    });
  }

  /**
   * Applies `cpuAffinity` to a worker just started: synchronously, so it holds before the worker's own
   * code runs (a Node process takes far longer to load than taskset to run), for all its threads (-a).
   */
  private pin(child: ChildProcessWithoutNullStreams, index: number): void {
    const cpus = this.options.cpuAffinity?.(index);
    if (!cpus || !child.pid) return;
    try {
      execFileSync("taskset", ["-a", "-p", "-c", cpus, String(child.pid)], { stdio: "ignore" });
    } catch (error) {
      this.options.onOutput?.(`worker ${child.pid} could not be pinned to CPUs ${cpus}: ${(error as Error).message}`);
    }
  }

  /** SIGTERM to every worker (each finishes or hands back its job), SIGKILL to any left after the stop timeout. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      [...this.workers].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill("SIGKILL"), (this.options.stopTimeoutSeconds + 2) * 1000);
            child.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill("SIGTERM");
          }),
      ),
    );
  }
}

function forwardLines(stream: NodeJS.ReadableStream, emit: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) emit(line);
      nl = buffered.indexOf("\n");
    }
  });
}
