import { Worker } from "node:worker_threads";
import { AppError } from "../errors.js";
import { type ModelTask, type ModelTaskResult, reviveTaskError, runModelTask, type TaskError } from "./tasks.js";

/**
 * Where the work that builds problems from callers' input runs (tasks.ts). Two places:
 *
 *  - InlineModelWork: on the calling thread. A Lambda serves one request at a time per instance, and a
 *    worker process one job, so nothing else waits on that thread; the caps bound the work.
 *  - ThreadModelWork: on a model thread beside a long-lived server's event loop (the local stack), so
 *    /health and every other request are answered while a model compiles. Results come back as bytes
 *    that are moved, not copied; the thread has its own heap ceiling, and a task that outlives its
 *    deadline or the thread's memory is refused (503) and the thread replaced.
 */
export interface ModelWork {
  run(task: ModelTask): Promise<ModelTaskResult>;
  close(): Promise<void>;
}

export class InlineModelWork implements ModelWork {
  async run(task: ModelTask): Promise<ModelTaskResult> {
    return runModelTask(task);
  }
  async close(): Promise<void> {}
}

export interface ThreadModelWorkOptions {
  /** The built thread entry (thread.ts compiled to plain JavaScript). */
  script: string | URL;
  /** V8 old-space ceiling of the thread, MB. */
  heapMb: number;
  /** A task still running after this long is abandoned: the thread is terminated and replaced. */
  timeoutMs: number;
  /** Tasks waiting behind the running one, at most; past it a task is refused at once (503, retry shortly). */
  maxWaiting: number;
}

type Reply = { id: number; ok: true; result: ModelTaskResult } | { id: number; ok: false; error: TaskError };

interface Pending {
  id: number;
  task: ModelTask;
  resolve: (result: ModelTaskResult) => void;
  reject: (error: Error) => void;
}

/**
 * One model thread; tasks queue behind the one running (each is bounded by the caps and the deadline),
 * and the queue is bounded too, so a flood of models waits for no more than `maxWaiting` tasks' time.
 */
export class ThreadModelWork implements ModelWork {
  private worker: Worker | null = null;
  private readonly queue: Pending[] = [];
  private running: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ThreadModelWorkOptions) {}

  run(task: ModelTask): Promise<ModelTaskResult> {
    if (this.closed) return Promise.reject(new AppError("service_unavailable", "The model thread is stopping."));
    if (this.queue.length >= this.options.maxWaiting) {
      return Promise.reject(new AppError("service_unavailable", "The model thread is busy with other models; retry shortly."));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new AppError("service_unavailable", "The model thread is stopping."));
    this.fail(new AppError("service_unavailable", "The model thread is stopping."));
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.options.script, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
    // A server stopping need not wait for an idle model thread.
    worker.unref();
    worker.on("message", (reply: Reply) => this.settle(reply));
    worker.on("error", (error: Error & { code?: string }) => {
      const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      this.fail(
        new AppError(
          "service_unavailable",
          memory
            ? `Building the model needed more than the model thread's ${this.options.heapMb} MB; lower the model's size.`
            : `The model thread failed: ${error.message}`,
        ),
      );
    });
    worker.on("exit", () => {
      if (this.worker === worker) this.fail(new AppError("service_unavailable", "The model thread stopped; retry shortly."));
    });
    this.worker = worker;
    return worker;
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.running = next;
    this.timer = setTimeout(() => {
      this.fail(new AppError("service_unavailable", `Building the model took longer than ${Math.round(this.options.timeoutMs / 1000)} s; it was stopped.`));
    }, this.options.timeoutMs);
    this.thread().postMessage({ id: next.id, task: next.task });
  }

  private settle(reply: Reply): void {
    const running = this.running;
    if (!running || running.id !== reply.id) return;
    this.clear();
    if (reply.ok) running.resolve(reply.result);
    else running.reject(reviveTaskError(reply.error));
    this.pump();
  }

  /** The running task fails with `error`; the thread is terminated (a new one starts for the next task). */
  private fail(error: Error): void {
    const running = this.running;
    this.clear();
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
    running?.reject(error);
    this.pump();
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = null;
  }
}
