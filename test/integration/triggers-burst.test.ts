import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually } from "../support/triggers.js";

/**
 * 1,000 fires at the local API, 25 in flight. The per-trigger limit (set low here, so the test ends in
 * reasonable time on two cores: each accepted run is a worker process and a solve) answers the rest
 * 429. Every 202 must end completed or failed, every 429 must leave nothing behind, and total_runs
 * must equal the runs recorded.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("cbc");
const FIRES = 1000;
const IN_FLIGHT = 25;
const LIMIT = 20;
let stack: Stack;

beforeAll(async () => {
  if (!run) return;
  stack = await startTestStack({ env: { TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: String(LIMIT), INSTANCE_RATE_LIMIT_PER_MINUTE: "100000" } });
}, 120_000);
afterAll(() => stack?.stop());

describe.runIf(run)("a burst of fires", () => {
  it(`${FIRES} fires: every 202 ends completed or failed, every 429 leaves nothing, total_runs = runs recorded`, async () => {
    const doc = await createKnapsackDocument(stack.api);
    const trigger = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [{ name: "capacity", type: "number", required: false, default: 5 }],
    });
    const fireApi = stack.api.as(trigger.secret);

    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    let sample429: { body: any; retryAfter: string | null } | null = null;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < FIRES) {
          const i = next++;
          const res = await fireApi.post(`/api/v2/triggers/${trigger.id}/fire`, { override_data: { capacity: 5 + (i % 5) } });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 202) accepted.push(res.body.run_id);
          if (res.status === 429 && !sample429) sample429 = { body: res.body, retryAfter: res.headers.get("retry-after") };
        }
      }),
    );
    const fireSeconds = (Date.now() - started) / 1000;
    console.log(`[burst] ${FIRES} fires in ${fireSeconds.toFixed(1)} s: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(", ")}`);

    expect([...statuses.keys()].sort()).toEqual(accepted.length === FIRES ? [202] : [202, 429]);
    // Fixed one-minute windows (epoch-aligned): at most LIMIT accepted in each window the burst touched.
    const windowsTouched = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThanOrEqual(LIMIT * windowsTouched);
    expect(sample429!.body).toMatchObject({ error: "rate_limit_exceeded", limit: LIMIT, remaining: 0, retry_after: expect.any(Number) });
    expect(Number(sample429!.retryAfter)).toBeGreaterThan(0);

    const readAll = async () => {
      const items: any[] = [];
      for (let page = 1; ; page++) {
        const res = await stack.api.get(`/api/v2/triggers/${trigger.id}/runs?page=${page}&page_size=100`);
        items.push(...res.body.items);
        if (items.length >= res.body.total || res.body.items.length === 0) return { items, total: res.body.total as number };
      }
    };
    const drainStarted = Date.now();
    const final = await eventually(readAll, (r) => r.items.every((x) => x.status === "completed" || x.status === "failed"), {
      timeoutMs: 600_000,
      everyMs: 2000,
    });
    console.log(`[burst] ${accepted.length} runs finished ${((Date.now() - drainStarted) / 1000).toFixed(1)} s after the last fire`);

    expect(final.total).toBe(accepted.length);
    expect(new Set(final.items.map((x) => x.id))).toEqual(new Set(accepted));
    expect(final.items.filter((x) => x.status === "completed").length).toBe(accepted.length);
    for (const x of final.items) expect(x.result_data.objective_value).toBe({ 5: 7, 6: 8, 7: 9, 8: 10, 9: 12 }[x.override_data.capacity as number]);
    const t = await stack.api.get(`/api/v2/triggers/${trigger.id}`);
    expect(t.body.total_runs).toBe(final.total);
    expect(await stack.services.executionStore.leases.active()).toEqual([]);
  }, 900_000);
});
