import { z } from "zod";
import { NumericsSchema } from "../problem/numerics.js";
import { ProblemSchema } from "../problem/schema.js";
import { PrioritySchema } from "../queue/priority.js";
import { SettingsRequestSchema, SettingsSchema } from "../solvers/settings.js";
import { SolverMeasuresSchema, SolverResultSchema, SolverStatusSchema, UNSUPPORTED_REASONS } from "../solvers/types.js";
import { VerificationSchema } from "../solvers/verification-schema.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/** Shapes of the spec's Solver comparison endpoints and resources (Comparison, Row, Agreement, Matrix). */
const SolverNames = z
  .array(z.string().min(1).max(50))
  .min(1)
  .max(8)
  .refine((names) => new Set(names).size === names.length, { message: "each solver may be named once" })
  .describe("1 to 8 names as GET /api/v2/solvers/available lists them, run in this order");

export const CompareRequestSchema = z
  .object({
    solver_names: SolverNames,
    problem: ProblemSchema.optional().describe("inline problem, the same shape the plain solve takes"),
    project_id: z.string().min(1).optional(),
    version_id: z.string().min(1).optional().describe("a committed version of project_id; the draft when omitted"),
    uploaded_filename: z.string().max(255).optional().describe("shown in the header only"),
    settings: SettingsRequestSchema.optional(),
    priority: PrioritySchema,
  })
  .superRefine((b, ctx) => {
    if ((b.problem === undefined) === (b.project_id === undefined)) {
      ctx.addIssue({ code: "custom", path: ["problem"], message: "give exactly one of problem and project_id" });
    }
    if (b.version_id !== undefined && b.project_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["version_id"], message: "version_id needs project_id" });
    }
  });
export type CompareRequest = z.infer<typeof CompareRequestSchema>;

export const RowStatusSchema = z.enum(["pending", "running", "completed", "failed", "cancelled"]);
export type RowStatus = z.infer<typeof RowStatusSchema>;

export const RowSchema = SolverMeasuresSchema.extend({
  solver_name: z.string(),
  execution_id: z.string().nullable().describe("readable through GET /api/v2/models/executions/{id}"),
  status: RowStatusSchema,
  solver_status: z
    .union([SolverStatusSchema, z.literal("unsupported")])
    .nullable()
    .describe(
      "the verdict, after the verification gate: `error` when the solver's point breaks the model or a verified point (its own cross-check's or another row's) refutes its infeasible verdict; what the solver itself said is `verification.claimed_status`",
    ),
  unsupported_reason: z.enum(UNSUPPORTED_REASONS).nullable(),
  verification: VerificationSchema.nullable()
    .optional()
    .describe("the verification gate's check of the row's answer, as in its execution's result; null before the row ran (absent on rows from before the gate)"),
  solver_time_seconds: SolverResultSchema.shape.solver_time_seconds,
  duals: SolverMeasuresSchema.shape.duals.describe(
    "constraint name → dual y with c = Aᵀy + d, as in the row's execution, when duals and reduced costs number at most 1000 together; a larger LP's are in the execution only",
  ),
  ranging: SolverMeasuresSchema.shape.ranging.describe(
    "as in the row's execution (HiGHS; \"unsupported\" from the others) while it has at most 1000 entries; a larger LP's is in the execution only",
  ),
  reduced_costs: SolverMeasuresSchema.shape.reduced_costs.describe("as duals: at most 1000 duals and reduced costs together, else in the row's execution"),
  infeasibility: SolverMeasuresSchema.shape.infeasibility.describe(
    "with settings.explain_infeasibility, an infeasible row: the conflicting subset, as in the row's execution, while it has at most 1000 constraints and bounds; a larger one is in the execution only",
  ),
});
SCHEMA_NAMES.add(RowSchema, { id: "ComparisonRow" });
export type Row = z.infer<typeof RowSchema>;

export const CONFLICT_KINDS = ["infeasible_refuted", "infeasible_vs_unbounded", "unbounded_vs_optimal", "bound_beaten", "optimal_objectives_differ"] as const;

export const ConflictSchema = z.object({
  kind: z
    .enum(CONFLICT_KINDS)
    .describe(
      "infeasible_refuted: a row says infeasible while others have verified points; infeasible_vs_unbounded; unbounded_vs_optimal: a row says unbounded while others proved an optimum at a verified point; bound_beaten: a row's dual bound (its optimum's objective) is beaten by another row's verified point; optimal_objectives_differ: optimal rows beyond the objective tolerance",
    ),
  solvers: z.array(z.string()).describe("the rows in conflict, the claiming one first"),
  message: z.string(),
});
export type Conflict = z.infer<typeof ConflictSchema>;

export const AgreementSchema = z.object({
  compared_solvers: z.array(z.string()),
  objectives_agree: z.boolean(),
  solutions_identical: z.boolean(),
  max_objective_delta: z.number(),
  alternative_optima: z.boolean(),
  objective_tolerance: z.number().describe("the absolute tolerance the objectives were compared with (docs/decisions.md)"),
  verdicts_agree: z
    .boolean()
    .optional()
    .describe("ours: no two rows' claims contradict each other (`conflicts` lists those that do; absent on comparisons from before it was kept)"),
  disagreeing_solvers: z.array(z.string()).optional().describe("ours: the rows named in any conflict"),
  conflicts: z
    .array(ConflictSchema)
    .optional()
    .describe("ours: each contradiction between the rows' claims, over every finished row (not only the compared ones)"),
});
SCHEMA_NAMES.add(AgreementSchema, { id: "Agreement" });
export type Agreement = z.infer<typeof AgreementSchema>;

export const ComparisonStatusSchema = z.enum(["pending", "running", "completed", "failed", "cancelled"]);
export type ComparisonStatus = z.infer<typeof ComparisonStatusSchema>;

export const ComparisonDetailSchema = z.object({
  id: z.string(),
  status: ComparisonStatusSchema,
  problem_name: z.string(),
  batch_id: z.string().nullable(),
  source_kind: z.enum(["inline_problem", "model_project"]),
  model_project_id: z.string().nullable(),
  model_project_version_id: z.string().nullable(),
  dataset_id: z.string().nullable(),
  uploaded_filename: z.string().nullable(),
  settings: SettingsSchema,
  priority: z.number().int().describe("ours: the priority it was queued with"),
  problem_class: z.string().nullable(),
  variable_count: z.number().int().nullable(),
  constraint_count: z.number().int().nullable(),
  machine_note: z.string().nullable(),
  results: z.array(RowSchema),
  agreement: AgreementSchema.nullable(),
  numerics: NumericsSchema.nullable().describe("ours: the problem's coefficient ranges and their warnings; null until it is compiled (a matrix row)"),
  error_message: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
});
SCHEMA_NAMES.add(ComparisonDetailSchema, { id: "ComparisonDetail" });
export type ComparisonDetail = z.infer<typeof ComparisonDetailSchema>;

export const ComparisonListItemSchema = z.object({
  id: z.string(),
  status: ComparisonStatusSchema,
  problem_name: z.string(),
  solver_names: z.array(z.string()),
  batch_id: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

// Matrix -------------------------------------------------------------------------------------------

export const MatrixRequestSchema = z.object({
  project_id: z.string().min(1),
  version_id: z.string().min(1).optional(),
  dataset_ids: z
    .array(z.string().min(1))
    .min(1)
    .max(12)
    .refine((ids) => new Set(ids).size === ids.length, { message: "each dataset may be named once" }),
  solver_names: SolverNames,
  settings: SettingsRequestSchema.optional(),
  priority: PrioritySchema.describe("ours: -100..100, default 0, for every row of the matrix; above 0 admins and owners only"),
});
export type MatrixRequest = z.infer<typeof MatrixRequestSchema>;

export const MatrixRowSchema = z.object({
  comparison_id: z.string(),
  dataset_id: z.string(),
  dataset_name: z.string(),
  status: ComparisonStatusSchema,
  problem_class: z.string().nullable(),
  variable_count: z.number().int().nullable(),
  constraint_count: z.number().int().nullable(),
  error_message: z.string().nullable(),
  results: z.array(RowSchema),
  numerics: NumericsSchema.nullable().describe("ours: the dataset's problem's coefficient ranges and their warnings; null until its worker compiled it"),
});
SCHEMA_NAMES.add(MatrixRowSchema, { id: "MatrixRow" });

export const MatrixDetailSchema = z.object({
  batch_id: z.string(),
  status: ComparisonStatusSchema.describe("derived from the rows, never stored"),
  project_id: z.string(),
  project_name: z.string(),
  model_project_version_id: z.string().nullable(),
  settings: SettingsSchema,
  solver_names: z.array(z.string()),
  machine_note: z.string().nullable(),
  quota_cost: z.number().int().describe("solves charged at launch: datasets × solvers that can run"),
  rows: z.array(MatrixRowSchema),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
SCHEMA_NAMES.add(MatrixDetailSchema, { id: "MatrixDetail" });
export type MatrixDetail = z.infer<typeof MatrixDetailSchema>;

export const MatrixListItemSchema = z.object({
  batch_id: z.string(),
  status: ComparisonStatusSchema,
  project_id: z.string(),
  project_name: z.string(),
  dataset_count: z.number().int(),
  solver_names: z.array(z.string()),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const MatrixListQuerySchema = ListQuerySchema.extend({ project_id: z.string().min(1).optional() });
