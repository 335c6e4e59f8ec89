import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually, KNAPSACK_BEST } from "../support/triggers.js";
import { verifyIncumbentSignature, verifyStandardWebhook, WebhookReceiver } from "../support/webhook-receiver.js";

/**
 * End to end over HTTP on the local stack: document → trigger → fire → queue → worker (real cbc) →
 * signed webhook to a receiver on 127.0.0.1 that verifies both signatures over the raw body. Retry
 * delays are shortened to one second by config.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("cbc");
let stack: Stack;
const receiver = new WebhookReceiver();
const WEBHOOK_SECRET = "whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3RzLW9ubHk=";

beforeAll(async () => {
  if (!run) return;
  await receiver.start();
  stack = await startTestStack({ env: { WEBHOOK_RETRY_DELAYS_SECONDS: "1,1,1", LOCAL_WORKERS: "2" } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

async function knapsackTrigger(extra: Record<string, unknown> = {}) {
  const { documentId, versionId } = await createKnapsackDocument(stack.api);
  return createTrigger(stack.api, {
    document_id: documentId,
    version_id: versionId,
    override_schema: [{ name: "capacity", type: "number", required: true, default: 5 }],
    webhook_url: receiver.url,
    webhook_secret: WEBHOOK_SECRET,
    ...extra,
  });
}

const runOf = (triggerId: string, runId: string) => stack.api.get(`/api/v2/triggers/${triggerId}/runs/${runId}`);

describe.runIf(run)("trigger → signed webhook", () => {
  it("generates a webhook secret when the webhook came without one: returned once, never shown again, and it signs the deliveries", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(200);
    const trigger = await knapsackTrigger({ webhook_secret: undefined });
    const generated: string = trigger.body.webhook_secret;
    expect(generated).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(trigger.body.has_webhook_secret).toBe(true);
    for (const read of [await stack.api.get(`/api/v2/triggers/${trigger.id}`), await stack.api.get("/api/v2/triggers")]) {
      expect(read.text).not.toContain(generated);
      expect(read.text).not.toContain('"webhook_secret"');
    }
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);
    const [hook] = await receiver.waitFor(1, 60_000);
    expect(verifyIncumbentSignature(hook!, generated)).toBe(true);
    expect(verifyStandardWebhook(hook!, generated)).toBe(true);

    // Setting a webhook on a trigger without one generates a secret in the PATCH response, once.
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    const plain = await createTrigger(stack.api, { document_id: documentId, version_id: versionId });
    expect(plain.body.webhook_secret).toBeUndefined();
    const patched = await stack.api.patch(`/api/v2/triggers/${plain.id}`, { webhook_url: receiver.url });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook_secret).toMatch(/^whsec_/);
    const again = await stack.api.patch(`/api/v2/triggers/${plain.id}`, { name: "renamed" });
    expect(again.body.webhook_secret).toBeUndefined();
  });

  it("accepts a webhook secret of any length the spec allows (a short one too)", async () => {
    const trigger = await knapsackTrigger({ webhook_secret: "short" });
    expect(trigger.body.has_webhook_secret).toBe(true);
    expect(trigger.body.webhook_secret).toBeUndefined();
  });

  it("fires with overrides; the receiver verifies both signatures over the raw body and gets the objective", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(200);
    const trigger = await knapsackTrigger();
    const fired = await stack.api
      .as(null)
      .post(`/api/v2/triggers/${trigger.id}/fire`, { override_data: { capacity: 9 } }, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);
    expect(fired.body).toEqual({ run_id: expect.stringMatching(/^run_/), status: "queued" });

    const [hook] = await receiver.waitFor(1, 60_000);
    expect(hook!.headers["content-type"]).toBe("application/json");
    expect(verifyIncumbentSignature(hook!, WEBHOOK_SECRET)).toBe(true);
    expect(verifyStandardWebhook(hook!, WEBHOOK_SECRET)).toBe(true);
    expect(verifyIncumbentSignature(hook!, `${WEBHOOK_SECRET}x`)).toBe(false);
    expect(verifyStandardWebhook({ ...hook!, raw: hook!.raw.replace("12", "13") }, WEBHOOK_SECRET)).toBe(false);
    expect(hook!.body).toMatchObject({
      event: "trigger.run.completed",
      trigger_id: trigger.id,
      run_id: fired.body.run_id,
      data: { status: "completed", override_data: { capacity: 9 }, result: { status: "optimal", objective_value: KNAPSACK_BEST[9], solver_name: "cbc" } },
    });
    expect(hook!.body.data.result.solution).toMatchObject({ "take[a]": 1, "take[b]": 1, "take[c]": 1, "take[d]": 0 });
    expect(typeof hook!.body.data.result.solve_time_seconds).toBe("number");
    expect(Date.parse(hook!.body.timestamp)).toBeGreaterThan(0);

    const detail = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.status === "delivered",
    );
    expect(detail.body).toMatchObject({
      status: "completed",
      source: "fire",
      override_data: { capacity: 9 },
      result_data: { objective_value: 12, status: "optimal" },
    });
    expect(detail.body.webhook.delivery_id).toBe(hook!.headers["webhook-id"]);
    expect(detail.body.webhook.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, outcome: "delivered" })]);
    expect(detail.body.execution_id).toMatch(/^exe_/);
    expect(Date.parse(detail.body.started_at)).toBeGreaterThanOrEqual(Date.parse(detail.body.created_at));
    expect(Date.parse(detail.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(detail.body.started_at));

    const t = await stack.api.get(`/api/v2/triggers/${trigger.id}`);
    expect(t.body.total_runs).toBe(1);
    expect(t.body.last_fired_at).toBe(detail.body.created_at);
    // The receiver's own token in the URL's query never reaches a response other than the trigger itself.
    expect(detail.text).not.toContain("token=abc");

    const notes = await stack.api.get("/api/v2/notifications?limit=100");
    expect(notes.body.items).toContainEqual(
      expect.objectContaining({
        type: "execution_complete",
        data: expect.objectContaining({ run_id: fired.body.run_id, objective_value: 12, execution_id: detail.body.execution_id }),
        link: `/triggers/${trigger.id}/runs/${fired.body.run_id}`,
      }),
    );
  });

  it("500, 500, then 200: three attempts with one webhook-id, exactly one recorded as delivered", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(500, 500, 200);
    const trigger = await knapsackTrigger();
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, { trigger_secret: trigger.secret, override_data: { capacity: 7 } });
    expect(fired.status).toBe(202);

    const hooks = await receiver.waitFor(3, 60_000);
    expect(hooks.map((h) => h.answered)).toEqual([500, 500, 200]);
    expect(new Set(hooks.map((h) => h.headers["webhook-id"])).size).toBe(1);
    expect(new Set(hooks.map((h) => h.raw)).size).toBe(1); // the same bytes every time
    for (const h of hooks) {
      expect(verifyIncumbentSignature(h, WEBHOOK_SECRET)).toBe(true);
      expect(verifyStandardWebhook(h, WEBHOOK_SECRET)).toBe(true);
    }
    // About a second apart (1 s ± 20 % jitter, plus the SQS delay's whole-second rounding).
    expect(hooks[1]!.at - hooks[0]!.at).toBeGreaterThanOrEqual(700);
    expect(hooks[0]!.body.data.result.objective_value).toBe(KNAPSACK_BEST[7]);

    const detail = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.status === "delivered",
    );
    const attempts = detail.body.webhook.attempts;
    expect(attempts.map((a: any) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, 500, "failed"],
      [2, 500, "failed"],
      [3, 200, "delivered"],
    ]);
    expect(attempts.filter((a: any) => a.outcome === "delivered")).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.requests).toHaveLength(3); // nothing after the success
  });

  it("a receiver that never says 2xx: every scheduled attempt, then the DLQ and a system notification", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(503);
    const trigger = await knapsackTrigger();
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);

    await receiver.waitFor(4, 60_000); // 1 + three retries
    const detail = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.status === "exhausted",
    );
    expect(detail.body.webhook.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 503, 503]);
    expect(detail.body.webhook.reason).toContain("4 attempts");
    expect(detail.body.result_data.objective_value).toBe(KNAPSACK_BEST[5]); // the default capacity

    const dlq = await stack.services.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.config.webhooksDlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }),
    );
    const dead = (dlq.Messages ?? []).map((m) => JSON.parse(m.Body!));
    expect(dead).toContainEqual(expect.objectContaining({ run_id: fired.body.run_id, attempt: 4, delivery_id: detail.body.webhook.delivery_id }));

    const notes = await eventually(
      () => stack.api.get("/api/v2/notifications?limit=100"),
      (r) => r.body.items.some((n: any) => n.type === "system" && n.data.run_id === fired.body.run_id),
    );
    const note = notes.body.items.find((n: any) => n.type === "system" && n.data.run_id === fired.body.run_id);
    expect(note.message).toContain("127.0.0.1");
    expect(note.message).not.toContain("token=abc");
    await new Promise((r) => setTimeout(r, 2000));
    expect(receiver.requests).toHaveLength(4);
  });

  it("copies of one attempt's message (SQS delivers at least once) POST once and record once", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(500, 200);
    const trigger = await knapsackTrigger();
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    await receiver.waitFor(1, 60_000);
    const pending = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.attempts.length === 1,
    );
    // Attempt 2 is scheduled about a second out; three more copies of its message arrive now, together.
    const copy = {
      delivery_id: pending.body.webhook.delivery_id,
      trigger_id: trigger.id,
      run_id: fired.body.run_id,
      org_id: stack.bootstrap.organizationId,
      attempt: 2,
      due_at_ms: Date.now(),
    };
    await Promise.all([1, 2, 3].map(() => stack.services.webhooks.handle(copy)));
    const done = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.status === "delivered",
    );
    await new Promise((r) => setTimeout(r, 2500)); // the scheduled message comes and goes
    expect(receiver.requests.map((h) => h.answered)).toEqual([500, 200]);
    expect(done.body.webhook.attempts.map((a: any) => a.attempt)).toEqual([1, 2]);
    // A copy of attempt 1 long after: nothing.
    await stack.services.webhooks.handle({ ...copy, attempt: 1 });
    expect(receiver.requests).toHaveLength(2);
  });

  it("webhook_url set to null stops deliveries still scheduled", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(500);
    const trigger = await knapsackTrigger();
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    await receiver.waitFor(1, 60_000);
    expect((await stack.api.patch(`/api/v2/triggers/${trigger.id}`, { webhook_url: null })).status).toBe(200);
    const detail = await eventually(
      () => runOf(trigger.id, fired.body.run_id),
      (r) => r.body.webhook?.status === "cancelled",
    );
    expect(detail.body.webhook.reason).toContain("removed");
    expect(receiver.requests.length).toBeLessThanOrEqual(2);
  });

  it("no webhook for a validation_failed run", async () => {
    receiver.requests.length = 0;
    receiver.answerWith(200);
    const trigger = await knapsackTrigger();
    const refused = await stack.api
      .as(null)
      .post(`/api/v2/triggers/${trigger.id}/fire`, { override_data: { nope: 1 } }, { authorization: `Bearer ${trigger.secret}` });
    expect(refused.status).toBe(422);
    const detail = await runOf(trigger.id, refused.body.detail.run_id);
    expect(detail.body).toMatchObject({ status: "validation_failed", webhook: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(0);
  });
});
