import type { BlobStore } from "../blob/blob-store.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { SolveResponse } from "../executions/schemas.js";
import type { ExecutionOutcome, ExecutionRecord, ExecutionStore } from "../executions/store.js";
import type { Logger } from "../logger.js";
import type { Notifications } from "../notifications/notifications.js";
import type { Problem } from "../problem/schema.js";
import type { ProgressWriter } from "../progress/recorder.js";
import type { InventoryEntry } from "../solvers/inventory.js";
import type { Basis, SolveSettings, SolverName } from "../solvers/types.js";
import type { GateInput } from "../solvers/verification.js";
import type { StartUse } from "../solvers/warm-start.js";
import type { IdentityStore } from "../identity/store.js";
import type { Leases } from "../store/leases.js";
import type { MetricsStore } from "../observability/metrics-store.js";
import type { RaceStorePort } from "../races/store.js";

/**
 * The ports a worker's job use cases (this folder) run against. The solver container builds them from
 * its runtime (solver-container/src/jobs/ports.ts); a unit test builds them from in-memory fakes. Each
 * store port names only the methods the use cases call, so a fake stays small.
 */

/** What a running solve reports: the search's state, and the solver's own log lines. */
export interface SolveProgressSink {
  point(progress: { incumbent: number | null; bound: number | null; nodes: number | null }): void;
  line(text: string): void;
}

/** A solver's answer as the jobs read it: a result row, its verdict's certificate, and a pool when one was asked for. */
export interface SolvedResult extends GateInput {
  /** Distinct feasible solutions, best first (settings.solutionPoolSize above 1), or "unsupported". */
  solution_pool?: { objective_value: number; solution: Record<string, number> }[] | "unsupported";
  /** With settings.initialSolution: what the adapter did with the start (absent: the solver takes none). */
  start_use?: StartUse;
  /** With settings.initialBasis on an LP: what the adapter did with the basis. */
  basis_use?: StartUse;
  /** An LP's optimal basis by name (native HiGHS): what a later solve's initial_basis takes. */
  basis?: Basis;
}

/** Runs one solver of this machine (the container passes its SolverToolkit), and lists them. */
export interface SolvePort {
  solve(
    name: SolverName,
    request: { problem: Problem; settings: SolveSettings; signal?: AbortSignal; killGraceSeconds: number; progress?: SolveProgressSink },
  ): Promise<SolvedResult>;
  inventory(): Promise<InventoryEntry[]>;
}

/** A lease renewal: true while the renewing worker still holds the work. */
export type Renew = () => Promise<boolean>;

/** A lease being kept alive while a job runs (the container's LeaseKeeper). */
export interface HeldLease {
  /** Aborts when a renewal finds the job's lease gone (swept, handed back): the solve then stops. */
  readonly signal: AbortSignal;
  /** Renews an execution started for the job together with the job's own lease; null stops it. */
  holdAlso(renew: Renew | null): void;
  stop(): void;
}

/** Starts keeping a job's lease alive with `renew` (every third of the lease, in the container). */
export interface LeasePort {
  keep(renew: Renew): HeldLease;
}

/** The execution store as the jobs use it. */
export type ExecutionStorePort = Pick<ExecutionStore, "acquire" | "finalizeHeld" | "get" | "createRunning"> & {
  leases: Pick<Leases, "renew" | "leaseOf">;
};

/** Every job's ports: who runs it, with which solvers, clock, lease keeping and stores. */
export interface JobPorts {
  /** The name this worker holds leases under. */
  workerId: string;
  config: Pick<Config, "jobLeaseSeconds" | "killGraceSeconds" | "inlinePayloadMaxBytes">;
  clock: Clock;
  logger: Logger;
  solver: SolvePort;
  lease: LeasePort;
  blobs: BlobStore;
  executionStore: ExecutionStorePort;
  /** Where a solve's progress chunks are written (the progress store). */
  progress: ProgressWriter;
  metricsStore: Pick<MetricsStore, "addTotals">;
  identity: Pick<IdentityStore, "getOrganization">;
  notifications: Pick<Notifications, "notify">;
  /** A race's writes (races/): an execution of origin `race` is an entrant; absent: entrants run as plain executions. */
  races?: RaceStorePort;
  /** Called when a race this worker settled ends (races/settle.ts): a trigger run's race completes its run. */
  raceEnded?(race: ExecutionRecord, answer: SolveResponse | null): Promise<void>;
  /**
   * Called right after an execution's final write, with what it wrote when the write was this worker's
   * (the local stack wakes a plain solve waiting for it); absent: nobody listens.
   */
  announceFinal?(executionId: string, outcome?: ExecutionOutcome): void;
}

/** The lease of a job, in milliseconds. */
export const leaseMsOf = (ports: Pick<JobPorts, "config">): number => ports.config.jobLeaseSeconds * 1000;
