import { z } from "zod";
import { ProblemSchema } from "../problem/schema.js";
import { PrioritySchema } from "../queue/priority.js";
import { IncumbentSchema } from "../progress/schemas.js";
import { SettingsRequestSchema, SettingsSchema } from "../solvers/settings.js";
import { BasisSchema, SolverChoiceSchema, SolverResultSchema, SolverStatusSchema } from "../solvers/types.js";
import { NumericsSchema } from "../problem/numerics.js";
import { VerificationSchema } from "../solvers/verification-schema.js";
import { AutoChoiceSchema } from "../solvers/recommendation/schemas.js";
import { RaceRequestSchema, RaceViewSchema } from "../races/schemas.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/** Body of POST /api/v2/solve and /solve/async. */
export const SolveRequestSchema = z.object({
  problem: ProblemSchema,
  solver_name: SolverChoiceSchema.default("auto").describe("auto picks the best available solver for the problem class"),
  settings: SettingsRequestSchema.optional(),
  race: RaceRequestSchema.optional(),
  priority: PrioritySchema,
});
SCHEMA_NAMES.add(SolveRequestSchema, { id: "SolveRequest" });
export type SolveRequest = z.infer<typeof SolveRequestSchema>;

/**
 * The solve response: a plain solve's body, an execution's `result`, a trigger run's `result_data`
 * and a webhook's `data.result`. `status` is the verdict after the verification gate, `solver_status`
 * what the solver said (they differ when the gate found the answer wrong or unproved).
 */
export const SolveResponseSchema = SolverResultSchema.omit({ solver_time_seconds: true }).extend({
  execution_id: z.string(),
  status: SolverStatusSchema.describe(
    "the verdict, after the verification gate checked the answer against the model as submitted: `error` when the reported point breaks the model (the message names the row; the point stays in `solution`) or another solver's verified point refutes the verdict; `feasible` for a MILP optimum without its proof (dual bound within the requested gap)",
  ),
  solver_status: SolverStatusSchema.describe("what the solver itself answered"),
  objective_value: SolverResultSchema.shape.objective_value.describe(
    "the objective recomputed from `solution` (the solver's own is `verification.solver_objective`); without a point, the solver's",
  ),
  solution: SolverResultSchema.shape.solution.describe(
    "variable name → value; integer variables rounded to their integers where the rounded point passes the check, else as the solver gave them",
  ),
  verification: VerificationSchema.optional().describe("the verification gate's check of this answer (absent on results from before the gate)"),
  numerics: NumericsSchema.optional().describe("the model's coefficient ranges and their warnings (absent on results from before the gate)"),
  solve_time_seconds: SolverResultSchema.shape.solver_time_seconds.describe("the solver's own measure of its search"),
  solver_name: z.string(),
  incumbents: z
    .array(IncumbentSchema)
    .optional()
    .describe("every incumbent the solver reported while it ran, in order, each better than the one before (absent on results from before it was kept)"),
  solutions: z
    .array(z.object({ objective_value: z.number(), solution: z.record(z.string(), z.number()) }))
    .optional()
    .describe("with settings.solution_pool_size above 1: distinct feasible solutions, best first, at most that many; the first is `solution`'s"),
  basis: BasisSchema.optional().describe(
    "an LP solved to optimality by native HiGHS: its optimal basis by name, which a later solve of a model of the same shape may take as settings.initial_basis",
  ),
  solution_pool: z
    .literal("unsupported")
    .optional()
    .describe("with settings.solution_pool_size above 1, from a solver that cannot give a pool (no padded list)"),
  auto_choice: AutoChoiceSchema.optional(),
  race: RaceViewSchema.optional(),
});
SCHEMA_NAMES.add(SolveResponseSchema, { id: "SolveResponse" });
export type SolveResponse = z.infer<typeof SolveResponseSchema>;

export const ExecutionStatusSchema = z.enum(["queued", "running", "completed", "failed", "cancelled"]);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

export const ExecutionOriginSchema = z.object({
  kind: z.enum(["solve", "solve_async", "comparison", "trigger_run", "document_run", "explanation", "race"]),
  id: z.string().nullable(),
});
export type ExecutionOrigin = z.infer<typeof ExecutionOriginSchema>;

export const ExecutionViewSchema = z.object({
  id: z.string(),
  status: ExecutionStatusSchema,
  solver_name: z.string(),
  solver_requested: z.string(),
  problem_name: z.string(),
  problem_class: z.string(),
  variable_count: z.number().int(),
  constraint_count: z.number().int(),
  settings: SettingsSchema,
  credits_charged: z.number(),
  priority: z.number().int().describe("ours: the priority it was queued with (0 for work a trigger or comparison runs)"),
  origin: ExecutionOriginSchema,
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error_message: z.string().nullable(),
  explains_execution_id: z
    .string()
    .nullable()
    .describe("ours: on an explanation (POST …/explain), the infeasible execution it explains; its result carries `infeasibility`"),
  explanation_execution_id: z.string().nullable().describe("ours: on an explained execution, its latest explanation (POST …/explain)"),
  solved_by: z
    .enum(["worker", "api"])
    .nullable()
    .describe("ours: who solved it — a solver worker, or the API itself (a small plain solve no warm worker took); null until it has a result"),
  auto_choice: AutoChoiceSchema.nullable().describe("ours: with solver_name `auto`, how it chose (issue 29); null when a solver was named"),
  race: RaceViewSchema.nullable().describe("ours: with solver_name `race`, its entrants as they run and who won (issue 29); null otherwise"),
  result: SolveResponseSchema.nullable(),
});
SCHEMA_NAMES.add(ExecutionViewSchema, { id: "ExecutionView" });
export type ExecutionView = z.infer<typeof ExecutionViewSchema>;

export const AsyncSolveResponseSchema = z.object({ execution_id: z.string(), status: z.literal("queued") });
