import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKey } from "../../functions/core/triggers/store.js";
import { machineHas } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { createTrigger, eventually } from "../support/triggers.js";
import { verifyIncumbentSignature, verifyStandardWebhook, WebhookReceiver } from "../support/webhook-receiver.js";

/**
 * A worker killed mid-run: its lease stops being renewed, the sweeper (on its 1 s schedule, with the
 * trigger-run hook the local stack registers) fails the run and its execution, and the failure is
 * delivered as trigger.run.failed. The run solves a market-split instance (Cornuéjols–Dawande), which
 * keeps CBC busy far longer than the test needs.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("cbc");
let stack: Stack;
const receiver = new WebhookReceiver();
const SECRET = "sweeper-test-webhook-secret";
const LEASE_SECONDS = 2;
const SWEEP_SECONDS = 1;

/** 4 equality rows over 34 binaries with random weights; slack variables keep it feasible. */
function marketSplit(seed: number) {
  let state = seed;
  const rand = () => ((state = (state * 1103515245 + 12345) % 2 ** 31), state % 100);
  const n = 34;
  const variables = [
    ...Array.from({ length: n }, (_, j) => ({ name: `x${j}`, lb: 0, ub: 1, type: "binary" })),
    ...Array.from({ length: 4 }, (_, i) => [
      { name: `sp${i}`, lb: 0, ub: null, type: "continuous" },
      { name: `sm${i}`, lb: 0, ub: null, type: "continuous" },
    ]).flat(),
  ];
  const constraints = Array.from({ length: 4 }, (_, i) => {
    const a = Array.from({ length: n }, () => rand());
    const d = Math.floor(a.reduce((s, v) => s + v, 0) / 2);
    return { name: `row${i}`, terms: [...a.map((coef, j) => ({ var: `x${j}`, coef })), { var: `sp${i}`, coef: 1 }, { var: `sm${i}`, coef: -1 }], lb: d, ub: d };
  });
  const terms = Array.from({ length: 4 }, (_, i) => [
    { var: `sp${i}`, coef: 1 },
    { var: `sm${i}`, coef: 1 },
  ]).flat();
  return { name: "market-split", sense: "minimize", variables, objective: { constant: 0, terms }, constraints };
}

beforeAll(async () => {
  if (!run) return;
  await receiver.start();
  stack = await startTestStack({
    env: {
      JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      SWEEP_INTERVAL_SECONDS: String(SWEEP_SECONDS),
      DEFAULT_TIME_LIMIT_SECONDS: "30",
      WEBHOOK_RETRY_DELAYS_SECONDS: "1",
    },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

describe.runIf(run)("sweeper and trigger runs", () => {
  it("a worker killed mid-run: the run is failed once its lease has expired, and trigger.run.failed is delivered", async () => {
    const doc = await stack.api.post("/api/v2/documents", { name: "market split", model: { kind: "problem", problem: marketSplit(7) }, solver_name: "cbc" });
    expect(doc.status).toBe(201);
    const trigger = await createTrigger(stack.api, {
      document_id: doc.body.id,
      version_id: doc.body.version_id,
      webhook_url: receiver.url,
      webhook_secret: SECRET,
    });
    const fired = await stack.api.as(null).post(`/api/v2/triggers/${trigger.id}/fire`, {}, { authorization: `Bearer ${trigger.secret}` });
    expect(fired.status).toBe(202);
    const runId = fired.body.run_id as string;

    // The worker has taken the run and started solving: its id (host:pid:…) is the lease owner.
    const key = runKey(trigger.id, runId)!;
    const held = await eventually(
      () => stack.services.table.get<{ status: string; lease_owner?: string; execution_id: string | null }>(key.pk, key.sk),
      (r) => r?.status === "running" && r.execution_id !== null,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    const pid = Number(held!.lease_owner!.split(":")[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");

    // A generous wait: the lease has at most LEASE_SECONDS left, then one sweep interval; a loaded
    // machine delays both (how long it takes: npm run bench -- latency).
    const failed = await eventually(
      () => stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${runId}`),
      (r) => r.body.status !== "running",
      { timeoutMs: 90_000, everyMs: 100 },
    );
    expect(failed.body.status).toBe("failed");
    expect(failed.body.error).toContain("lease expired");

    const [hook] = await receiver.waitFor(1, 60_000);
    expect(hook!.body).toMatchObject({
      event: "trigger.run.failed",
      run_id: runId,
      data: { status: "failed", error: expect.stringContaining("lease expired") },
    });
    expect(hook!.body.data.result).toBeUndefined();
    expect(verifyIncumbentSignature(hook!, SECRET)).toBe(true);
    expect(verifyStandardWebhook(hook!, SECRET)).toBe(true);

    // History has no stale running entry: the run's execution was swept too, and nothing is left active.
    const execution = await eventually(
      () => stack.api.get(`/api/v2/models/executions/${held!.execution_id}`),
      (r) => r.body.status !== "running",
      { timeoutMs: 20_000 },
    );
    expect(execution.body.status).toBe("failed");
    const active = await stack.services.executionStore.leases.active();
    expect(active.filter((a) => a.pk === key.pk || a.sk.endsWith(held!.execution_id!))).toEqual([]);
    const notes = await stack.api.get("/api/v2/notifications?limit=100");
    expect(notes.body.items).toContainEqual(expect.objectContaining({ type: "execution_failed", data: expect.objectContaining({ run_id: runId }) }));
  }, 240_000);
});
