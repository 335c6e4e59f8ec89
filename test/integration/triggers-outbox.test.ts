import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKey, WEBHOOK_OUTBOX } from "../../functions/core/triggers/store.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger } from "../support/triggers.js";
import { verifyIncumbentSignature, WebhookReceiver } from "../support/webhook-receiver.js";

/**
 * Nothing is lost when a process dies between a run's final write and queuing its webhook: the final
 * write itself puts the run in the webhook outbox, and the sweeper sends what it finds there.
 * No workers run here, so the fired run stays queued until the test ends it as a crashing process
 * would: the final write, and nothing after it.
 */
describe("webhook outbox", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const receiver = new WebhookReceiver();
  const SECRET = "outbox-test-webhook-secret";

  beforeAll(async () => {
    await receiver.start();
    stack = await startTestStack({
      env: { LOCAL_WORKERS: "0", WEBHOOK_OUTBOX_GRACE_SECONDS: "0", SWEEP_INTERVAL_SECONDS: "3600" },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it("delivers the webhook of a run whose process died right after its final write", async () => {
    const doc = await createKnapsackDocument(stack.api);
    const trigger = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      webhook_url: receiver.url,
      webhook_secret: SECRET,
    });
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);

    // The crash: the final write (with its delivery) lands, the message is never sent.
    const { services } = stack;
    const run = (await services.triggerStore.getRun(trigger.id, fired.body.run_id))!;
    const trig = await services.triggerStore.getTrigger(run.org_id, run.trigger_id);
    const fields = await services.runOutcomes.finalFields(run, {
      trigger: trig,
      outcome: { status: "failed", result: null, error: "the worker died" },
      nowMs: services.clock.now(),
    });
    const ended = await services.triggerStore.finalizeUnheldRun(run.trigger_id, { runId: run.id, from: [run.status], status: "failed", set: fields });
    expect(ended?.webhook?.status).toBe("pending");
    const key = runKey(run.trigger_id, run.id)!;
    expect((await services.table.get<{ gsi1pk?: string }>(key.pk, key.sk))?.gsi1pk).toBe(WEBHOOK_OUTBOX);
    expect(receiver.requests).toHaveLength(0);

    await stack.sweepNow();
    const [hook] = await receiver.waitFor(1, 20_000);
    expect(hook!.body).toMatchObject({ event: "trigger.run.failed", run_id: run.id, data: { status: "failed", error: "the worker died" } });
    expect(verifyIncumbentSignature(hook!, SECRET)).toBe(true);
    // Queued once: the run has left the outbox, and a second sweep sends nothing more.
    expect((await services.table.get<{ gsi1pk?: string }>(key.pk, key.sk))?.gsi1pk).toBeUndefined();
    await stack.sweepNow();
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);
  });
});
