import { isoTime } from "../clock.js";
import type { Config } from "../config.js";
import { AppError, type ValidationIssue } from "../errors.js";
import type { JobMessage } from "../queue/messages.js";
import type { Queues } from "../queue/sqs.js";
import { assign, buildUpdate, equals } from "../store/conditions.js";
import type { Table } from "../store/table.js";
import type { ScheduleInput } from "./schemas.js";
import { isTimeZone, nextFireTime, parseScheduleExpression, ScheduleExpressionError } from "./schedule-expression.js";
import type { TriggerRecord, TriggerSchedule } from "./store.js";
import { keys } from "../store/keys.js";

/**
 * Scheduled triggers. A trigger's schedule lives on the trigger (expression, time zone, and when it was
 * set); what fires it is a scheduler outside the API: in AWS one EventBridge Scheduler schedule per
 * trigger (schedules-aws.ts), locally the local stack's scheduler reading registry items in the table
 * (below). Either way a firing is one message on the trigger's priority band's jobs queue, the same
 * bytes from both, and the worker that takes it records a run with `source: "schedule"` and queues it
 * like a fired one (so its webhook is delivered like a fired run's).
 */
export interface TriggerSchedules {
  /** Creates or replaces the trigger's schedule (the trigger carries one and is enabled). */
  put(trigger: TriggerRecord): Promise<void>;
  /** Removes it; a schedule already gone is no error. */
  remove(trigger: Pick<TriggerRecord, "id" | "org_id">): Promise<void>;
}

/** What EventBridge Scheduler replaces, in a target's input, with the instant the schedule fires for. */
export const SCHEDULED_TIME_ATTRIBUTE = "<aws.scheduler.scheduled-time>";

/**
 * The message a firing puts on the jobs queue; `scheduledAt` names the firing (the slot's instant), so
 * the worker makes one run per slot however often the message is delivered.
 */
export function scheduleMessage(trigger: Pick<TriggerRecord, "id" | "org_id" | "priority">, scheduledAt: string): JobMessage {
  return {
    type: "trigger_schedule",
    id: trigger.id,
    org_id: trigger.org_id,
    trigger_id: trigger.id,
    priority: trigger.priority ?? 0,
    scheduled_at: scheduledAt,
  };
}

/** The schedule's refusals as 422 issues at `loc` (expression, then time zone). */
export function scheduleIssues(input: ScheduleInput, loc: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  try {
    parseScheduleExpression(input.expression);
  } catch (error) {
    if (!(error instanceof ScheduleExpressionError)) throw error;
    issues.push({ loc: [...loc, "expression"], msg: error.message, type: "value_error" });
  }
  if (!isTimeZone(input.timezone))
    issues.push({ loc: [...loc, "timezone"], msg: `unknown time zone "${input.timezone}" (an IANA name such as Europe/Amsterdam)`, type: "value_error" });
  return issues;
}

export function scheduleOf(input: ScheduleInput, nowMs: number): TriggerSchedule {
  return { expression: input.expression.trim(), timezone: input.timezone, anchor_at: isoTime(nowMs) };
}

/** When the trigger's schedule fires next after `nowMs` (ms); null without a schedule, disabled, or never again. */
export function nextFireMs(trigger: Pick<TriggerRecord, "schedule" | "is_enabled">, nowMs: number): number | null {
  const schedule = trigger.schedule;
  if (!schedule || !trigger.is_enabled) return null;
  return nextFireTime(parseScheduleExpression(schedule.expression), { timezone: schedule.timezone, afterMs: nowMs, anchorMs: Date.parse(schedule.anchor_at) });
}

/** 403 when one more schedule would pass INSTANCE_MAX_CRON_SCHEDULES (0 = no cap); `others` excludes the trigger changed. */
export function assertScheduleCap(config: Pick<Config, "instanceMaxCronSchedules">, others: Pick<TriggerRecord, "schedule">[]): void {
  const cap = config.instanceMaxCronSchedules;
  const schedules = others.filter((t) => t.schedule).length;
  if (cap > 0 && schedules >= cap) {
    throw new AppError(
      "cron_schedule_limit_exceeded",
      `The organization has ${schedules} scheduled triggers; this instance allows at most ${cap}. Remove a schedule (schedule: null) or delete a trigger first.`,
      { limit: cap, schedules },
    );
  }
}

// The local scheduler's registry ------------------------------------------------------------------

interface RegistryItem {
  pk: string;
  sk: string;
  org_id: string;
  trigger_id: string;
  priority: number;
  expression: string;
  timezone: string;
  anchor_ms: number;
  /** The instant fired last (the anchor before the first firing). */
  fired_ms: number;
}

/**
 * The local stand-in for EventBridge Scheduler: one registry item per scheduled trigger (across
 * organizations), which `fireDue` reads on each tick of the local stack's scheduler.
 */
export class TableSchedules implements TriggerSchedules {
  constructor(
    private readonly table: Table,
    private readonly queues: Pick<Queues, "sendJob">,
  ) {}

  async put(trigger: TriggerRecord): Promise<void> {
    const schedule = trigger.schedule!;
    const anchor = Date.parse(schedule.anchor_at);
    const item: RegistryItem = {
      ...keys.scheduleRegistry(trigger.id),
      org_id: trigger.org_id,
      trigger_id: trigger.id,
      priority: trigger.priority ?? 0,
      expression: schedule.expression,
      timezone: schedule.timezone,
      anchor_ms: anchor,
      fired_ms: anchor,
    };
    await this.table.put({ ...item });
  }

  async remove(trigger: Pick<TriggerRecord, "id">): Promise<void> {
    const key = keys.scheduleRegistry(trigger.id);
    await this.table.delete(key.pk, key.sk);
  }

  /**
   * Sends the message of every schedule due at `nowMs`. A schedule that missed several instants (the
   * stack was down) fires once; each firing is claimed with a conditional write first, so two
   * schedulers on one table never both fire it.
   */
  async fireDue(nowMs: number): Promise<string[]> {
    const items = await this.table.queryAll<RegistryItem>({
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": keys.scheduleRegistry.partition },
    });
    const fired: string[] = [];
    for (const item of items) {
      const due = nextFireTime(parseScheduleExpression(item.expression), { timezone: item.timezone, afterMs: item.fired_ms, anchorMs: item.anchor_ms });
      if (due === null || due > nowMs) continue;
      const claimed = await this.table.update({
        Key: { pk: item.pk, sk: item.sk },
        // Claimed only if no other scheduler fired it since this one read it.
        ...buildUpdate({ set: [assign("fired_ms", nowMs)], condition: equals("fired_ms", item.fired_ms) }),
      });
      if (!claimed) continue;
      await this.queues.sendJob(scheduleMessage({ id: item.trigger_id, org_id: item.org_id, priority: item.priority }, isoTime(due)));
      fired.push(item.trigger_id);
    }
    return fired;
  }
}
