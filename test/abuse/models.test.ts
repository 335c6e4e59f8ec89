import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Api } from "../support/test-stack.js";
import { FINAL_RUN_STATUSES, eventually } from "../support/triggers.js";
import {
  type AbuseStack,
  GRID_MODEL,
  isAlive,
  memoryMb,
  SIZED_MODEL,
  selfSignedUpTenant,
  startAbuseStack,
  streamedPost,
  whileAttacking,
  wideMps,
} from "./support.js";

/**
 * Issue 25, attacks on the size of a model, by a tenant who signed up a minute ago. The caps are the
 * defaults (100,000 variables and constraints, 1,000,000 nonzeros): a model past them is refused, the
 * compiler or reader stopped at the cap, nothing run or charged, no worker lost, /health answering.
 */
let stack: AbuseStack;
let tenant: { api: Api; orgId: string };

beforeAll(async () => {
  stack = await startAbuseStack({ LOCAL_WORKERS: "1" });
  tenant = await selfSignedUpTenant(stack);
  await stack.workers.ready();
});
afterAll(async () => {
  await stack?.stop();
});

async function document(source: string, data: Record<string, unknown>): Promise<{ id: string; versionId: string }> {
  const res = await tenant.api.post("/api/v2/documents", { name: "sized", model: { kind: "jmodel", source, data }, solver_name: "auto" });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, versionId: res.body.version_id };
}

const balance = async () => (await tenant.api.get("/api/v2/credits/balance")).body;

describe("a trigger fired with a 37-byte override naming the model's size", () => {
  it("refuses the run at the cap in the worker, which survives, stays small and serves the next run (n = 10,000,000 killed it)", async () => {
    const doc = await document(SIZED_MODEL, { n: 3 });
    const created = await tenant.api.post("/api/v2/triggers", {
      name: "sized",
      document_id: doc.id,
      version_id: doc.versionId,
      override_schema: [{ name: "n", type: "integer", required: true }],
    });
    expect(created.status, created.text).toBe(201);
    const fire = (n: number) =>
      tenant.api
        .as(null)
        .post(`/api/v2/triggers/${created.body.id}/fire`, { override_data: { n } }, { authorization: `Bearer ${created.body.trigger_secret}` });
    const runOf = (runId: string) =>
      eventually(
        () => tenant.api.get(`/api/v2/triggers/${created.body.id}/runs/${runId}`),
        (r) => FINAL_RUN_STATUSES.includes(r.body.status),
        { timeoutMs: 120_000 },
      );
    const [worker] = stack.workers.pids();
    for (const n of [10_000_000, 2_000_000]) {
      const fired = await fire(n);
      expect(fired.status, fired.text).toBe(202);
      const run = (await runOf(fired.body.run_id)).body;
      expect(run.status).toBe("failed");
      // Refused on the set 1..n, measured before it was built: nothing of size n was allocated.
      expect(run.error).toMatch(/^model_size_limit_exceeded: .*more than 100000 elements in one set \(\d+\)/);
    }
    // The same worker, alive, whose peak resident set stayed far below the 2.9 GB of n = 2,000,000.
    expect(stack.workers.pids()).toEqual([worker]);
    expect(isAlive(worker!)).toBe(true);
    expect(memoryMb(worker!).peak).toBeLessThan(800);
    const small = await fire(3);
    expect((await runOf(small.body.run_id)).body).toMatchObject({ status: "completed", result_data: { objective_value: 3 } });
  });

  it("stops a model past the variable cap at the cap (a 1,000 × 1,000 grid): the run names 100,001 variables, no more were built", async () => {
    const doc = await document(GRID_MODEL, { n: 1, m: 1 });
    const created = await tenant.api.post("/api/v2/triggers", {
      name: "grid",
      document_id: doc.id,
      version_id: doc.versionId,
      override_schema: [
        { name: "n", type: "integer", required: true },
        { name: "m", type: "integer", required: true },
      ],
    });
    const fired = await tenant.api
      .as(null)
      .post(`/api/v2/triggers/${created.body.id}/fire`, { override_data: { n: 1000, m: 1000 } }, { authorization: `Bearer ${created.body.trigger_secret}` });
    expect(fired.status).toBe(202);
    const run = await eventually(
      () => tenant.api.get(`/api/v2/triggers/${created.body.id}/runs/${fired.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 120_000 },
    );
    expect(run.body.status).toBe("failed");
    expect(run.body.error).toMatch(/^variable_limit_exceeded: .*more than 100000 variables;/);
    expect(isAlive(stack.workers.pids()[0]!)).toBe(true);
  });
});

describe("POST /models/{doc}/execute compiling a stored model", () => {
  it("answers 403 at once for n = 6,000,000 (48 s and 3.5 GB in the API before), nothing run or charged", async () => {
    const doc = await document(SIZED_MODEL, { n: 3 });
    const before = await balance();
    const seen = await whileAttacking(stack.url, () => tenant.api.post(`/api/v2/models/${doc.id}/execute`, { override_data: { n: 6_000_000 } }));
    expect(seen.result.status, seen.result.text).toBe(403);
    expect(seen.result.body).toMatchObject({ error_code: "model_size_limit_exceeded", limit_name: "set_elements", count: 6_000_000, limit: 100_000 });
    expect(await balance()).toEqual(before);
    expect(seen.probes.every((p) => p.status === 200)).toBe(true);
  });

  it("stops the 1,000 × 1,000 model at the variable cap off the event loop: /health answers while it compiles (28 s of a blocked API before)", async () => {
    const doc = await document(GRID_MODEL, { n: 1, m: 1 });
    const before = await balance();
    const server = memoryMb();
    const seen = await whileAttacking(stack.url, () => tenant.api.post(`/api/v2/models/${doc.id}/execute`, { override_data: { n: 1000, m: 1000 } }));
    expect(seen.result.status, seen.result.text).toBe(403);
    expect(seen.result.body).toMatchObject({ error_code: "variable_limit_exceeded", variable_count: 100_001, limit: 100_000 });
    expect(seen.healthAnsweredDuringAttack).toBe(true);
    expect(seen.probes.every((p) => p.status === 200)).toBe(true);
    expect(await balance()).toEqual(before);
    // The compile ran on the model thread, inside this process: its peak grew by the cap's worth, not the grid's.
    expect(memoryMb().peak - server.peak).toBeLessThan(600);
  });
});

describe("import preview of a problem file", () => {
  it("refuses a 23 MB MPS file of a million columns at the body ceiling, unread (a 37 s, 110 MB answer before)", async () => {
    const seen = await whileAttacking(stack.url, () =>
      streamedPost(stack.url, "/api/v2/solve/import/preview?format=mps", 23 * 1024 * 1024, {
        headers: { "content-type": "text/plain", authorization: `Bearer ${tenant.api.token}` },
      }),
    );
    expect(seen.result.status).toBe(413);
    expect(seen.result.sentBytes).toBeLessThan(stack.config.maxRequestBodyMb * 1024 * 1024 + 64 * 1024 * 1024);
  });

  it("stops reading a file under the ceiling but past the column cap at the cap (403), off the event loop", async () => {
    const text = wideMps(130_000);
    expect(Buffer.byteLength(text)).toBeLessThan(stack.config.maxRequestBodyMb * 1024 * 1024);
    const seen = await whileAttacking(stack.url, () =>
      tenant.api.send("POST", "/api/v2/solve/import/preview?format=mps", { headers: { "content-type": "text/plain" }, body: text }),
    );
    expect(seen.result.status, seen.result.text.slice(0, 300)).toBe(403);
    expect(seen.result.body).toMatchObject({ error_code: "variable_limit_exceeded", variable_count: 100_001, limit: 100_000 });
    expect(seen.probes.every((p) => p.status === 200)).toBe(true);
  });
});
