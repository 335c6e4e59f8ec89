import type { Problem } from "../../../functions/core/problem/schema.js";
import type { Basis, SolveSettings, SolverName, SolverResult } from "../../../functions/core/solvers/types.js";
import type { VerdictCertificate } from "../../../functions/core/solvers/verification.js";
import type { StartUse } from "../../../functions/core/solvers/warm-start.js";

/**
 * The contract between the solver container's worker and one solver.
 *
 * Every adapter runs its solver in a child process (a CLI, a forked Python child, or a Node child for a
 * solver written in TypeScript), so the worker's kill switch can always stop it: at
 * `settings.timeLimitSeconds + context.killGraceSeconds` the child's process group gets SIGTERM, then
 * SIGKILL, and the adapter answers `time_limit` with the best incumbent and bound it saw streamed.
 */
export interface SolverAdapter {
  readonly name: SolverName;
  /** Is the solver installed here, and which build. Cheap enough to call at worker start. */
  probe(): Promise<ProbeResult>;
  /**
   * Solve one problem. Never throws for a solver failure: it answers `solver_status: "error"` with the
   * solver's own words in `error_message`. Rejects only for a bug in the adapter itself.
   */
  solve(problem: Problem, settings: SolveSettings, context: SolveContext): Promise<AdapterResult>;
  /**
   * Prepares for the next solve while the worker is idle (e.g. a process started ahead). A worker calls
   * it when it starts and whenever a job has ended; it does nothing when the adapter is ready already.
   * Resolves once the adapter is ready. `memoryMb` is the ceiling its solves will run under.
   */
  warm?(options?: { memoryMb?: number }): Promise<void>;
  /** Stops whatever the adapter keeps running between solves. */
  close?(): Promise<void>;
}

export interface ProbeResult {
  available: boolean;
  /** The string a result's `solver_version` carries, e.g. "CBC 2.10.8"; null when not available. */
  version: string | null;
  /** Extra build facts (git hash, build date) for the inventory, not for result rows. */
  build?: string;
  /** Why it is not available, or how it runs (e.g. which HiGHS build). */
  detail?: string;
}

export interface SolveContext {
  /** A private, existing directory for this solve's files; the caller removes it. */
  workDir: string;
  /** Cancels the solve: the child is killed and the result is `error` "cancelled". */
  signal?: AbortSignal;
  /** Seconds past the time limit before the kill switch fires. */
  killGraceSeconds: number;
  /** Memory ceiling of the solving process in MB (config SOLVER_MEMORY_MB); none when absent or 0. */
  memoryMb?: number;
  /** Where the search's progress and the solver's log lines go while it runs (the worker's recorder). */
  progress?: ProgressSink;
}

/**
 * Receives a running solve's progress. Both calls come from the solver's output handlers, so they
 * must return at once: the receiver buffers and writes elsewhere, never on the solver's path.
 */
export interface ProgressSink {
  /** The search's state now (objective sense of the problem); the receiver stamps the time. */
  point(progress: Progress): void;
  /** One line of the solver's own log, as it printed it. */
  line(text: string): void;
}

/**
 * The option values the solver itself reported back (read from its parameter store, or echoed in its
 * log), under the solver's own option names. Lets tests prove the settings arrived.
 */
export type AppliedSettings = Record<string, string | number | boolean>;

/** A result row plus what was applied. `SolverResultSchema.parse` strips the extra field for storage. */
export interface AdapterResult extends SolverResult {
  settings_applied: AppliedSettings | null;
  /**
   * With `settings.solutionPoolSize` above 1: distinct feasible solutions, best first, at most that many
   * (the first is `solution`); "unsupported" when this solver cannot give a pool. Absent for a pool of 1.
   */
  solution_pool?: PoolSolution[] | "unsupported";
  /**
   * What proved an `infeasible` or `unbounded` verdict, when the adapter checked it (certificates.ts): a
   * Farkas certificate, or a feasible point and an improving ray. Absent or null: the solver's word (or
   * a finished integer search), which the verification gate cross-checks on risky numerics.
   */
  certificate?: VerdictCertificate | null;
  /**
   * With `settings.initialSolution`: whether the start reached the solver and what the solver said of it.
   * Absent from adapters of solvers that take no MIP start (GLPK, jaos, HiGHS WebAssembly): the result
   * then notes the start was ignored (warm-start.ts).
   */
  start_use?: StartUse;
  /** With `settings.initialBasis` on an LP: whether native HiGHS took the basis. Absent from the others. */
  basis_use?: StartUse;
  /** An LP's optimal basis by name (native HiGHS), for a later solve's `initial_basis`. */
  basis?: Basis;
}

export interface PoolSolution {
  objective_value: number;
  solution: Record<string, number>;
}

/** What a solver prints while it runs, as far as the adapter can read it (objective sense of the problem). */
export interface Progress {
  incumbent: number | null;
  bound: number | null;
  nodes: number | null;
}

/**
 * A solver written in TypeScript (jaos, or HiGHS compiled to WebAssembly). It runs inside a Node child
 * (`node-child.ts`), never in the worker's own process, so the kill switch applies to it as to the others.
 * The engine reports progress through `report` and returns a finished result; `wall_time_ms` and
 * `settings_applied` may be left null (the parent fills the wall time).
 */
export interface TypeScriptEngine {
  /** e.g. "HiGHS 1.15.1 (wasm, npm highs 1.15.3)". */
  version(): Promise<string>;
  solve(problem: Problem, settings: SolveSettings, report: (progress: Progress) => void): Promise<AdapterResult>;
  /**
   * Runs the engine on small problems of its own in a child started ahead of its solve, so V8 has
   * compiled the hot code before the real problem arrives. Its results are thrown away. It stops early
   * once `requestArrived()` answers true (checked between its problems), so a job never waits for it.
   */
  warmUp?(requestArrived: () => boolean): Promise<void>;
}
