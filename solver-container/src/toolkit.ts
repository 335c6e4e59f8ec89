import type { Problem } from "../../functions/core/problem/schema.js";
import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import type { SolveSettings, SolverName } from "../../functions/core/solvers/types.js";
import type { AdapterResult } from "./adapters/types.js";

/** What a worker needs from the solvers: run one, and say which are here. */
export interface SolverToolkit {
  solve(name: SolverName, problem: Problem, settings: SolveSettings, options: { signal?: AbortSignal; killGraceSeconds: number }): Promise<AdapterResult>;
  /** Probes every solver (each adapter keeps what it learns), so a job does not pay for it. */
  inventory(): Promise<InventoryEntry[]>;
  /**
   * Stops every solver process group this worker started (CLI solvers, Node children, the Python
   * host's solves; each answers "cancelled") and the Python host. For SIGTERM and a lost lease.
   */
  close(): Promise<void>;
}
