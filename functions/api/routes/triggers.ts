import type { Context, Hono } from "hono";
import { z } from "zod";
import { rateLimitHeaders } from "../../core/limits/rate-limits.js";
import { triggerView } from "../../core/triggers/service.js";
import {
  CreatedTriggerSchema,
  CreateTriggerSchema,
  FireTriggerSchema,
  RunAcceptedSchema,
  RunPageSchema,
  RunViewSchema,
  ToggleTriggerSchema,
  TriggerFireRefusalSchema,
  TriggerListItemSchema,
  TriggerViewSchema,
  UpdateTriggerSchema,
} from "../../core/triggers/schemas.js";
import type { ConsumeResult } from "../../core/store/counters.js";
import { bearer } from "../http/admission.js";
import type { ApiEnv } from "../http/context.js";
import { queryInt, requirePrincipal, route } from "../http/route.js";

const TriggerId = z.object({ trigger_id: z.string().min(1) });
const RunId = TriggerId.extend({ run_id: z.string().min(1) });
const tag = "Triggers";

/** The per-trigger window's headers on the response, whether the run was accepted or refused. */
const observeLimit = (c: Context<ApiEnv>) => (result: ConsumeResult, nowMs: number) => c.set("rateLimitHeaders", rateLimitHeaders(result, nowMs));

const runErrors = {
  404: { description: "not_found: no such trigger (or run) in the organization." },
  409: { description: "trigger_disabled: nothing queued." },
  429: { description: "rate_limit_exceeded: the per-trigger limit shared by fire, run now and rerun; nothing recorded." },
};

export function registerTriggerRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/triggers",
      operationId: "createTrigger",
      summary: "Create a trigger; its secret is in this response only",
      tag,
      access: "api_key",
      body: CreateTriggerSchema,
      responses: {
        201: { description: "The trigger with trigger_secret (plaintext, once).", schema: CreatedTriggerSchema },
        403: { description: "The solver role in the workspace is needed." },
        404: { description: "Document, version or workspace not found." },
        422: {
          description:
            "Validation failed: unknown solver_name, an override field the model lacks, a webhook_url without webhook_secret or to a refused destination.",
        },
      },
    },
    async (c, input) => {
      const { view, secret } = await c.get("deps").triggers.create(requirePrincipal(input), input.body);
      return c.json({ ...view, trigger_secret: secret }, 201);
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
      query: z.object({ document_id: z.string().min(1).optional() }),
      responses: { 200: { description: "An array of triggers.", schema: z.array(TriggerListItemSchema) } },
    },
    async (c, input) => c.json(await c.get("deps").triggers.list(requirePrincipal(input), input.query.document_id)),
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
      params: TriggerId,
      responses: { 200: { description: "The trigger (never its secrets).", schema: TriggerViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(triggerView(await c.get("deps").triggers.get(requirePrincipal(input), input.params.trigger_id))),
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
      params: TriggerId,
      body: UpdateTriggerSchema,
      responses: {
        200: { description: "The trigger.", schema: TriggerViewSchema },
        404: { description: "not_found" },
        422: { description: "Validation failed (version_id given, …)." },
      },
    },
    async (c, input) => c.json(await c.get("deps").triggers.update(requirePrincipal(input), input.params.trigger_id, input.body)),
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
      params: TriggerId,
      responses: { 204: { description: "Deleted, with every run." }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      await c.get("deps").triggers.delete(requirePrincipal(input), input.params.trigger_id);
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
      params: TriggerId,
      body: ToggleTriggerSchema,
      responses: { 200: { description: "The trigger.", schema: TriggerViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").triggers.toggle(requirePrincipal(input), input.params.trigger_id, input.body.enabled)),
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
      description:
        "The secret goes in Authorization: Bearer <trigger secret> (preferred) or the body's trigger_secret; it is compared in constant time. The run solves the pinned version's model, with the trigger's solver, then the overrides (an override naming a solver wins).",
      params: TriggerId,
      body: FireTriggerSchema,
      responses: {
        202: { description: "Queued.", schema: RunAcceptedSchema },
        401: { description: "Missing or invalid trigger secret; nothing recorded." },
        ...runErrors,
        422: { description: "Input refused: a validation_failed run is recorded and named in detail.run_id.", schema: TriggerFireRefusalSchema },
      },
    },
    async (c, input) => {
      const secret = bearer(c) ?? input.body.trigger_secret ?? null;
      const run = await c.get("deps").triggerRuns.fire(input.params.trigger_id, secret, input.body.override_data ?? {}, observeLimit(c));
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
      description: "A session token or an API key, never the trigger secret; the solver role in the trigger's workspace.",
      params: TriggerId,
      responses: {
        202: { description: "Pending.", schema: RunAcceptedSchema },
        401: { description: "Missing or invalid credential (a trigger secret is not one)." },
        403: { description: "The solver role in the trigger's workspace is needed." },
        ...runErrors,
        422: { description: "Input refused; no run recorded (run_id null).", schema: TriggerFireRefusalSchema },
      },
    },
    async (c, input) => {
      const run = await c.get("deps").triggerRuns.runNow(requirePrincipal(input), input.params.trigger_id, observeLimit(c));
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
      params: TriggerId,
      query: z.object({ page: queryInt(1, 1, 1_000_000), page_size: queryInt(20, 1, 100) }),
      responses: { 200: { description: "One page of runs.", schema: RunPageSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").triggerRuns.page(requirePrincipal(input), input.params.trigger_id, input.query.page, input.query.page_size)),
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
      params: RunId,
      responses: { 200: { description: "The run.", schema: RunViewSchema }, 404: { description: "not_found" } },
    },
    async (c, input) => c.json(await c.get("deps").triggerRuns.get(requirePrincipal(input), input.params.trigger_id, input.params.run_id)),
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
      description: "The input is checked first: a refusal answers 422 with its code and records no run.",
      params: RunId,
      responses: {
        202: { description: "Queued.", schema: RunAcceptedSchema },
        401: { description: "Missing or invalid API key (a trigger secret is not one)." },
        ...runErrors,
        422: { description: "Input refused; no run recorded.", schema: TriggerFireRefusalSchema },
      },
    },
    async (c, input) => {
      const run = await c.get("deps").triggerRuns.rerun(requirePrincipal(input), input.params.trigger_id, input.params.run_id, observeLimit(c));
      return c.json({ run_id: run.id, status: "queued" as const }, 202);
    },
  );
}
