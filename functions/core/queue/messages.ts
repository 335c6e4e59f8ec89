import { z } from "zod";

/**
 * What travels on the queues. A solve job names one unit of work a solver-container task runs:
 * an execution (plain/async solve, builder-document run), a comparison (all its rows, in order), or a
 * trigger run. The payload stays in DynamoDB; the message only points at it.
 */
export const JobMessageSchema = z.object({
  /** trigger_schedule: a trigger's schedule fired (id = the trigger); the worker records and queues its run. */
  type: z.enum(["execution", "comparison", "trigger_run", "trigger_schedule"]),
  id: z.string().min(1),
  org_id: z.string().min(1),
  /** Trigger runs are stored under their trigger. */
  trigger_id: z.string().optional(),
  /** Which band's queue carries it (queue/priority.ts); absent: 0. */
  priority: z.number().int().optional(),
  /**
   * trigger_schedule: the instant the schedule fired for (EventBridge Scheduler's scheduled time), so
   * a second delivery of the same firing makes no second run. Absent on messages of older schedules.
   */
  scheduled_at: z.string().optional(),
  /**
   * The organization's running slot the job was sent with (queue/fair-share.ts): the worker renews it
   * instead of looking for it. Absent: the worker finds or takes one.
   */
  slot: z.number().int().min(0).optional(),
});
export type JobMessage = z.infer<typeof JobMessageSchema>;

/** One webhook delivery attempt chain: a run's outcome to POST, retried on a schedule. */
export const WebhookMessageSchema = z.object({
  delivery_id: z.string(),
  trigger_id: z.string(),
  run_id: z.string(),
  org_id: z.string(),
  /** 1-based number of the attempt this message asks for. */
  attempt: z.number().int().min(1),
  /** When the attempt is due (ms); SQS delays are at most 15 minutes, so longer waits are chained. */
  due_at_ms: z.number(),
});
export type WebhookMessage = z.infer<typeof WebhookMessageSchema>;
