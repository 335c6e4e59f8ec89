import { z } from "zod";
import { SolveResponseSchema } from "../executions/schemas.js";
import { PRIORITY_MAX, PRIORITY_MIN, PrioritySchema } from "../queue/priority.js";
import { RaceRequestSchema } from "../races/schemas.js";
import { SolverChoiceSchema } from "../solvers/types.js";
import { OverrideFieldSchema } from "./overrides.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/** Triggers and their runs: the spec's fields, plus a few of ours (marked "ours" in descriptions). */
const WebhookUrl = z.string().max(2048).describe("http(s) URL the run's outcome is POSTed to");
const WebhookSecret = z
  .string()
  .min(1)
  .max(256)
  .describe("signs deliveries (X-Incumbent-Signature and webhook-signature); write-only. Omitted with a webhook_url: one is generated and returned once");

export const ScheduleSchema = z
  .object({
    expression: z.string().min(1).max(256).describe("EventBridge Scheduler syntax: rate(5 minutes), cron(0 8 ? * MON-FRI *) or at(2026-12-01T09:00:00)"),
    timezone: z.string().min(1).max(64).default("UTC").describe("IANA time zone cron and at are read in (rate ignores it)"),
  })
  .describe("ours: runs the trigger on its own (source schedule); counts towards INSTANCE_MAX_CRON_SCHEDULES");
export type ScheduleInput = z.infer<typeof ScheduleSchema>;
/** Issue 29: each run of the trigger may start from the previous successful run's solution. */
export const TriggerWarmStartSchema = z
  .enum(["previous_run"])
  .nullable()
  .describe(
    "ours: previous_run — each run gives its solver the previous successful run's solution (by variable name, the names that still exist) as a MIP start; the run's result_data.warm_start says whether it was taken. null or omitted: none",
  );
/** Issue 29: the entrants of a run whose solver is `race` (the solve's `race`, one declaration). */
const TriggerRace = RaceRequestSchema.nullable().describe(
  "ours: with solver_name `race` (the trigger's, its version's or a fire's solver_name override), who runs: {solvers: [...]}, each a solver this server has (a fire answers trigger.solver_unavailable otherwise). A fire may name others through an override field `race` of type object. null or omitted: every available solver that supports the model's class",
);
const TriggerPriority = PrioritySchema.describe("ours: -100..100, default 0: the band every run of the trigger is queued on; above 0 admins and owners only");

export const CreateTriggerSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  document_id: z.string().min(1),
  version_id: z.string().min(1).describe("pinned for the trigger's life; an unnamed version is named so pruning keeps it"),
  override_schema: z.array(OverrideFieldSchema).max(100).default([]),
  solver_name: SolverChoiceSchema.nullable().optional().describe("omitted or null: the solver the pinned version names"),
  webhook_url: WebhookUrl.nullable().optional(),
  webhook_secret: WebhookSecret.optional(),
  workspace_id: z.string().min(1).optional().describe("the organization's default workspace when omitted"),
  priority: TriggerPriority,
  schedule: ScheduleSchema.nullable().optional().describe("ours: null or omitted: the trigger runs only when fired"),
  warm_start: TriggerWarmStartSchema.optional(),
  race: TriggerRace.optional(),
});
export type CreateTriggerInput = z.infer<typeof CreateTriggerSchema>;

export const UpdateTriggerSchema = z.object({
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).nullable().optional(),
  override_schema: z.array(OverrideFieldSchema).max(100).optional(),
  solver_name: SolverChoiceSchema.nullable().optional().describe("null returns to the pinned version's solver"),
  webhook_url: WebhookUrl.nullable().optional().describe("null stops deliveries, including retries still scheduled"),
  webhook_secret: WebhookSecret.optional(),
  version_id: z.unknown().optional().describe("cannot be changed: answers 422; create a new trigger"),
  document_id: z.unknown().optional().describe("cannot be changed: answers 422"),
  priority: z.number().int().min(PRIORITY_MIN).max(PRIORITY_MAX).optional().describe("ours: see the create body; above 0 admins and owners only"),
  schedule: ScheduleSchema.nullable().optional().describe("ours: a new schedule replaces the old one; null removes it"),
  warm_start: TriggerWarmStartSchema.optional().describe("ours: see the create body; null turns it off"),
  race: TriggerRace.optional().describe("ours: see the create body; null returns to every available solver"),
});
export type UpdateTriggerInput = z.infer<typeof UpdateTriggerSchema>;

export const ToggleTriggerSchema = z.object({ enabled: z.boolean() });

export const FireTriggerSchema = z.object({
  trigger_secret: z
    .string()
    .max(512)
    .optional()
    .describe("the trigger's secret, instead of Authorization: Bearer <trigger secret> (one of the two is required; a trigger secret in the header wins)"),
  override_data: z.record(z.string(), z.unknown()).optional().describe("values for fields declared in override_schema"),
});

export const TriggerViewSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  workspace_id: z.string(),
  created_by: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  document_id: z.string(),
  version_id: z.string(),
  solver_name: SolverChoiceSchema.nullable(),
  trigger_secret_prefix: z.string(),
  override_schema: z.array(OverrideFieldSchema),
  webhook_url: z.string().nullable(),
  has_webhook_secret: z.boolean().describe("ours: whether a webhook secret is set (the secret itself is never returned)"),
  is_enabled: z.boolean(),
  total_runs: z.number().int(),
  last_fired_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  priority: z.number().int().describe("ours: the band its runs are queued on"),
  schedule: z.object({ expression: z.string(), timezone: z.string() }).nullable().describe("ours: null when the trigger has no schedule"),
  next_fire_at: z.string().nullable().describe("ours: when the schedule fires next; null without a schedule, when disabled, or after a past at()"),
  warm_start: TriggerWarmStartSchema,
  race: TriggerRace,
});
SCHEMA_NAMES.add(TriggerViewSchema, { id: "Trigger" });
export type TriggerView = z.infer<typeof TriggerViewSchema>;
const GeneratedWebhookSecret = z
  .string()
  .optional()
  .describe("present only when the service generated the webhook secret (a webhook_url came without one): shown here once, never again");
export const CreatedTriggerSchema = TriggerViewSchema.extend({
  trigger_secret: z.string().describe("plaintext; in this response only, never again"),
  webhook_secret: GeneratedWebhookSecret,
});
export const UpdatedTriggerSchema = TriggerViewSchema.extend({ webhook_secret: GeneratedWebhookSecret });
export const TriggerListItemSchema = TriggerViewSchema.pick({
  id: true,
  name: true,
  document_id: true,
  version_id: true,
  trigger_secret_prefix: true,
  is_enabled: true,
  total_runs: true,
  last_fired_at: true,
  created_at: true,
});

/** The spec's run statuses, and ours beside them (docs/decisions.md, "Runs"). */
export const SPEC_RUN_STATUSES = ["queued", "pending", "completed", "failed", "validation_failed"] as const;
export const RunStatusSchema = z
  .enum([...SPEC_RUN_STATUSES, "running"])
  .describe(
    "the spec's queued, pending, completed, failed, validation_failed; and running (ours: a worker holds the run) — treat an unknown status as not final",
  );
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const DeliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  attempted_at: z.string(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
  outcome: z.enum(["delivered", "failed", "refused"]),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const WebhookDeliveryViewSchema = z.object({
  delivery_id: z.string().describe("the webhook-id header of every attempt"),
  event: z.enum(["trigger.run.completed", "trigger.run.failed"]),
  status: z.enum(["pending", "delivered", "exhausted", "cancelled"]),
  attempts: z.array(DeliveryAttemptSchema),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  reason: z.string().nullable().describe("why an exhausted or cancelled delivery stopped"),
});

export const RunListItemSchema = z.object({
  id: z.string(),
  trigger_id: z.string(),
  status: RunStatusSchema,
  override_data: z.record(z.string(), z.unknown()),
  result_data: SolveResponseSchema.nullable().describe("the solve response once the run finished with a verdict"),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export const RunViewSchema = RunListItemSchema.extend({
  source: z.enum(["fire", "run_now", "rerun", "schedule"]).describe("schedule (ours): started by the trigger's schedule"),
  rerun_of: z.string().nullable(),
  solver_name: z.string().describe("the solver asked for (auto until the worker picks)"),
  execution_id: z.string().nullable(),
  error: z.string().nullable(),
  validation: z
    .object({ code: z.string(), params: z.record(z.string(), z.unknown()) })
    .nullable()
    .describe("why a validation_failed run was refused"),
  started_at: z.string().nullable(),
  webhook: WebhookDeliveryViewSchema.nullable().describe("the delivery of this run's outcome, every attempt recorded"),
});
SCHEMA_NAMES.add(RunViewSchema, { id: "TriggerRun" });
export const RunPageSchema = z.object({
  items: z.array(RunListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const RunAcceptedSchema = z.object({ run_id: z.string(), status: z.enum(["queued", "pending"]) });
SCHEMA_NAMES.add(RunAcceptedSchema, { id: "TriggerRunAccepted" });
export const TriggerFireRefusalSchema = z.object({
  detail: z.object({ error: z.string(), run_id: z.string().nullable() }),
  code: z.enum(["trigger.override_unknown_fields", "trigger.override_missing_required", "trigger.solver_unavailable"]),
  params: z.record(z.string(), z.unknown()),
  status_code: z.literal(422),
});
