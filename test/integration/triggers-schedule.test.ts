import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { scheduleMessage } from "../../functions/core/triggers/schedules.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually, FINAL_RUN_STATUSES } from "../support/triggers.js";
import { verifyIncumbentSignature, WebhookReceiver } from "../support/webhook-receiver.js";

/**
 * Scheduled triggers on the local stack: the local scheduler (bin/local/local-scheduler.ts, ticking
 * every second) reads the same EventBridge Scheduler expressions AWS would and puts the schedule's
 * message on the jobs queue; a worker records the run (source "schedule") and queues it, a worker
 * solves it with cbc, and its webhook is delivered like a fired run's. The cap is 2 schedules here.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("cbc");
let stack: Stack;
const receiver = new WebhookReceiver();
const WEBHOOK_SECRET = "whsec_c2NoZWR1bGVkLXJ1bnMtc2lnbmluZy1zZWNyZXQ=";

beforeAll(async () => {
  if (!run) return;
  await receiver.start();
  stack = await startTestStack({ env: { INSTANCE_MAX_CRON_SCHEDULES: "2", LOCAL_WORKERS: "1", INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

async function scheduledTrigger(schedule: Record<string, unknown> | null, extra: Record<string, unknown> = {}) {
  const { documentId, versionId } = await createKnapsackDocument(stack.api);
  return createTrigger(stack.api, { document_id: documentId, version_id: versionId, schedule, ...extra });
}

const runsOf = async (triggerId: string) => (await stack.api.get(`/api/v2/triggers/${triggerId}/runs?page_size=100`)).body.items as any[];

describe.runIf(run)("scheduled triggers", () => {
  it("a trigger with rate(1 minute) fires on its own, not before its instant: a schedule run, solved, its webhook delivered", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(200);
    const createdAt = Date.now();
    const trigger = await scheduledTrigger({ expression: "rate(1 minute)" }, { webhook_url: receiver.url, webhook_secret: WEBHOOK_SECRET });
    expect(trigger.body.schedule).toEqual({ expression: "rate(1 minute)", timezone: "UTC" });
    const next = Date.parse(trigger.body.next_fire_at);
    expect(next - Date.parse(trigger.body.created_at)).toBe(60_000);

    // A generous wait (the instant is 60 s away; a loaded machine's scheduler tick may come late).
    const [hook] = await receiver.waitFor(1, 240_000);
    const firedWithinMs = Date.now() - createdAt;
    expect(hook!.at, "fired before its instant").toBeGreaterThanOrEqual(next);
    expect(verifyIncumbentSignature(hook!, WEBHOOK_SECRET)).toBe(true);

    const [item] = await runsOf(trigger.id);
    const view = (await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${item.id}`)).body;
    expect(view).toMatchObject({ source: "schedule", status: "completed", trigger_id: trigger.id });
    expect(view.result_data.status).toBe("optimal");
    expect(JSON.stringify(hook!.body)).toContain(view.id);
    const delivered = await eventually(
      async () => (await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${item.id}`)).body,
      (v) => v.webhook?.status === "delivered",
    );
    expect(delivered.webhook.attempts[0].status_code).toBe(200);
    // The view moves on to the next instant.
    const after = (await stack.api.get(`/api/v2/triggers/${trigger.id}`)).body;
    expect(Date.parse(after.next_fire_at)).toBe(next + 60_000);
    console.info(`schedule: rate(1 minute) fired, ran and delivered its webhook ${(firedWithinMs / 1000).toFixed(1)} s after the trigger was created`);
    // Stop it so it does not fire during the other tests.
    expect((await stack.api.patch(`/api/v2/triggers/${trigger.id}`, { schedule: null })).body.next_fire_at).toBeNull();
  }, 300_000);

  it("INSTANCE_MAX_CRON_SCHEDULES caps an organization's schedules: 403 past it; removing one frees a slot", async () => {
    const first = await scheduledTrigger({ expression: "cron(0 8 ? * MON-FRI *)", timezone: "Europe/Amsterdam" });
    const second = await scheduledTrigger({ expression: "at(2099-01-01T00:00:00)" });
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    const refused = await stack.api.post("/api/v2/triggers", {
      name: "third",
      document_id: documentId,
      version_id: versionId,
      schedule: { expression: "rate(5 minutes)" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: "cron_schedule_limit_exceeded", status_code: 403, limit: 2, schedules: 2 });
    expect(typeof refused.body.detail).toBe("string");
    // A trigger without a schedule is not counted; giving it one is.
    const plain = await scheduledTrigger(null);
    expect(plain.body.next_fire_at).toBeNull();
    expect((await stack.api.patch(`/api/v2/triggers/${plain.id}`, { schedule: { expression: "rate(5 minutes)" } })).status).toBe(403);
    expect((await stack.api.delete(`/api/v2/triggers/${second.id}`)).status).toBe(204);
    const given = await stack.api.patch(`/api/v2/triggers/${plain.id}`, { schedule: { expression: "rate(5 minutes)" } });
    expect(given.status).toBe(200);
    expect(given.body.next_fire_at).not.toBeNull();
    // Changing the schedule of a trigger that has one does not count it twice.
    expect(
      (await stack.api.patch(`/api/v2/triggers/${first.id}`, { schedule: { expression: "cron(30 9 ? * MON-FRI *)", timezone: "Europe/Amsterdam" } })).status,
    ).toBe(200);
  });

  it("a trigger's priority is shown, above 0 only for admins and owners, and its runs take it", async () => {
    const owner = await scheduledTrigger(null, { priority: 10 });
    expect(owner.body.priority).toBe(10);
    const { services, bootstrap } = stack;
    const user = await services.auth.createUser(bootstrap.organizationId, {
      email: "trigger-solver@example.test",
      password: "password solver",
      role: "solver",
    });
    const key = await services.auth.createApiKey(
      { kind: "session", userId: user.id, orgId: bootstrap.organizationId, role: "solver", keyId: null },
      { name: "solver key" },
    );
    const asSolver = stack.api.as(key.key);
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    const refused = await asSolver.post("/api/v2/triggers", { name: "urgent", document_id: documentId, version_id: versionId, priority: 10 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: "forbidden" });
    const low = await asSolver.post("/api/v2/triggers", { name: "batch", document_id: documentId, version_id: versionId, priority: -10 });
    expect(low.status).toBe(201);
    expect((await asSolver.patch(`/api/v2/triggers/${low.body.id}`, { priority: 5 })).status).toBe(403);
    // A high-priority trigger's run is queued on the high band and solved like any other.
    const runNow = await stack.api.post(`/api/v2/triggers/${owner.id}/run`, {});
    expect(runNow.status).toBe(202);
    const done = await eventually(
      async () => (await stack.api.get(`/api/v2/triggers/${owner.id}/runs/${runNow.body.run_id}`)).body,
      (v) => FINAL_RUN_STATUSES.includes(v.status),
      { timeoutMs: 60_000 },
    );
    expect(done.status).toBe("completed");
  }, 90_000);

  it("refuses a schedule AWS would refuse, with the reason (422)", async () => {
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    for (const [schedule, loc] of [
      [{ expression: "cron(0 8 * * * *)" }, "expression"],
      [{ expression: "rate(1 minutes)" }, "expression"],
      [{ expression: "rate(1 minute)", timezone: "Mars/Olympus" }, "timezone"],
    ] as const) {
      const res = await stack.api.post("/api/v2/triggers", { name: "bad", document_id: documentId, version_id: versionId, schedule });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "schedule", loc]);
    }
  });

  it("the scheduler's tick can be driven: a due cron fires a schedule run; disabling or deleting the trigger removes its schedule", async () => {
    // Make room under the cap: remove the schedules the cap test left.
    for (const t of (await stack.api.get("/api/v2/triggers")).body) {
      const full = (await stack.api.get(`/api/v2/triggers/${t.id}`)).body;
      if (full.schedule) await stack.api.patch(`/api/v2/triggers/${t.id}`, { schedule: null });
    }
    const trigger = await scheduledTrigger({ expression: "cron(* * * * ? *)" });
    const scheduler = stack.scheduler!;
    const soon = Date.parse(trigger.body.next_fire_at);
    expect(await scheduler.tick(soon - 1)).not.toContain(trigger.id);
    expect(await scheduler.tick(soon)).toEqual([trigger.id]);
    const runs = await eventually(
      () => runsOf(trigger.id),
      (items) => items.length === 1 && FINAL_RUN_STATUSES.includes(items[0].status),
      { timeoutMs: 60_000 },
    );
    expect((await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${runs[0].id}`)).body).toMatchObject({ source: "schedule", status: "completed" });

    const disabled = await stack.api.post(`/api/v2/triggers/${trigger.id}/toggle`, { enabled: false });
    expect(disabled.body.next_fire_at).toBeNull();
    expect(await scheduler.tick(soon + 3_600_000)).toEqual([]);
    const enabled = await stack.api.post(`/api/v2/triggers/${trigger.id}/toggle`, { enabled: true });
    expect(enabled.body.next_fire_at).not.toBeNull();
    expect(await scheduler.tick(soon + 7_200_000)).toEqual([trigger.id]);
    expect((await stack.api.delete(`/api/v2/triggers/${trigger.id}`)).status).toBe(204);
    expect(await scheduler.tick(soon + 10_800_000)).toEqual([]);
  }, 90_000);

  it("a schedule's firing delivered twice makes one run: the second delivery is answered already fired, with no second run", async () => {
    for (const t of (await stack.api.get("/api/v2/triggers")).body) {
      const full = (await stack.api.get(`/api/v2/triggers/${t.id}`)).body;
      if (full.schedule) await stack.api.patch(`/api/v2/triggers/${t.id}`, { schedule: null });
    }
    // Once a year: the local scheduler does not fire it during the test; the deliveries below stand in for EventBridge's.
    const trigger = await scheduledTrigger({ expression: "cron(0 0 1 1 ? *)" });
    const message = scheduleMessage({ id: trigger.id, org_id: stack.bootstrap.organizationId, priority: 0 }, "2026-11-23T18:00:00Z");
    await stack.services.queues.sendJob(message);
    await stack.services.queues.sendJob(message);
    const runs = await eventually(
      () => runsOf(trigger.id),
      (items) => items.length >= 1 && items.every((r) => FINAL_RUN_STATUSES.includes(r.status)),
      { timeoutMs: 60_000 },
    );
    // A third delivery, of the same instant spelled with milliseconds, is answered by the service itself.
    const again = await stack.services.triggerRuns.scheduled(stack.bootstrap.organizationId, trigger.id, "2026-11-23T18:00:00.000Z");
    expect(again).toEqual({ outcome: "already_fired", run_id: runs[0].id });
    expect(await runsOf(trigger.id)).toHaveLength(1);
    expect((await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${runs[0].id}`)).body).toMatchObject({ source: "schedule", status: "completed" });
    // Another slot is another firing; once its run is solved (the queue has long passed both deliveries), two runs in all.
    const next = await stack.services.triggerRuns.scheduled(stack.bootstrap.organizationId, trigger.id, "2026-11-23T18:01:00Z");
    expect(next.outcome).toBe("started");
    const all = await eventually(
      () => runsOf(trigger.id),
      (items) => items.length >= 2 && items.every((r) => FINAL_RUN_STATUSES.includes(r.status)),
      { timeoutMs: 60_000 },
    );
    expect(all).toHaveLength(2);
    expect((await stack.api.delete(`/api/v2/triggers/${trigger.id}`)).status).toBe(204);
  }, 90_000);
});
