import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggerKey } from "../../functions/core/triggers/store.js";
import { createKnapsackDocument, createTrigger, eventually, FINAL_RUN_STATUSES } from "../support/triggers.js";
import { startTestStack } from "../support/test-stack.js";
import { verifyIncumbentSignature, WebhookReceiver } from "../support/webhook-receiver.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Issue 25: "webhook secrets sit in the table in plain text". They are sealed before they are stored
 * (functions/core/webhooks/secret-box.ts); deliveries are signed with the secret as given; a secret
 * stored in plain text before keeps signing, and is sealed at its next delivery.
 */
describe("webhook secrets at rest", () => {
  let stack: Stack;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" } });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const stored = async (triggerId: string) => {
    const key = triggerKey(stack.bootstrap.organizationId, triggerId);
    return (await stack.services.table.get<{ webhook_secret: string | null }>(key.pk, key.sk))!.webhook_secret!;
  };

  async function fireAndReceive(trigger: { id: string; secret: string }, count: number) {
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status, fired.text).toBe(202);
    await eventually(
      () => stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${fired.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    return (await receiver.waitFor(count, 60_000)).at(-1)!;
  }

  it("stores a given and a generated secret sealed, never as given, and signs deliveries with the secret as given", async () => {
    const doc = await createKnapsackDocument(stack.api, "highs");
    const given = "a-webhook-secret-the-owner-chose-123";
    const trigger = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      webhook_url: receiver.url,
      webhook_secret: given,
    });
    const sealed = await stored(trigger.id);
    expect(sealed.startsWith("wsk1.")).toBe(true);
    expect(sealed).not.toContain(given);
    const delivery = await fireAndReceive(trigger, 1);
    expect(verifyIncumbentSignature(delivery, given)).toBe(true);

    const generated = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId, webhook_url: receiver.url });
    const plain = generated.body.webhook_secret as string;
    expect(plain.length).toBeGreaterThan(20);
    expect(await stored(generated.id)).not.toContain(plain);

    // A new secret set by PATCH is sealed too.
    const patched = await stack.api.patch(`/api/v2/triggers/${trigger.id}`, { webhook_secret: "the-replacement-secret-456" });
    expect(patched.status, patched.text).toBe(200);
    expect(await stored(trigger.id)).not.toContain("the-replacement-secret-456");
    expect(verifyIncumbentSignature(await fireAndReceive(trigger, 2), "the-replacement-secret-456")).toBe(true);
  }, 120_000);

  it("keeps signing with a secret stored in plain text before, and seals it at that delivery", async () => {
    const doc = await createKnapsackDocument(stack.api, "highs");
    const trigger = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      webhook_url: receiver.url,
      webhook_secret: "x".repeat(24),
    });
    // As a trigger made before secrets were sealed stands in the table.
    const legacy = "an-old-plaintext-webhook-secret";
    const key = triggerKey(stack.bootstrap.organizationId, trigger.id);
    await stack.services.table.setFields(key, { webhook_secret: legacy });
    const delivery = await fireAndReceive(trigger, receiver.requests.length + 1);
    expect(verifyIncumbentSignature(delivery, legacy)).toBe(true);
    const now = await stored(trigger.id);
    expect(now.startsWith("wsk1.")).toBe(true);
    expect(await stack.services.webhookSecrets.open(now, trigger.id)).toBe(legacy);
  }, 120_000);
});
