import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually } from "../support/triggers.js";
import { HANG, WebhookReceiver } from "../support/webhook-receiver.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const TIMEOUT_SECONDS = 1;
const RETRY_DELAYS_SECONDS = [1, 2];

/**
 * A webhook receiver that hangs: each attempt is given up after WEBHOOK_TIMEOUT_SECONDS (shortened here
 * from 30 s) and recorded as failed with the reason, and the next follows the retry schedule; once the
 * receiver answers, the delivery is recorded delivered and nothing more is sent.
 */
describe.runIf(machineHas("cbc"))("faults: a webhook receiver that hangs", () => {
  let stack: Stack;
  const receiver = new WebhookReceiver([HANG, HANG, 200]);
  beforeAll(async () => {
    await receiver.start();
    stack = await startTestStack({
      env: {
        LOCAL_WORKERS: "1",
        WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        WEBHOOK_RETRY_DELAYS_SECONDS: RETRY_DELAYS_SECONDS.join(","),
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it("two attempts time out after the shortened timeout, the retries keep the schedule, the third is delivered", async () => {
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    const trigger = await createTrigger(stack.api, {
      document_id: documentId,
      version_id: versionId,
      webhook_url: receiver.url,
      webhook_secret: "hang-test-secret",
    });
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);

    const requests = await receiver.waitFor(3, 60_000);
    const run = await eventually(
      () => stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${fired.body.run_id}`),
      (r) => r.body.webhook?.status === "delivered",
      { timeoutMs: 30_000 },
    );
    const attempts = run.body.webhook.attempts as {
      attempt: number;
      attempted_at: string;
      status_code: number | null;
      error: string | null;
      duration_ms: number;
      outcome: string;
    }[];
    expect(attempts.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, null, "failed"],
      [2, null, "failed"],
      [3, 200, "delivered"],
    ]);
    for (const hung of attempts.slice(0, 2)) {
      expect(hung.error).toBe(`no response within ${TIMEOUT_SECONDS} s`);
      expect(hung.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 50); // given up at the timeout (the receiver never answers)
    }
    // Each retry waits its delay after the attempt before it gave up (the schedule). How much later
    // it comes depends on the machine's load: no upper bound is asserted.
    for (const [i, delay] of RETRY_DELAYS_SECONDS.entries()) {
      const gap = requests[i + 1]!.at - requests[i]!.at;
      expect(gap).toBeGreaterThanOrEqual((TIMEOUT_SECONDS + delay) * 1000 - 100);
    }
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1); // one delivery, retried
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(3);
  }, 120_000);
});
