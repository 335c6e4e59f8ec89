import type { Services } from "../services.js";
import type { z } from "zod";
import { roleAtLeast } from "../auth/roles.js";
import type { Principal } from "../auth/service.js";
import { generateSecret, secretPrefix, sha256Hex } from "../auth/secrets.js";
import { isoTime } from "../clock.js";
import { deleteStoredBlob } from "../blob/blob-store.js";
import { AppError, forbidden, invalid, notFound, ValidationError, type ValidationIssue } from "../errors.js";
import { newId } from "../ids.js";
import { assertPriorityAllowed } from "../queue/priority.js";
import { webhookUrlProblem } from "../webhooks/destination.js";
import { generateWebhookSecret } from "../webhooks/signing.js";
import { overrideSchemaIssues, type OverrideField } from "./overrides.js";
import { assertScheduleCap, nextFireMs, scheduleIssues, scheduleOf } from "./schedules.js";
import type { CreateTriggerInput, ScheduleInput, TriggerListItemSchema, TriggerViewSchema, UpdateTriggerInput } from "./schemas.js";
import type { TriggerRecord } from "./store.js";

type TriggerView = z.infer<typeof TriggerViewSchema>;
type TriggerListItem = z.infer<typeof TriggerListItemSchema>;

/**
 * Trigger management (spec: Triggers). Reading needs membership of the organization; creating,
 * changing and deleting need the solver role in the trigger's workspace. Views are built field by
 * field from the record, so neither secret (nor the trigger secret's hash) can reach a response.
 */
export class TriggerService {
  constructor(
    private readonly deps: Pick<Services, "config" | "clock" | "triggerStore" | "documents" | "identity" | "auth" | "blobs" | "schedules" | "webhookSecrets">,
  ) {}

  async create(principal: Principal, input: CreateTriggerInput): Promise<{ view: TriggerView; secret: string; webhookSecret: string | null }> {
    const { triggerStore: store, documents, identity, clock } = this.deps;
    const org = await identity.getOrganization(principal.orgId);
    if (!org) throw notFound("Organization");
    const workspaceId = input.workspace_id ?? org.default_workspace_id;
    if (input.workspace_id && !(await identity.getWorkspace(principal.orgId, input.workspace_id))) throw notFound("Workspace");
    await this.assertCanChange(principal, workspaceId);
    assertPriorityAllowed(input.priority, principal.role);
    if (input.schedule) await this.checkSchedule(principal.orgId, null, input.schedule);
    await documents.get(principal, input.document_id);
    const version = await documents.findVersion(principal.orgId, input.document_id, input.version_id);
    if (!version) throw notFound("Version");
    await this.checkOverrideSchema(principal.orgId, { documentId: version.document_id, versionId: version.id, fields: input.override_schema });
    const webhookUrl = input.webhook_url ?? null;
    this.checkWebhookUrl(webhookUrl, { urlChanged: true });
    const generated = webhookUrl !== null && !input.webhook_secret ? generateWebhookSecret() : null;
    // Name the pinned version before the trigger exists, so retention pruning can never take it.
    if (!(await documents.promote(version))) throw notFound("Version");

    const now = clock.now();
    const secret = generateSecret("trg");
    const record: TriggerRecord = {
      id: newId("trg", now),
      org_id: principal.orgId,
      workspace_id: workspaceId,
      created_by: principal.userId,
      name: input.name,
      description: input.description ?? null,
      document_id: input.document_id,
      version_id: input.version_id,
      solver_name: input.solver_name ?? null,
      secret_hash: sha256Hex(secret),
      secret_prefix: secretPrefix(secret),
      override_schema: input.override_schema,
      webhook_url: input.webhook_url ?? null,
      webhook_secret: null,
      is_enabled: true,
      total_runs: 0,
      last_fired_at: null,
      created_at: isoTime(now),
      updated_at: isoTime(now),
      priority: input.priority,
      schedule: input.schedule ? scheduleOf(input.schedule, now) : null,
      warm_start: input.warm_start ?? null,
      race: input.race ?? null,
    };
    const webhookSecret = input.webhook_secret ?? generated;
    // Sealed before it reaches the table (webhooks/secret-box.ts); the response shows a generated one once, from memory.
    if (webhookSecret) record.webhook_secret = await this.deps.webhookSecrets.seal(webhookSecret, record.id);
    await this.assertTriggerCap(principal.orgId, 0);
    await store.createTrigger(record);
    // Counted again with the new trigger in: two creations racing past the first check both see the
    // other, and the one over the cap is taken back (exact without a transaction).
    await this.assertTriggerCap(principal.orgId, 1).catch(async (error: unknown) => {
      await store.deleteTrigger(record.org_id, record.id);
      throw error;
    });
    if (record.schedule) {
      // A trigger whose schedule cannot be set is not kept: the caller retries the whole create.
      await this.deps.schedules.put(record).catch(async (error: unknown) => {
        await store.deleteTrigger(record.org_id, record.id);
        throw error;
      });
    }
    return { view: triggerView(record, now), secret, webhookSecret: generated };
  }

  /**
   * 403 `trigger_limit_exceeded` when the organization has more than ORG_MAX_TRIGGERS − `added` triggers
   * (0 = no cap): before a creation (`added` 0: one more must fit), and after it (`added` 1: the new one
   * is counted).
   */
  private async assertTriggerCap(orgId: string, added: 0 | 1): Promise<void> {
    const cap = this.deps.config.orgMaxTriggers;
    if (cap <= 0) return;
    const triggers = await this.deps.triggerStore.countTriggers(orgId);
    if (triggers - added >= cap) {
      throw new AppError(
        "trigger_limit_exceeded",
        `The organization has ${triggers - added} triggers; this instance allows at most ${cap}. Delete one first.`,
        {
          limit: cap,
          triggers: triggers - added,
        },
      );
    }
  }

  async list(principal: Principal, documentId: string | undefined): Promise<TriggerListItem[]> {
    const all = await this.deps.triggerStore.listTriggers(principal.orgId);
    return all
      .filter((t) => documentId === undefined || t.document_id === documentId)
      .map((t) => ({
        id: t.id,
        name: t.name,
        document_id: t.document_id,
        version_id: t.version_id,
        trigger_secret_prefix: t.secret_prefix,
        is_enabled: t.is_enabled,
        total_runs: t.total_runs,
        last_fired_at: t.last_fired_at,
        created_at: t.created_at,
      }));
  }

  /** The trigger's view, as of now. */
  async view(principal: Principal, id: string): Promise<TriggerView> {
    return triggerView(await this.get(principal, id), this.deps.clock.now());
  }

  /** A trigger of the caller's organization (404 for any other). */
  async get(principal: Principal, id: string): Promise<TriggerRecord> {
    const t = await this.deps.triggerStore.getTrigger(principal.orgId, id);
    if (!t) throw notFound("Trigger");
    return t;
  }

  async update(principal: Principal, id: string, input: UpdateTriggerInput): Promise<{ view: TriggerView; webhookSecret: string | null }> {
    const t = await this.get(principal, id);
    await this.assertCanChange(principal, t.workspace_id);
    const fixed: ValidationIssue[] = [];
    if (input.version_id !== undefined)
      fixed.push({ loc: ["body", "version_id"], msg: "version_id cannot be changed: create a new trigger to pin another version", type: "value_error" });
    if (input.document_id !== undefined)
      fixed.push({ loc: ["body", "document_id"], msg: "document_id cannot be changed: create a new trigger", type: "value_error" });
    if (fixed.length > 0) throw new ValidationError(fixed);
    if (input.priority !== undefined) assertPriorityAllowed(input.priority, principal.role);
    if (input.schedule) await this.checkSchedule(t.org_id, t.id, input.schedule);
    if (input.override_schema) await this.checkOverrideSchema(t.org_id, { documentId: t.document_id, versionId: t.version_id, fields: input.override_schema });
    const url = input.webhook_url !== undefined ? input.webhook_url : t.webhook_url;
    this.checkWebhookUrl(url, { urlChanged: input.webhook_url !== undefined });
    const generated = url !== null && !input.webhook_secret && !t.webhook_secret ? generateWebhookSecret() : null;
    const newSecret = input.webhook_secret ?? generated;
    const sealed = newSecret ? await this.deps.webhookSecrets.seal(newSecret, t.id) : undefined;
    const now = this.deps.clock.now();
    const updated = await this.deps.triggerStore.updateTrigger(t.org_id, {
      id: t.id,
      fields: {
        name: input.name,
        description: input.description,
        override_schema: input.override_schema,
        solver_name: input.solver_name,
        webhook_url: input.webhook_url,
        webhook_secret: sealed,
        priority: input.priority,
        schedule: input.schedule === undefined ? undefined : input.schedule && scheduleOf(input.schedule, now),
        warm_start: input.warm_start,
        race: input.race,
      },
      nowMs: now,
    });
    if (!updated) throw notFound("Trigger");
    // The schedule's message names the band, so a new priority re-sets it too.
    if (input.schedule !== undefined || (input.priority !== undefined && updated.schedule)) await this.syncSchedule(updated);
    return { view: triggerView(updated, now), webhookSecret: generated };
  }

  async toggle(principal: Principal, id: string, { enabled }: { enabled: boolean }): Promise<TriggerView> {
    const t = await this.get(principal, id);
    await this.assertCanChange(principal, t.workspace_id);
    const now = this.deps.clock.now();
    const updated = await this.deps.triggerStore.updateTrigger(t.org_id, { id: t.id, fields: { is_enabled: enabled }, nowMs: now });
    if (!updated) throw notFound("Trigger");
    if (updated.schedule) await this.syncSchedule(updated);
    return triggerView(updated, now);
  }

  /**
   * Deletes the trigger first (no fire can find it after), then every run and their stored payloads.
   * A fire racing the delete finds the trigger gone when it counts its run, and removes that run.
   */
  async delete(principal: Principal, id: string): Promise<void> {
    const t = await this.get(principal, id);
    await this.assertCanChange(principal, t.workspace_id);
    if (!(await this.deps.triggerStore.deleteTrigger(t.org_id, t.id))) throw notFound("Trigger");
    if (t.schedule) await this.deps.schedules.remove(t);
    const runs = await this.deps.triggerStore.allRuns(t.id);
    for (const r of runs) {
      if (r.result && "blob" in r.result) await deleteStoredBlob(this.deps.blobs, "runs/", r.result.blob).catch(() => undefined);
      const body = r.webhook?.body;
      if (body && "blob" in body) await deleteStoredBlob(this.deps.blobs, "webhooks/", body.blob).catch(() => undefined);
    }
    await this.deps.triggerStore.deleteKeys(runs.map((r) => ({ pk: r.pk, sk: r.sk })));
  }

  /** The solver role in the workspace (owners and admins everywhere). */
  async assertCanChange(principal: Principal, workspaceId: string): Promise<void> {
    const role = await this.deps.auth.workspaceRole(principal, workspaceId);
    if (!roleAtLeast(role, "solver")) throw forbidden("This needs the solver role in the trigger's workspace.");
  }

  /** A trigger's schedule exists exactly while it carries one and is enabled. */
  private async syncSchedule(trigger: TriggerRecord): Promise<void> {
    if (trigger.schedule && trigger.is_enabled) await this.deps.schedules.put(trigger);
    else await this.deps.schedules.remove(trigger);
  }

  /** The expression and time zone parse (422), and one more schedule fits the instance's cap (403). */
  private async checkSchedule(orgId: string, triggerId: string | null, schedule: ScheduleInput): Promise<void> {
    const issues = scheduleIssues(schedule, ["body", "schedule"]);
    if (issues.length > 0) throw new ValidationError(issues);
    const others = (await this.deps.triggerStore.listTriggers(orgId)).filter((t) => t.id !== triggerId);
    assertScheduleCap(this.deps.config, others);
  }

  private async checkOverrideSchema(
    orgId: string,
    { documentId, versionId, fields }: { documentId: string; versionId: string; fields: OverrideField[] },
  ): Promise<void> {
    if (fields.length === 0) return;
    const version = await this.deps.documents.findVersion(orgId, documentId, versionId);
    if (!version) throw notFound("Version");
    const overridable = this.deps.documents.overridable(await this.deps.documents.model(version));
    const issues = overrideSchemaIssues(fields, overridable, ["body", "override_schema"]);
    if (issues.length > 0) throw new ValidationError(issues);
  }

  /** A new webhook URL must be one the destination guard can accept. (A missing secret is generated: every delivery is signed.) */
  private checkWebhookUrl(url: string | null, { urlChanged }: { urlChanged: boolean }): void {
    if (url === null || !urlChanged) return;
    const problem = webhookUrlProblem(url, { allowPrivate: this.deps.config.webhookAllowPrivateNetworks });
    if (problem) throw invalid(["body", "webhook_url"], `webhook_url ${problem}`);
  }
}

export function triggerView(t: TriggerRecord, nowMs: number): TriggerView {
  const next = nextFireMs(t, nowMs);
  return {
    id: t.id,
    organization_id: t.org_id,
    workspace_id: t.workspace_id,
    created_by: t.created_by,
    name: t.name,
    description: t.description,
    document_id: t.document_id,
    version_id: t.version_id,
    solver_name: t.solver_name,
    trigger_secret_prefix: t.secret_prefix,
    override_schema: t.override_schema,
    webhook_url: t.webhook_url,
    has_webhook_secret: Boolean(t.webhook_secret),
    is_enabled: t.is_enabled,
    total_runs: t.total_runs,
    last_fired_at: t.last_fired_at,
    created_at: t.created_at,
    updated_at: t.updated_at,
    priority: t.priority ?? 0,
    schedule: t.schedule ? { expression: t.schedule.expression, timezone: t.schedule.timezone } : null,
    next_fire_at: next === null ? null : isoTime(next),
    warm_start: t.warm_start ?? null,
    race: t.race ?? null,
  };
}
