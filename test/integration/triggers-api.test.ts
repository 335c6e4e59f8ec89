import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { sha256Hex } from "../../functions/core/auth/secrets.js";
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger, eventually, FINAL_RUN_STATUSES, KNAPSACK_BEST } from "../support/triggers.js";

/**
 * Trigger management, fire authentication, the 422 codes, run now, rerun and run history, builder
 * documents and their pruning, document execution, credit grants — over HTTP on the local stack.
 */
type Stack = Awaited<ReturnType<typeof startTestStack>>;
const run = machineHas("cbc");
let stack: Stack;
let doc: { documentId: string; versionId: string };
const WEBHOOK_SECRET = "a-webhook-secret-of-some-length";
const OPERATOR_TOKEN = "inc_op_the-operator-of-this-test-instance";

beforeAll(async () => {
  if (!run) return;
  stack = await startTestStack({
    env: {
      DOCUMENT_UNNAMED_VERSIONS_KEPT: "2",
      TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: "1000",
      INSTANCE_RATE_LIMIT_PER_MINUTE: "100000",
      MODELS_READ_RATE_LIMIT_PER_MINUTE: "100000",
      OPERATOR_TOKEN_SHA256: sha256Hex(OPERATOR_TOKEN),
    },
  });
  doc = await createKnapsackDocument(stack.api);
}, 120_000);
afterAll(() => stack?.stop());

const capacityField = { name: "capacity", type: "number", required: true, default: 5 };
const fire = (id: string, secret: string | null, body: Record<string, unknown> = {}) =>
  stack.api.as(null).post(`/api/v2/triggers/${id}/fire`, body, secret ? { authorization: `Bearer ${secret}` } : {});
const runsOf = async (id: string) => (await stack.api.get(`/api/v2/triggers/${id}/runs?page_size=100`)).body;

describe.runIf(run)("fire's credentials", () => {
  it("honours a body trigger_secret whenever the Authorization header does not hold a trigger secret", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    // An API key in the header and the trigger secret in the body: the body's secret is the credential.
    const withKey = await stack.api.post(`/api/v2/triggers/${t.id}/fire`, { trigger_secret: t.secret });
    expect(withKey.status, withKey.text).toBe(202);
    expect(withKey.headers.get("x-ratelimit-limit")).toBe("1000");
    // A trigger secret in the header wins over the body's.
    const headerWins = await fire(t.id, t.secret, { trigger_secret: "inc_trg_wrong" });
    expect(headerWins.status).toBe(202);
    const wrongHeader = await fire(t.id, "inc_trg_wrong", { trigger_secret: t.secret });
    expect(wrongHeader.status).toBe(401);
    // An API key alone is not a trigger secret.
    const keyOnly = await stack.api.post(`/api/v2/triggers/${t.id}/fire`, {});
    expect(keyOnly.status).toBe(401);
    for (const refused of [wrongHeader, keyOnly]) expect(refused.headers.get("x-ratelimit-remaining")).toEqual(expect.any(String));
    const missing = await fire("trg_00000000000000000000000000", t.secret);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-limit")).toEqual(expect.any(String));
  });
});

describe.runIf(run)("trigger management", () => {
  it("create answers 201 with the secret once, its prefix, enabled, no runs; webhook_secret appears nowhere", async () => {
    const res = await stack.api.post("/api/v2/triggers", {
      name: "nightly",
      description: "d",
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [capacityField],
      webhook_url: "https://example.com/hook",
      webhook_secret: WEBHOOK_SECRET,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^trg_/),
      is_enabled: true,
      total_runs: 0,
      solver_name: null,
      has_webhook_secret: true,
      last_fired_at: null,
    });
    expect(res.body.trigger_secret).toMatch(/^inc_trg_/);
    expect(res.body.trigger_secret.startsWith(res.body.trigger_secret_prefix)).toBe(true);
    expect(res.body.trigger_secret_prefix.length).toBeLessThan(res.body.trigger_secret.length / 2);
    const secret = res.body.trigger_secret;
    const reads = [
      await stack.api.get(`/api/v2/triggers/${res.body.id}`),
      await stack.api.get("/api/v2/triggers"),
      await stack.api.patch(`/api/v2/triggers/${res.body.id}`, { name: "renamed" }),
      await stack.api.post(`/api/v2/triggers/${res.body.id}/toggle`, { enabled: true }),
    ];
    for (const r of [res, ...reads]) expect(r.text).not.toContain(WEBHOOK_SECRET);
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(secret);
      expect(r.text).not.toContain("secret_hash");
    }
  });

  it("refuses an unknown solver, an override field the model lacks, or a webhook to a private address", async () => {
    const base = { name: "x", document_id: doc.documentId, version_id: doc.versionId };
    const bad = [
      { ...base, solver_name: "gurobi" },
      { ...base, override_schema: [{ name: "nonexistent", type: "number", required: false }] },
      { ...base, override_schema: [{ name: "capacity", type: "number", default: "ten" }] },
      { ...base, webhook_url: "https://user:password@example.com/hook" },
    ];
    for (const body of bad) {
      const r = await stack.api.post("/api/v2/triggers", body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(r.body.detail)).toBe(true);
    }
    expect((await stack.api.post("/api/v2/triggers", { ...base, version_id: "ver_00000000000000000000000000" })).status).toBe(404);
  });

  it("lists newest first with a document_id filter and last_fired_at; PATCH, toggle and DELETE as the spec", async () => {
    const other = await createKnapsackDocument(stack.api);
    const a = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    const b = await createTrigger(stack.api, { document_id: other.documentId, version_id: other.versionId, solver_name: "glpk" });
    const all = await stack.api.get("/api/v2/triggers");
    const ids = all.body.map((t: any) => t.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(Object.keys(all.body[0]).sort()).toEqual([
      "created_at",
      "document_id",
      "id",
      "is_enabled",
      "last_fired_at",
      "name",
      "total_runs",
      "trigger_secret_prefix",
      "version_id",
    ]);
    const filtered = await stack.api.get(`/api/v2/triggers?document_id=${other.documentId}`);
    expect(filtered.body.map((t: any) => t.id)).toEqual([b.id]);

    expect((await fire(b.id, b.secret)).status).toBe(202);
    const listed = (await stack.api.get(`/api/v2/triggers?document_id=${other.documentId}`)).body[0];
    expect(listed.total_runs).toBe(1);
    expect(Date.parse(listed.last_fired_at)).toBeGreaterThan(0);

    const patched = await stack.api.patch(`/api/v2/triggers/${b.id}`, { solver_name: null, webhook_url: null, description: "now" });
    expect(patched.body).toMatchObject({ solver_name: null, webhook_url: null, description: "now" });
    const fixed = await stack.api.patch(`/api/v2/triggers/${b.id}`, { version_id: doc.versionId });
    expect(fixed.status).toBe(422);
    expect(fixed.body.detail[0].loc).toEqual(["body", "version_id"]);

    expect((await stack.api.post(`/api/v2/triggers/${b.id}/toggle`, { enabled: false })).body.is_enabled).toBe(false);
    await eventually(
      () => runsOf(b.id),
      (p) => p.items.every((r: any) => FINAL_RUN_STATUSES.includes(r.status)),
      { timeoutMs: 60_000 },
    );
    expect((await stack.api.delete(`/api/v2/triggers/${b.id}`)).status).toBe(204);
    expect((await stack.api.get(`/api/v2/triggers/${b.id}`)).status).toBe(404);
    expect((await stack.api.get(`/api/v2/triggers/${b.id}/runs`)).status).toBe(404);
    expect(await stack.services.triggerStore.countRuns(b.id)).toBe(0);
    expect((await stack.api.delete(`/api/v2/triggers/${b.id}`)).status).toBe(404);
  });

  it("a viewer reads triggers but cannot create, change, run now or rerun (solver role in the workspace)", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    const orgId = stack.bootstrap.organizationId;
    const viewer = await stack.services.auth.createUser(orgId, { email: `viewer-${Date.now()}@example.test`, password: "viewer password 1", role: "viewer" });
    const key = await stack.services.auth.createApiKey({ kind: "session", userId: viewer.id, orgId, role: "viewer", keyId: null }, { name: "viewer key" });
    const asViewer = stack.api.as(key.key);
    expect((await asViewer.get(`/api/v2/triggers/${t.id}`)).status).toBe(200);
    expect((await asViewer.post("/api/v2/triggers", { name: "v", document_id: doc.documentId, version_id: doc.versionId })).status).toBe(403);
    expect((await asViewer.patch(`/api/v2/triggers/${t.id}`, { name: "v" })).status).toBe(403);
    expect((await asViewer.post(`/api/v2/triggers/${t.id}/run`)).status).toBe(403);
    expect((await asViewer.delete(`/api/v2/triggers/${t.id}`)).status).toBe(403);
    expect((await runsOf(t.id)).total).toBe(0);
    // A solver-role membership in the trigger's workspace lets the viewer run it.
    await stack.services.identity.setMembership(viewer.id, t.body.workspace_id, "solver");
    expect((await asViewer.post(`/api/v2/triggers/${t.id}/run`)).status).toBe(202);
  });

  it("management takes an API key, not a session token", async () => {
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email: "owner@example.test", password: "correct horse battery" });
    expect((await stack.api.as(login.body.access_token).get("/api/v2/triggers")).status).toBe(401);
  });
});

describe.runIf(run)("fire", () => {
  it("401 for a missing or wrong secret and 404 for an unknown trigger, recording nothing", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    expect((await fire(t.id, null)).status).toBe(401);
    expect((await fire(t.id, `${t.secret}x`)).status).toBe(401);
    expect((await fire(t.id, t.secret.slice(0, -1))).status).toBe(401);
    expect((await fire(t.id, null, { trigger_secret: "inc_trg_wrong" })).status).toBe(401);
    expect((await fire(t.id, stack.apiKey)).status).toBe(401); // an API key is not a trigger secret
    expect((await fire("trg_00000000000000000000000000", t.secret)).status).toBe(404);
    const after = await stack.api.get(`/api/v2/triggers/${t.id}`);
    expect(after.body.total_runs).toBe(0);
    expect((await runsOf(t.id)).total).toBe(0);
  });

  it("409 when disabled, nothing queued; accepted again once enabled", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId });
    await stack.api.post(`/api/v2/triggers/${t.id}/toggle`, { enabled: false });
    const refused = await fire(t.id, t.secret);
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe("trigger_disabled");
    expect((await runsOf(t.id)).total).toBe(0);
    await stack.api.post(`/api/v2/triggers/${t.id}/toggle`, { enabled: true });
    expect((await fire(t.id, null, { trigger_secret: t.secret })).status).toBe(202);
  });

  it("each refusal code answers 422 with the spec's body and a recorded validation_failed run", async () => {
    await stack.services.inventory.report(
      ["scip", "highs", "cbc", "glpk", "jaos"].map((name) => ({ name, available: name !== "glpk", version: null, detail: null })),
      "test",
      stack.services.clock.now(),
    );
    const t = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [
        { name: "capacity", type: "number", required: true },
        { name: "solver_name", type: "string", required: false },
      ],
    });
    const cases = [
      {
        body: { override_data: { capacity: 5, colour: "red", size: 2 } },
        code: "trigger.override_unknown_fields",
        params: { unknown_fields: ["colour", "size"], allowed_fields: ["capacity", "solver_name"] },
      },
      { body: { override_data: {} }, code: "trigger.override_missing_required", params: { missing_fields: ["capacity"] } },
      { body: { override_data: { capacity: 5, solver_name: "glpk" } }, code: "trigger.solver_unavailable", params: { solver_name: "glpk" } },
      { body: { override_data: { capacity: 5, solver_name: "gurobi" } }, code: "trigger.solver_unavailable", params: { solver_name: "gurobi" } },
    ];
    const runIds: string[] = [];
    for (const c of cases) {
      const r = await fire(t.id, t.secret, c.body);
      expect(r.status, c.code).toBe(422);
      expect(r.body).toEqual({
        detail: { error: expect.any(String), run_id: expect.stringMatching(/^run_/) },
        code: c.code,
        params: expect.objectContaining(c.params),
        status_code: 422,
      });
      const recorded = await stack.api.get(`/api/v2/triggers/${t.id}/runs/${r.body.detail.run_id}`);
      expect(recorded.body).toMatchObject({
        status: "validation_failed",
        validation: { code: c.code },
        override_data: c.body.override_data,
        error: r.body.detail.error,
      });
      runIds.push(r.body.detail.run_id);
    }
    const history = await runsOf(t.id);
    expect(history.total).toBe(cases.length);
    expect(history.items.map((r: any) => r.id)).toEqual([...runIds].reverse());
    expect((await stack.api.get(`/api/v2/triggers/${t.id}`)).body.total_runs).toBe(cases.length);

    // A value of the wrong type is not among the spec's refusals: the run is queued and fails at compile.
    const wrongType = await fire(t.id, t.secret, { override_data: { capacity: "lots", solver_name: "cbc" } });
    expect(wrongType.status).toBe(202);
    const failed = await eventually(
      () => stack.api.get(`/api/v2/triggers/${t.id}/runs/${wrongType.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(failed.body).toMatchObject({ status: "failed", error: expect.stringMatching(/capacity/) });

    // The trigger's own solver is checked too: glpk pinned on the trigger is unavailable here.
    await stack.api.patch(`/api/v2/triggers/${t.id}`, { solver_name: "glpk" });
    const bySolver = await fire(t.id, t.secret, { override_data: { capacity: 5 } });
    expect(bySolver.body.code).toBe("trigger.solver_unavailable");
    // …and an override naming a solver wins over it.
    const overridden = await fire(t.id, t.secret, { override_data: { capacity: 9, solver_name: "cbc" } });
    expect(overridden.status).toBe(202);
    const done = await eventually(
      () => stack.api.get(`/api/v2/triggers/${t.id}/runs/${overridden.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(done.body).toMatchObject({ status: "completed", solver_name: "cbc", result_data: { objective_value: KNAPSACK_BEST[9], solver_name: "cbc" } });
    await stack.services.inventory.report(stack.solvers, "test", stack.services.clock.now());
  });
});

describe.runIf(run)("run now, rerun and history", () => {
  it("run now takes a session or an API key, never the trigger secret; answers pending with a trun_ id", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId, override_schema: [capacityField] });
    expect((await stack.api.as(t.secret).post(`/api/v2/triggers/${t.id}/run`)).status).toBe(401);
    const byKey = await stack.api.post(`/api/v2/triggers/${t.id}/run`);
    expect(byKey.status).toBe(202);
    expect(byKey.body).toEqual({ run_id: expect.stringMatching(/^trun_/), status: "pending" });
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email: "owner@example.test", password: "correct horse battery" });
    const bySession = await stack.api.as(login.body.access_token).post(`/api/v2/triggers/${t.id}/run`);
    expect(bySession.status).toBe(202);
    const done = await eventually(
      () => stack.api.get(`/api/v2/triggers/${t.id}/runs/${byKey.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(done.body).toMatchObject({
      status: "completed",
      source: "run_now",
      override_data: { capacity: 5 },
      result_data: { objective_value: KNAPSACK_BEST[5] },
    });
  });

  it("run now with a required field and no default answers 422 and records no run", async () => {
    const t = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [{ name: "capacity", type: "number", required: true }],
    });
    const r = await stack.api.post(`/api/v2/triggers/${t.id}/run`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "trigger.override_missing_required", detail: { run_id: null } });
    expect((await runsOf(t.id)).total).toBe(0);
    expect((await stack.api.get(`/api/v2/triggers/${t.id}`)).body.total_runs).toBe(0);
  });

  it("rerun takes an API key (not the trigger secret), reuses the override data, and refuses what would be refused again", async () => {
    const t = await createTrigger(stack.api, { document_id: doc.documentId, version_id: doc.versionId, override_schema: [capacityField] });
    const first = await fire(t.id, t.secret, { override_data: { capacity: 7 } });
    expect((await stack.api.as(t.secret).post(`/api/v2/triggers/${t.id}/runs/${first.body.run_id}/rerun`)).status).toBe(401);
    const again = await stack.api.post(`/api/v2/triggers/${t.id}/runs/${first.body.run_id}/rerun`);
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ run_id: expect.stringMatching(/^run_/), status: "queued" });
    const done = await eventually(
      () => stack.api.get(`/api/v2/triggers/${t.id}/runs/${again.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(done.body).toMatchObject({
      source: "rerun",
      rerun_of: first.body.run_id,
      override_data: { capacity: 7 },
      result_data: { objective_value: KNAPSACK_BEST[7] },
    });

    await stack.api.patch(`/api/v2/triggers/${t.id}`, { override_schema: [] });
    const before = (await runsOf(t.id)).total;
    const refused = await stack.api.post(`/api/v2/triggers/${t.id}/runs/${first.body.run_id}/rerun`);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "trigger.override_unknown_fields", detail: { run_id: null }, params: { unknown_fields: ["capacity"] } });
    expect((await runsOf(t.id)).total).toBe(before);
  });

  it("history is paginated newest first with page_size at most 100", async () => {
    const t = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [{ name: "capacity", type: "number", required: true }],
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await fire(t.id, t.secret, { override_data: {} })).body.detail.run_id);
    const p1 = await stack.api.get(`/api/v2/triggers/${t.id}/runs?page=1&page_size=2`);
    const p2 = await stack.api.get(`/api/v2/triggers/${t.id}/runs?page=2&page_size=2`);
    const p3 = await stack.api.get(`/api/v2/triggers/${t.id}/runs?page=3&page_size=2`);
    const p4 = await stack.api.get(`/api/v2/triggers/${t.id}/runs?page=4&page_size=2`);
    expect(p1.body).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect([...p1.body.items, ...p2.body.items, ...p3.body.items].map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(p4.body.items).toEqual([]);
    expect(Object.keys(p1.body.items[0]).sort()).toEqual(["completed_at", "created_at", "id", "override_data", "result_data", "status", "trigger_id"]);
    expect((await stack.api.get(`/api/v2/triggers/${t.id}/runs?page_size=101`)).status).toBe(422);
    expect((await stack.api.get(`/api/v2/triggers/${t.id}/runs/run_00000000000000000000000000`)).status).toBe(404);
  });
});

describe.runIf(run)("builder documents", () => {
  it("saves versions, prunes unnamed ones beyond the kept count, and never prunes a version a trigger pins", async () => {
    const d = await createKnapsackDocument(stack.api);
    const v2 = await stack.api.post(`/api/v2/documents/${d.documentId}/versions`, {});
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ id: expect.stringMatching(/^ver_/), number: 2, name: null });
    const t = await createTrigger(stack.api, { document_id: d.documentId, version_id: v2.body.id });
    expect((await stack.api.get(`/api/v2/documents/${d.documentId}/versions/${v2.body.id}`)).body.name).toBe("v2");
    const named = await stack.api.post(`/api/v2/documents/${d.documentId}/versions`, { name: "release" });
    for (let i = 0; i < 3; i++) await stack.api.post(`/api/v2/documents/${d.documentId}/versions`, {});
    const view = await stack.api.get(`/api/v2/models/${d.documentId}`);
    expect(view.status).toBe(200);
    // Versions 1 and 2 (pinned), 3 "release", then 4, 5, 6 unnamed. Kept: the 2 newest unnamed (6, 5),
    // the named release (3) and the pinned v2; v1 and v4 are pruned.
    expect(view.body.versions.map((v: any) => v.number)).toEqual([6, 5, 3, 2]);
    expect(view.body.versions.find((v: any) => v.number === 3).id).toBe(named.body.id);
    expect(view.body).toMatchObject({
      version_count: 6,
      latest_version: { number: 6, model: { kind: "jmodel" }, overridable: ["ITEMS", "weight", "value", "capacity"] },
    });
    expect((await stack.api.get(`/api/v2/documents/${d.documentId}/versions/${d.versionId}`)).status).toBe(404);
    expect((await fire(t.id, t.secret)).status).toBe(202);
  });

  it("executes a version with the trigger's override rules as an async execution", async () => {
    const ex = await stack.api.post(`/api/v2/models/${doc.documentId}/execute`, { override_data: { capacity: 9 } });
    expect(ex.status).toBe(202);
    expect(ex.body).toMatchObject({ execution_id: expect.stringMatching(/^exe_/), status: "queued", version_id: doc.versionId });
    const done = await eventually(
      () => stack.api.get(`/api/v2/models/executions/${ex.body.execution_id}`),
      (r) => ["completed", "failed"].includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(done.body).toMatchObject({
      status: "completed",
      solver_name: "cbc",
      origin: { kind: "document_run", id: doc.documentId },
      result: { objective_value: KNAPSACK_BEST[9] },
    });

    const unknown = await stack.api.post(`/api/v2/models/${doc.documentId}/execute`, { override_data: { colour: 1 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: "trigger.override_unknown_fields", detail: { run_id: null } });
    const broken = await stack.api.post(`/api/v2/models/${doc.documentId}/execute`, { override_data: { capacity: -1 } });
    expect(broken.status).toBe(422);
    expect(broken.body.error_code).toBe("model_did_not_compile");
  });

  it("a document run takes a priority like an async solve: shown on the execution, above 0 for admins and owners only", async () => {
    const urgent = await stack.api.post(`/api/v2/models/${doc.documentId}/execute`, { override_data: { capacity: 9 }, priority: 10 });
    expect(urgent.status).toBe(202);
    expect((await stack.api.get(`/api/v2/models/executions/${urgent.body.execution_id}`)).body.priority).toBe(10);
    const orgId = stack.bootstrap.organizationId;
    const solver = await stack.services.auth.createUser(orgId, {
      email: `doc-solver-${Date.now()}@example.test`,
      password: "solver password 1",
      role: "solver",
    });
    const key = await stack.services.auth.createApiKey({ kind: "session", userId: solver.id, orgId, role: "solver", keyId: null }, { name: "solver key" });
    const asSolver = stack.api.as(key.key);
    const refused = await asSolver.post(`/api/v2/models/${doc.documentId}/execute`, { priority: 10 });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/Priority above 0/);
    const batch = await asSolver.post(`/api/v2/models/${doc.documentId}/execute`, { priority: -10 });
    expect(batch.status).toBe(202);
    expect((await stack.api.get(`/api/v2/models/executions/${batch.body.execution_id}`)).body.priority).toBe(-10);
    for (const id of [urgent.body.execution_id, batch.body.execution_id])
      await eventually(
        () => stack.api.get(`/api/v2/models/executions/${id}`),
        (r) => ["completed", "failed"].includes(r.body.status),
        { timeoutMs: 60_000 },
      );
  });

  it("a problem document runs its canonical problem", async () => {
    const problem = {
      name: "tiny",
      sense: "maximize",
      variables: [{ name: "x", lb: 0, ub: 4, type: "integer" }],
      objective: { constant: 0, terms: [{ var: "x", coef: 2 }] },
      constraints: [],
    };
    const created = await stack.api.post("/api/v2/documents", { name: "flat", model: { kind: "problem", problem }, solver_name: "cbc" });
    expect(created.status).toBe(201);
    const t = await createTrigger(stack.api, { document_id: created.body.id, version_id: created.body.version_id });
    const fired = await fire(t.id, t.secret);
    const done = await eventually(
      () => stack.api.get(`/api/v2/triggers/${t.id}/runs/${fired.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 60_000 },
    );
    expect(done.body.result_data).toMatchObject({ objective_value: 8, status: "optimal" });
  });
});

describe.runIf(run)("OpenAPI", () => {
  it("documents the trigger, document and credit-grant routes with their shapes", async () => {
    const doc = await stack.api.as(null).get("/api/v2/openapi.json");
    expect(doc.status).toBe(200);
    const paths = doc.body.paths;
    for (const p of [
      "/api/v2/triggers",
      "/api/v2/triggers/{trigger_id}",
      "/api/v2/triggers/{trigger_id}/fire",
      "/api/v2/triggers/{trigger_id}/run",
      "/api/v2/triggers/{trigger_id}/toggle",
      "/api/v2/triggers/{trigger_id}/runs",
      "/api/v2/triggers/{trigger_id}/runs/{run_id}",
      "/api/v2/triggers/{trigger_id}/runs/{run_id}/rerun",
      "/api/v2/documents",
      "/api/v2/documents/{document_id}/versions",
      "/api/v2/models/{document_id}",
      "/api/v2/models/{document_id}/execute",
      "/api/v2/credits/grant",
    ]) {
      expect(paths[p], p).toBeDefined();
    }
    // The 422 is written once in components.responses and named by the error names it may carry.
    const fire422Ref: string = paths["/api/v2/triggers/{trigger_id}/fire"].post.responses["422"].$ref;
    const fire422 = JSON.stringify(doc.body.components.responses[fire422Ref.split("/").pop()!]);
    expect(fire422).toContain("#/components/schemas/TriggerInputRefused");
    expect(JSON.stringify(doc.body.components.schemas.TriggerInputRefused)).toContain("trigger.override_unknown_fields");
  });
});

describe.runIf(run)("credit grants", () => {
  it("the operator's grant adds credits, notifies with credits_purchased and shows in the history; an owner's is refused", async () => {
    const before = (await stack.api.get("/api/v2/credits/balance")).body.credits_remaining;
    const own = await stack.api.post("/api/v2/credits/grant", { organization_id: stack.bootstrap.organizationId, credits: 500 });
    expect(own.status).toBe(403);
    const operator = stack.api.as(OPERATOR_TOKEN);
    const granted = await operator.post("/api/v2/credits/grant", { organization_id: stack.bootstrap.organizationId, credits: 500, note: "invoice 42" });
    expect(granted.status, granted.text).toBe(200);
    expect(granted.body.credits_remaining).toBe(before + 500);
    const notes = await stack.api.get("/api/v2/notifications?limit=100");
    expect(notes.body.items).toContainEqual(
      expect.objectContaining({
        type: "credits_purchased",
        link: "/credits",
        data: expect.objectContaining({ credits_granted: 500, credits_remaining: before + 500, granted_by: "operator" }),
      }),
    );
    const history = await stack.api.get("/api/v2/credits/history?limit=5");
    expect(history.status).toBe(200);
    expect(history.body.entries[0]).toMatchObject({ kind: "operator_grant", credits: 500, balance_after: before + 500, note: "invoice 42" });
    expect((await operator.post("/api/v2/credits/grant", { organization_id: "org_nobody", credits: 1 })).status).toBe(404);
  });
});
