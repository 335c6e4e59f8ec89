/**
 * What jaos is given and what it answers, in its own terms. The problem is structural: any object of
 * this shape will do (Incumbent's canonical `Problem` is one), so the engine depends on no schema
 * library and no service code. The result's field names are those of a solver result row (snake case),
 * so a caller that reports them in that form maps nothing but the duals.
 */
import type { MipStats } from "./mip.js";
import type { PresolveStats } from "./presolve.js";

/** coef · var. */
export interface JaosTerm {
  readonly var: string;
  readonly coef: number;
}

export interface JaosVariable {
  readonly name: string;
  /** null: −∞. */
  readonly lb: number | null;
  /** null: +∞. */
  readonly ub: number | null;
  readonly type: "continuous" | "integer" | "binary";
}

/** lb ≤ Σ terms ≤ ub, null for a side that is absent. */
export interface JaosConstraint {
  readonly name: string;
  readonly terms: readonly JaosTerm[];
  readonly lb: number | null;
  readonly ub: number | null;
}

/** An LP or MILP by names: variable and constraint names are unique, every term names a variable. */
export interface JaosProblem {
  readonly sense: "minimize" | "maximize";
  readonly variables: readonly JaosVariable[];
  readonly objective: {
    readonly constant: number;
    readonly terms: readonly JaosTerm[];
    /** Quadratic terms of any shape: jaos cannot express them and answers `error` when there are any. */
    readonly quadratic?: readonly unknown[];
  };
  readonly constraints: readonly JaosConstraint[];
}

export type JaosStatus = "optimal" | "feasible" | "infeasible" | "unbounded" | "time_limit" | "error";

export interface JaosStats {
  presolve: PresolveStats;
  simplexIterations: number;
  nodes: number;
  mip?: MipStats;
  /** The optimality check of an LP's final basis: worst relative violations and cleanup rounds run. */
  verification?: {
    primal: number | null;
    dual: number | null;
    cleanupRounds: number;
    initial: { primal: number; dual: number } | null;
    /** Iterations of the run on the original model from the presolved optimum's basis (0 without presolve). */
    resolveIterations: number;
  };
}

export interface JaosResult {
  objective_value: number | null;
  dual_bound: number | null;
  gap: number | null;
  nodes: number | null;
  iterations: number | null;
  /** The search alone: presolve, simplex, branch and bound, the engine's own verification. */
  solver_time_seconds: number | null;
  /** Around the whole call, building the engine's model and naming the result included. */
  wall_time_ms: number | null;
  /** By variable name. */
  solution: Record<string, number> | null;
  solver_version: string | null;
  error_message: string | null;
  solver_status: JaosStatus;
  /**
   * An LP solved to verified optimality: each constraint's dual by name, for the problem in
   * minimisation form (a maximisation's duals are those of min −cᵀx). Absent otherwise.
   */
  row_duals?: Record<string, number>;
  stats: JaosStats;
}
