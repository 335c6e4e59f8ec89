import os from "node:os";
import { randomBytes } from "node:crypto";
import type { ExecutionOutcome } from "../../functions/core/executions/store.js";
import type { Services } from "../../functions/core/services.js";
import type { SolverToolkit } from "./toolkit.js";

/** One worker process: the shared services, the solvers, and a name for leases. */
export interface WorkerRuntime {
  services: Services;
  toolkit: SolverToolkit;
  workerId: string;
  /** What the comparison records as `machine_note`: which machine ran it. */
  machineNote: string;
  /**
   * Called right after an execution's final write, with what it wrote when the write was this worker's
   * (conditional, so exactly the item's final state): the local stack's workers say so on their output,
   * and the stack wakes the plain solve waiting for it (functions/core/executions/final-signals.ts).
   */
  announceFinal?(executionId: string, outcome?: ExecutionOutcome): void;
}

export function workerIdentity(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export function describeMachine(configured: string): string {
  if (configured) return configured;
  const cpus = os.cpus();
  return `${os.hostname()}: ${cpus.length}× ${cpus[0]?.model?.trim() ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}
