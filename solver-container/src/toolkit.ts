import type { Problem } from "../../functions/core/problem/schema.js";
import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import type { SolveSettings, SolverName } from "../../functions/core/solvers/types.js";
import type { AdapterResult, ProgressSink } from "./adapters/types.js";

/** What a worker needs from the solvers: run one, and say which are here. */
export interface SolverToolkit {
  solve(
    name: SolverName,
    request: { problem: Problem; settings: SolveSettings; signal?: AbortSignal; killGraceSeconds: number; progress?: ProgressSink },
  ): Promise<AdapterResult>;
  /** Probes every solver (each adapter keeps what it learns), so a job does not pay for it. */
  inventory(): Promise<InventoryEntry[]>;
  /**
   * The worker is idle (a job has ended): start again what is kept ahead of the next solve (a jaos child,
   * a Python host that died), so that work does not compete with the job's own reporting. Resolves once
   * all of it is ready.
   */
  prepare(): Promise<void>;
  /**
   * Stops every solver process group this worker started (CLI solvers, Node children, the Python
   * host's solves; each answers "cancelled"), the Python host and what is kept warm. For SIGTERM and a lost lease.
   */
  close(): Promise<void>;
}
