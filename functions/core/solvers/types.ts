import { z } from "zod";

/** The five comparable solvers, and `auto`, which picks one of them per problem class. */
export const SOLVER_NAMES = ["scip", "highs", "cbc", "glpk", "jaos"] as const;
export type SolverName = (typeof SOLVER_NAMES)[number];
export const SolverNameSchema = z.enum(SOLVER_NAMES);
export const SolverChoiceSchema = z.enum(["auto", ...SOLVER_NAMES]);
export type SolverChoice = z.infer<typeof SolverChoiceSchema>;

export const SOLVER_STATUSES = ["optimal", "feasible", "infeasible", "unbounded", "time_limit", "error"] as const;
export const SolverStatusSchema = z.enum(SOLVER_STATUSES);
export type SolverStatus = z.infer<typeof SolverStatusSchema>;

export const UNSUPPORTED_REASONS = ["integer_variables", "quadratic_terms", "not_registered", "not_available"] as const;
export type UnsupportedReason = (typeof UNSUPPORTED_REASONS)[number];

/** Settings that reach every solver identically. `threads` is set by the platform, never by a request. */
export interface SolveSettings {
  timeLimitSeconds: number;
  gapTolerance: number;
  threads: number;
  /** How many distinct solutions to hand back (1 = just the best); absent means 1. */
  solutionPoolSize?: number;
}

/**
 * What a solver's run measured: the spec's row fields, in one definition. The adapter's answer, the
 * solve response and a comparison row are all derived from it (solvers/result.ts maps between them).
 */
export const SolverMeasuresSchema = z.object({
  objective_value: z.number().nullable().describe("best objective found"),
  dual_bound: z.number().nullable().describe("best objective proved possible"),
  gap: z.number().nullable().describe("optimality gap; 0.0 means proven optimal"),
  nodes: z.number().nullable().describe("branch-and-bound nodes explored; counted differently by each solver"),
  iterations: z.number().nullable().describe("simplex iterations; counted differently by each solver"),
  wall_time_ms: z.number().nullable().describe("around the whole solver call, including building the model"),
  solver_version: z.string().nullable().describe("the build that produced the numbers"),
  error_message: z.string().nullable().describe("why there are no numbers"),
  duals: z
    .record(z.string(), z.number())
    .nullable()
    .optional()
    .describe(
      "LP solved to optimality: constraint name → dual value y, with c = Aᵀy + d; the change of the objective per unit increase of the row's active side (docs/decisions.md). Absent or null otherwise, and for MILPs",
    ),
  reduced_costs: z.record(z.string(), z.number()).nullable().optional().describe("variable name → reduced cost d = c − Aᵀy, the same convention as duals"),
  duals_verified: z
    .boolean()
    .nullable()
    .optional()
    .describe(
      "the independent checker's verdict on duals and reduced costs (dual feasibility, complementary slackness, strong duality within 1e-6 relative); null when there are none",
    ),
});

export type SolverMeasures = z.infer<typeof SolverMeasuresSchema>;

/** One solver's normalised answer. Field names are the spec's row fields. */
export const SolverResultSchema = SolverMeasuresSchema.extend({
  solver_status: SolverStatusSchema,
  solver_time_seconds: z.number().nullable().describe("the adapter's own measure of the search alone"),
  solution: z.record(z.string(), z.number()).nullable(),
});
export type SolverResult = z.infer<typeof SolverResultSchema>;

export function emptyResult(status: SolverStatus, error: string | null = null): SolverResult {
  return {
    solver_status: status,
    objective_value: null,
    dual_bound: null,
    gap: null,
    nodes: null,
    iterations: null,
    solver_time_seconds: null,
    wall_time_ms: null,
    solution: null,
    solver_version: null,
    error_message: error,
  };
}
