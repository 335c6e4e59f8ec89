import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../functions/core/clock.js";
import { createKnapsackDocument, createTrigger } from "../support/triggers.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Issue 25, "rate limits bypassed": fires counted only against each trigger's window, so an
 * organization with many triggers fired many times its own request limit, and nothing capped how many
 * triggers it made. Now a fire also counts against the organization's every-request window, and
 * ORG_MAX_TRIGGERS caps the triggers. The clock is frozen inside one minute, so the windows are exact.
 */
const ORG_PER_MINUTE = 30;
const MAX_TRIGGERS = 3;

describe("triggers cannot multiply an organization's limits", () => {
  let stack: Stack;
  const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);

  beforeAll(async () => {
    stack = await startTestStack({
      clock,
      env: {
        INSTANCE_RATE_LIMIT_PER_MINUTE: String(ORG_PER_MINUTE),
        TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: "100",
        ORG_MAX_TRIGGERS: String(MAX_TRIGGERS),
        LOCAL_WORKERS: "1",
      },
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("caps the triggers of an organization (403 trigger_limit_exceeded), and a deleted one frees its place", async () => {
    const { documentId, versionId } = await createKnapsackDocument(stack.api);
    const made = [];
    for (let i = 0; i < MAX_TRIGGERS; i++) made.push(await createTrigger(stack.api, { document_id: documentId, version_id: versionId, name: `t${i}` }));
    const refused = await stack.api.post("/api/v2/triggers", { name: "one too many", document_id: documentId, version_id: versionId });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ error_code: "trigger_limit_exceeded", limit: MAX_TRIGGERS, triggers: MAX_TRIGGERS });
    expect((await stack.api.get("/api/v2/triggers")).body).toHaveLength(MAX_TRIGGERS);

    // Fires of every trigger count against the organization's window: far fewer than 3 × 100 go through.
    const anon = stack.api.as(null);
    let accepted = 0;
    let organizationRefusal: { status: number; body: any; headers: Headers } | null = null;
    for (let i = 0; i < 3 * 100 && !organizationRefusal; i++) {
      const t = made[i % made.length]!;
      const res = await anon.post(`/api/v2/triggers/${t.id}/fire`, {}, { authorization: `Bearer ${t.secret}` });
      if (res.status === 202) accepted++;
      else if (res.status === 429) organizationRefusal = res;
      else throw new Error(`fire answered ${res.status}: ${res.text}`);
    }
    expect(organizationRefusal, "no fire was refused").not.toBeNull();
    expect(organizationRefusal!.body.message).toMatch(/organization/);
    expect(organizationRefusal!.body.limit).toBe(ORG_PER_MINUTE);
    expect(accepted).toBeLessThan(ORG_PER_MINUTE);
    // Each trigger's own window had plenty left: it was the organization's that stopped the fires.
    expect(accepted / made.length).toBeLessThan(100);
    // The organization's other requests are refused too: the fires spent its window.
    expect((await stack.api.get("/api/v2/triggers")).status).toBe(429);

    // Deleting a trigger frees its place under the cap (next minute: the window has room again).
    clock.advance(60_000);
    expect((await stack.api.delete(`/api/v2/triggers/${made[0]!.id}`)).status).toBe(204);
    const again = await stack.api.post("/api/v2/triggers", { name: "in its place", document_id: documentId, version_id: versionId });
    expect(again.status, again.text).toBe(201);
  }, 180_000);
});
