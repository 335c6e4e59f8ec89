import { z } from "zod";
import { SOLVER_NAMES, SolverNameSchema, SolverStatusSchema } from "../solvers/types.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * The race contract (issue 29, Build 1): `solver_name: "race"` runs several solvers at once on separate
 * workers; the first answer that passes the verification gate with a proven verdict wins and the others
 * are stopped. A race is one execution (the one the caller gets); each entrant is an execution of its own
 * (origin `race`), so its progress streams through the routes every execution has.
 */
export const RaceRequestSchema = z
  .object({
    solvers: z
      .array(SolverNameSchema)
      .min(2)
      .max(SOLVER_NAMES.length)
      .refine((s) => new Set(s).size === s.length, "each solver at most once")
      .optional()
      .describe("the entrants; default every available solver that supports the model's class"),
  })
  .describe(
    "ours: with solver_name `race`, who runs (issue 29). Credits: one solve's credits per entrant (the calculator's quote × entrants), charged at launch, nothing refunded when the others are stopped; the daily quota counts one solve",
  );
SCHEMA_NAMES.add(RaceRequestSchema, { id: "RaceRequest" });
export type RaceRequest = z.infer<typeof RaceRequestSchema>;

export const RACE_ENTRANT_STATES = ["queued", "running", "won", "finished", "cancelled", "failed"] as const;
export const RaceEntrantStateSchema = z.enum(RACE_ENTRANT_STATES);
export type RaceEntrantState = z.infer<typeof RaceEntrantStateSchema>;

export const RaceEntrantSchema = z.object({
  solver: SolverNameSchema,
  execution_id: z.string().describe("the entrant's own execution: GET /api/v2/models/executions/{execution_id} and its /events stream show its progress"),
  state: RaceEntrantStateSchema.describe(
    "queued or running while the race goes on; then `won`, `finished` (ended on its own without winning), `cancelled` (stopped because another won) or `failed`",
  ),
  status: SolverStatusSchema.nullable().describe(
    "its verdict after the verification gate when it ended, or what it had reached when stopped; null while it runs",
  ),
  objective_value: z.number().nullable().describe("its last incumbent's objective (null without one)"),
  best_bound: z.number().nullable().describe("its last dual bound (null without one, or for an LP solver that reports none)"),
  time_seconds: z.number().nullable().describe("how long it ran, from its start to its end or stop; null before it started"),
});
export type RaceEntrant = z.infer<typeof RaceEntrantSchema>;

export const RaceViewSchema = z
  .object({
    winner: SolverNameSchema.nullable().describe("the solver whose answer the race returns; null while it runs or when every entrant failed"),
    decided_by: z
      .enum(["proven_verdict", "best_when_all_ended", "single_solver"])
      .nullable()
      .describe(
        "`proven_verdict`: the first verified optimal, infeasible or unbounded; `best_when_all_ended`: none proved one, so the best verified answer of those that ended; `single_solver`: the race degraded to one solver; null while it runs",
      ),
    degraded: z.boolean().describe("true when fewer than two workers were free and the race ran the best single choice instead"),
    note: z.string().nullable().describe("why it degraded, or anything else a user should know about how it ran"),
    entrants: z.array(RaceEntrantSchema),
  })
  .describe("ours: a race's entrants and who won (issue 29); absent when solver_name was not `race`");
SCHEMA_NAMES.add(RaceViewSchema, { id: "RaceView" });
export type RaceView = z.infer<typeof RaceViewSchema>;
