import { z } from "zod";
import { SCHEMA_NAMES } from "../schema-names.js";

/** The five comparable solvers; `auto`, which picks one of them per problem; `race`, which runs several at once. */
export const SOLVER_NAMES = ["scip", "highs", "cbc", "glpk", "jaos"] as const;
export type SolverName = (typeof SOLVER_NAMES)[number];
export const SolverNameSchema = z.enum(SOLVER_NAMES);
export const SolverChoiceSchema = z.enum(["auto", "race", ...SOLVER_NAMES]);
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
  /** Cost and right-hand-side ranging of an optimal LP (HiGHS); absent means false. */
  ranging?: boolean;
  /** An infeasible result then carries `infeasibility` (a conflicting subset); absent means false. */
  explainInfeasibility?: boolean;
  /**
   * integrality tolerance the solver should use; absent = its default. The verification gate sets it
   * when it repeats a solve whose integer values only passed within the default (a big-M "trickle"):
   * HiGHS `mip_feasibility_tolerance`, SCIP `numerics/feastol`, CBC `integerTolerance`, jaos its own;
   * glpsol has no such option (verification.ts, TOLERANCE_OPTIONS).
   */
  integralityTolerance?: number;
  /**
   * Row feasibility tolerance the solver should use; absent = its default. The gate sets it on the same
   * repeat when a point held a big-M row only within a tolerance relative to its big terms: HiGHS
   * `primal_feasibility_tolerance` (and `mip_feasibility_tolerance`), SCIP `numerics/feastol`, CBC
   * `primalTolerance`; jaos and glpsol have none.
   */
  feasibilityTolerance?: number;
  /**
   * A MIP start by variable name (settings.initial_solution, checked by warm-start.ts; only names of the
   * problem reach an adapter): native HiGHS, SCIP and CBC are given it, the others ignore it with a note.
   */
  initialSolution?: Record<string, number>;
  /** A starting basis for an LP by column and row name (settings.initial_basis): native HiGHS takes it. */
  initialBasis?: Basis;
}

/** HiGHS's basis statuses (HighsBasisStatus, in its order): at the lower bound, basic, at the upper, free at zero, nonbasic. */
export const BASIS_STATUSES = ["lower", "basic", "upper", "zero", "nonbasic"] as const;
const BasisStatusSchema = z.enum(BASIS_STATUSES);
export const BasisSchema = z.object({
  columns: z.record(z.string().min(1).max(255), BasisStatusSchema).describe("variable name → its status in the basis"),
  rows: z.record(z.string().min(1).max(255), BasisStatusSchema).describe("constraint name → its row's status in the basis"),
});
export type Basis = z.infer<typeof BasisSchema>;
export type BasisStatus = (typeof BASIS_STATUSES)[number];

/** What became of a MIP start (settings.initial_solution) in one solve. */
export const WarmStartSchema = z.object({
  accepted: z
    .boolean()
    .describe("the solver took the start as an incumbent (by its own log or API where it says; else: the start was feasible and was passed to it)"),
  objective_of_start: z
    .number()
    .nullable()
    .describe("the objective at the start, recomputed by the service's checker; null when the start breaks the model or leaves variables out"),
  note: z.string().optional().describe("why the start was not used, or was infeasible or partial"),
});
export type WarmStart = z.infer<typeof WarmStartSchema>;

const RangeSchema = z.object({
  down: z.number().nullable().describe("lowest value keeping the basis optimal; null = no limit"),
  up: z.number().nullable().describe("highest value keeping the basis optimal; null = no limit"),
});

export const RangingSchema = z.object({
  costs: z.record(z.string(), RangeSchema).describe("variable name → the range its objective coefficient may take with the optimal basis unchanged"),
  rhs: z.record(z.string(), RangeSchema).describe("constraint name → the range its active side may take with the optimal basis unchanged"),
});
export type Ranging = z.infer<typeof RangingSchema>;

/** Where a constraint or bound of the flat model came from in a JModel model: `capacity["north"]` is family capacity, index ["north"]. */
const ModelNameSchema = {
  family: z.string().optional().describe("JModel projects and documents: the constraint or variable family the flat name was generated from"),
  index: z
    .array(z.union([z.string(), z.number()]))
    .optional()
    .describe("JModel projects and documents: the index tuple within the family (empty for a scalar family)"),
};

/**
 * Whether the `infeasible` verdict an explanation is about holds: an explanation re-solves the model's
 * subsets anyway, so it says what those re-solves showed about the verdict itself (issue 24).
 */
export const VerdictCheckSchema = z.object({
  status: z
    .enum(["confirmed", "refuted", "unconfirmed"])
    .describe(
      "confirmed: a re-solve by `solver` proved a subset of the model (so the model) infeasible; refuted: `solver` found a point of the whole model that the independent checker accepts with its integer variables at exact integers — the model is feasible, the infeasible verdict is wrong, and the explanation names no members; unconfirmed: no re-solve decided within the explanation's time",
    ),
  solver: SolverNameSchema.nullable().describe("the solver whose re-solve decided (native HiGHS where the worker has it); null when none did"),
  message: z.string().describe("the same in words"),
});
export type VerdictCheck = z.infer<typeof VerdictCheckSchema>;

export const InfeasibilitySchema = z.object({
  constraints: z
    .array(z.object({ name: z.string().describe("the constraint's name in the solved model"), ...ModelNameSchema }))
    .describe("the constraints of the conflicting subset"),
  variable_bounds: z
    .array(
      z.object({
        variable: z.string().describe("the variable's name in the solved model"),
        bound: z.enum(["lower", "upper", "both"]).describe("which of its bounds take part in the conflict"),
        ...ModelNameSchema,
      }),
    )
    .describe("the variable bounds of the conflicting subset"),
  method: z
    .enum(["solver_iis", "deletion_filter"])
    .describe("solver_iis: the solver's own IIS (HiGHS, SCIP); deletion_filter: Incumbent's filter over re-solves"),
  irreducible: z
    .boolean()
    .describe(
      "true: the subset was proved infeasible and removing any one member makes the rest feasible; false: the time ran out first (the subset is infeasible but may hold more than needed), or it was not proved infeasible, or a re-solve found a point satisfying it",
    ),
  verified: z
    .boolean()
    .nullable()
    .describe(
      "the independent re-solve check: the subset is infeasible and, where irreducible and at most 50 members, each member removed leaves it feasible; null when not checked",
    ),
  verdict_check: VerdictCheckSchema.describe("whether the infeasible verdict itself holds, by the same re-solves"),
});
SCHEMA_NAMES.add(InfeasibilitySchema, { id: "Infeasibility" });
export type Infeasibility = z.infer<typeof InfeasibilitySchema>;

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
  ranging: z
    .union([RangingSchema, z.literal("unsupported")])
    .nullable()
    .optional()
    .describe('with settings.ranging, an LP solved to optimality by HiGHS; "unsupported" from the other solvers; null otherwise'),
  infeasibility: InfeasibilitySchema.nullable()
    .optional()
    .describe("with settings.explain_infeasibility, an infeasible result: a conflicting subset of constraints and bounds; null otherwise"),
  warm_start: WarmStartSchema.nullable()
    .optional()
    .describe("with settings.initial_solution: whether the solver took the start, and its objective; absent otherwise"),
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
