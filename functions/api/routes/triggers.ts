import type { Context, Hono } from "hono";
import { z } from "zod";
import { rateLimitHeaders } from "../../core/limits/rate-limits.js";
import { presentedTriggerSecret, type RateLimitObserver } from "../../core/triggers/runs.js";
import {
  CreatedTriggerSchema,
  CreateTriggerSchema,
  FireTriggerSchema,
  RunAcceptedSchema,
  RunPageSchema,
  RunViewSchema,
  ToggleTriggerSchema,
  TriggerListItemSchema,
  TriggerViewSchema,
  UpdatedTriggerSchema,
  UpdateTriggerSchema,
} from "../../core/triggers/schemas.js";
import { bindingWindow } from "../../core/limits/counters.js";
import { bearer } from "../http/admission.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { queryInt, route } from "../http/route.js";
import { TRIGGER_RUN_ERRORS, TriggerIdParams } from "../http/route-parts.js";

const RunId = TriggerIdParams.extend({ run_id: z.string().min(1) });
const tag = "Triggers";

/**
 * The rate-limit headers on the response, whether the run was accepted or refused: the per-trigger
 * window's, or a fire's organization window when that binds first (fewer remaining, or refused).
 */
const observeLimit = (c: Context<ApiEnv>): RateLimitObserver => {
  let shown: number | null = null;
  return (result, nowMs, options) => {
    const remaining = bindingWindow(result.windows)?.remaining ?? Number.POSITIVE_INFINITY;
    if (options?.onlyIfBinding && result.allowed && shown !== null && remaining >= shown) return;
    shown = remaining;
    c.set("rateLimitHeaders", rateLimitHeaders(result, nowMs));
  };
};

/**
 * Trigger management needs an API key of the organization (the solver role in the trigger's workspace
 * is checked by the service); fire needs the trigger's own secret; run now a session or an API key.
 */
export function registerTriggerRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "triggers" | "triggerRuns">): void {
  const { triggers, triggerRuns } = deps;
  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers",
      operationId: "createTrigger",
      summary: "Create a trigger; its secret is in this response only",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", "not_found", "cron_schedule_limit_exceeded", "trigger_limit_exceeded"],
      body: CreateTriggerSchema,
      responses: {
        201: { description: "The trigger with trigger_secret (plaintext, once).", schema: CreatedTriggerSchema },
      },
    },
    async (c, input) => {
      const { view, secret, webhookSecret } = await triggers.create(input.principal, input.body);
      return c.json({ ...view, trigger_secret: secret, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) }, 201);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/triggers",
      operationId: "listTriggers",
      summary: "The organization's triggers, newest first",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      query: z.object({ document_id: z.string().min(1).optional() }),
      responses: { 200: { description: "An array of triggers.", schema: z.array(TriggerListItemSchema) } },
    },
    async (c, input) => c.json(await triggers.list(input.principal, input.query.document_id)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/triggers/:trigger_id",
      operationId: "getTrigger",
      summary: "One trigger",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: TriggerIdParams,
      responses: { 200: { description: "The trigger (never its secrets).", schema: TriggerViewSchema } },
    },
    async (c, input) => c.json(await triggers.view(input.principal, input.params.trigger_id)),
  );

  route(
    app,
    {
      method: "patch",
      path: "/api/v2/triggers/:trigger_id",
      operationId: "updateTrigger",
      summary: "Change a trigger (version_id is fixed)",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", "not_found", "cron_schedule_limit_exceeded"],
      params: TriggerIdParams,
      body: UpdateTriggerSchema,
      responses: {
        200: { description: "The trigger (with webhook_secret once, when one was generated).", schema: UpdatedTriggerSchema },
      },
    },
    async (c, input) => {
      const { view, webhookSecret } = await triggers.update(input.principal, input.params.trigger_id, input.body);
      return c.json({ ...view, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) });
    },
  );

  route(
    app,
    {
      method: "delete",
      path: "/api/v2/triggers/:trigger_id",
      operationId: "deleteTrigger",
      summary: "Delete a trigger and its run history",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", "not_found"],
      params: TriggerIdParams,
      responses: { 204: { description: "Deleted, with every run." } },
    },
    async (c, input) => {
      await triggers.delete(input.principal, input.params.trigger_id);
      return c.body(null, 204);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers/:trigger_id/toggle",
      operationId: "toggleTrigger",
      summary: "Enable or disable a trigger",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", "not_found"],
      params: TriggerIdParams,
      body: ToggleTriggerSchema,
      responses: { 200: { description: "The trigger.", schema: TriggerViewSchema } },
    },
    async (c, input) => c.json(await triggers.toggle(input.principal, input.params.trigger_id, { enabled: input.body.enabled })),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers/:trigger_id/fire",
      operationId: "fireTrigger",
      summary: "Queue a run, authenticated by the trigger's secret",
      tag,
      access: "trigger_secret",
      role: null,
      rateClass: "trigger",
      errors: ["unauthorized", ...TRIGGER_RUN_ERRORS],
      description:
        "The secret goes in Authorization: Bearer <trigger secret> (preferred) or the body's trigger_secret; it is compared in constant time. The run solves the pinned version's model, with the trigger's solver, then the overrides (an override naming a solver wins).",
      params: TriggerIdParams,
      body: FireTriggerSchema,
      responses: {
        202: { description: "Queued.", schema: RunAcceptedSchema },
      },
    },
    async (c, input) => {
      const secret = presentedTriggerSecret(bearer(c), input.body.trigger_secret);
      const run = await triggerRuns.fire(input.params.trigger_id, {
        presentedSecret: secret,
        overrideData: input.body.override_data ?? {},
        observe: observeLimit(c),
      });
      return c.json({ run_id: run.id, status: "queued" as const }, 202);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers/:trigger_id/run",
      operationId: "runTriggerNow",
      summary: "Run now with the trigger's own settings and override defaults",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", ...TRIGGER_RUN_ERRORS],
      description: "A session token or an API key, never the trigger secret; the solver role in the trigger's workspace.",
      params: TriggerIdParams,
      responses: {
        202: { description: "Pending.", schema: RunAcceptedSchema },
      },
    },
    async (c, input) => {
      const run = await triggerRuns.runNow(input.principal, input.params.trigger_id, observeLimit(c));
      return c.json({ run_id: run.id, status: "pending" as const }, 202);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/triggers/:trigger_id/runs",
      operationId: "listTriggerRuns",
      summary: "Run history, newest first",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: TriggerIdParams,
      query: z.object({ page: queryInt(1, 1, 1_000_000), page_size: queryInt(20, 1, 100) }),
      responses: { 200: { description: "One page of runs.", schema: RunPageSchema } },
    },
    async (c, input) =>
      c.json(await triggerRuns.page(input.principal, { triggerId: input.params.trigger_id, page: input.query.page, pageSize: input.query.page_size })),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/triggers/:trigger_id/runs/:run_id",
      operationId: "getTriggerRun",
      summary: "One run in full, with its webhook delivery attempts",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: RunId,
      responses: { 200: { description: "The run.", schema: RunViewSchema } },
    },
    async (c, input) => c.json(await triggerRuns.get(input.principal, input.params.trigger_id, input.params.run_id)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers/:trigger_id/runs/:run_id/rerun",
      operationId: "rerunTriggerRun",
      summary: "Queue a new run from an earlier run's override data",
      tag,
      access: "api_key",
      role: "viewer",
      rateClass: "organization",
      errors: ["forbidden", ...TRIGGER_RUN_ERRORS],
      description: "The input is checked first: a refusal answers 422 with its code and records no run.",
      params: RunId,
      responses: {
        202: { description: "Queued.", schema: RunAcceptedSchema },
      },
    },
    async (c, input) => {
      const run = await triggerRuns.rerun(input.principal, { triggerId: input.params.trigger_id, runId: input.params.run_id, observe: observeLimit(c) });
      return c.json({ run_id: run.id, status: "queued" as const }, 202);
    },
  );
}
