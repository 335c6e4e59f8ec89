import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api } from "../support/api.js";
import { randomSuffix } from "./target.js";
import { SMALL_MILP } from "../support/models.js";

/**
 * The black-box suite: HTTP only, against whatever BASE_URL/API_KEY name (or the local stack the global
 * setup started with `npm start`). What it creates it removes again where the API allows.
 */
const target = inject("target");
const api = new Api(target.baseUrl, target.apiKey);
const anon = api.as(null);
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const undo of cleanup.reverse()) await undo().catch(() => undefined);
});

async function poll<T = any>(path: string, done: (b: any) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(path);
    expect(res.status, res.text).toBe(200);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`timeout on ${path}: ${res.text}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
const final = (b: { status: string }) => ["completed", "failed", "cancelled"].includes(b.status);

const MILP = { ...SMALL_MILP, name: "e2e-milp" };
const MPS = `NAME          E2E
ROWS
 N  COST
 L  LIM1
 G  LIM2
COLUMNS
    X         COST         1.0   LIM1         1.0
    X         LIM2         1.0
    Y         COST         2.0   LIM1         1.0
RHS
    RHS       LIM1         4.0   LIM2         1.0
BOUNDS
 UP BND       X            4.0
ENDATA
`;

describe("public endpoints", () => {
  it("reports health, component status and metrics without credentials", async () => {
    const health = await anon.get("/api/v2/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    const status = await anon.get("/api/v2/health/status");
    expect(status.body.components.map((c: { name: string }) => c.name)).toEqual(["database", "solver", "memory", "disk"]);
    expect((await anon.get("/api/v2/health/metrics")).body.total_requests).toBeGreaterThan(0);
    expect((await anon.get("/api/v2/health/metrics/recent?limit=3")).body.items.length).toBeLessThanOrEqual(3);
  });

  it("quotes credits with the spec's formula", async () => {
    const res = await anon.post("/api/v2/credits/calculator", {
      num_variables: 101,
      num_integer_vars: 4,
      num_binary_vars: 0,
      num_constraints: 51,
      time_limit_seconds: 121,
    });
    expect(res.body.credits_required).toBe(22);
    expect(res.headers.get("x-ratelimit-limit")).toEqual(expect.any(String));
  });

  it("publishes the OpenAPI document and the reference page", async () => {
    const doc = await anon.get("/api/v2/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/api/v2/solve", "/api/v2/solvers/compare", "/api/v2/solvers/compare/batches"]));
    expect((await anon.get("/api/v2/docs")).text).toContain("<h1>");
  });
});

describe("identity", () => {
  it("refuses a missing or unknown credential with 401 unauthorized", async () => {
    for (const client of [anon, api.as("inc_key_unknown")]) {
      const res = await client.get("/api/v2/credits/balance");
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error_code: "unauthorized", status_code: 401 });
    }
  });

  it("creates an API key shown once, authenticates with it, lists it without the secret, and revokes it", async () => {
    const created = await api.post("/api/v2/keys", { name: `e2e-${randomSuffix()}` });
    expect(created.status).toBe(201);
    cleanup.push(() => api.delete(`/api/v2/keys/${created.body.id}`));
    const me = await api.as(created.body.key).get("/api/v2/auth/me");
    expect(me.body.credential).toBe("api_key");
    const list = await api.get("/api/v2/keys");
    expect(list.text).not.toContain(created.body.key);
    expect((await api.delete(`/api/v2/keys/${created.body.id}`)).body.status).toBe("revoked");
  });

  it("answers every response with rate-limit headers", async () => {
    const res = await api.get("/api/v2/credits/balance");
    for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit-policy", "ratelimit"])
      expect(res.headers.get(h), h).not.toBeNull();
  });
});

describe("solving", () => {
  let available: string[] = [];
  beforeAll(async () => {
    const res = await api.get("/api/v2/solvers/available");
    available = res.body.solvers.filter((s: { available: boolean }) => s.available).map((s: { name: string }) => s.name);
  });

  it("lists the five solvers and what each can express", async () => {
    const res = await api.get("/api/v2/solvers/available");
    expect(res.body.solvers.map((s: { name: string }) => s.name)).toEqual(["scip", "highs", "cbc", "glpk", "jaos"]);
    expect(available.length).toBeGreaterThan(0);
  });

  it("solves a MILP with auto and waits for the answer", async () => {
    const res = await api.post("/api/v2/solve", { problem: MILP, solver_name: "auto" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "optimal", solver_status: "optimal", objective_value: 10.5, solution: { x: 0.5, y: 5 } });
    expect(available).toContain(res.body.solver_name);
  });

  it("runs an async solve to completion and notifies its user", async () => {
    const before = (await api.get("/api/v2/notifications/unread-count")).body.unread_count;
    const res = await api.post("/api/v2/solve/async", { problem: MILP, solver_name: "auto" });
    expect(res.status).toBe(202);
    const exe = await poll(`/api/v2/models/executions/${res.body.execution_id}`, final);
    expect(exe).toMatchObject({ status: "completed", result: { objective_value: 10.5 } });
    const after = await poll("/api/v2/notifications/unread-count", (b) => b.unread_count > before, 30_000);
    expect(after.unread_count).toBe(before + 1);
    const list = await api.get("/api/v2/notifications?unread_only=true&limit=5");
    const mine = list.body.items.find((n: { data: { execution_id?: string } }) => n.data.execution_id === res.body.execution_id);
    expect(mine).toMatchObject({ type: "execution_complete", is_read: false, link: `/executions/${res.body.execution_id}` });
    expect((await api.post(`/api/v2/notifications/${mine.id}/read`)).body).toEqual({ success: true, marked_count: 1 });
    expect((await api.post("/api/v2/notifications/ntf_missing/read")).status).toBe(404);
  });

  it("parses an uploaded MPS file into a problem and compares solvers on it", async () => {
    const form = new FormData();
    form.set("file", new Blob([MPS]), "e2e.mps");
    const res = await api.send("POST", "/api/v2/solve/import/preview", { body: form });
    const preview = res.body;
    expect(res.status, res.text).toBe(200);
    expect(preview.stats).toMatchObject({ problem_class: "LP", variable_count: 2, constraint_count: 2 });

    const solvers = available.filter((s) => s !== "jaos").slice(0, 3);
    const launched = await api.post("/api/v2/solvers/compare", { problem: preview.problem, solver_names: solvers, uploaded_filename: "e2e.mps" });
    expect(launched.status, launched.text).toBe(202);
    const done = await poll(`/api/v2/solvers/compare/${launched.body.id}`, final);
    expect(done.status).toBe("completed");
    expect(done.results.every((r: { objective_value: number }) => Math.abs(r.objective_value - 1) < 1e-9)).toBe(true);
    if (solvers.length >= 2) expect(done.agreement.objectives_agree).toBe(true);
  });

  it("reads the same file gzip-compressed (e2e.mps.gz), and refuses a bzip2 one with 422", async () => {
    const form = new FormData();
    form.set("file", new Blob([gzipSync(MPS)]), "e2e.mps.gz");
    const res = await api.send("POST", "/api/v2/solve/import/preview", { body: form });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ filename: "e2e.mps.gz", format: "mps", compression: "gzip", stats: { problem_class: "LP", variable_count: 2 } });
    const bzip2 = new FormData();
    bzip2.set("file", new Blob([Buffer.from("BZh91AY&SY", "latin1")]), "e2e.mps.bz2");
    const refused = await api.send("POST", "/api/v2/solve/import/preview", { body: bzip2 });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error_code: "invalid_problem_file" });
  });

  it("points at the bad line of an unreadable file", async () => {
    const res = await api.post("/api/v2/solve/import/preview", { content: "NAME X\nROWS\n N COST\nCOLUMNS\n X COST notanumber\nENDATA\n", format: "mps" });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error_code: "invalid_problem_file", line: 5 });
  });
});

describe("model projects and matrices", () => {
  it("compiles a JModel project against two datasets and compares solvers on each", async () => {
    const source = `set ITEMS;\nparam w{ITEMS} > 0;\nparam v{ITEMS} >= 0;\nparam cap >= 0;\nvar take{ITEMS} binary;\nmaximize value: sum{i in ITEMS} v[i] * take[i];\nsubject to fits: sum{i in ITEMS} w[i] * take[i] <= cap;\n`;
    const project = await api.post("/api/v2/projects", { name: `e2e knapsack ${randomSuffix()}`, jmodel_source: source });
    expect(project.status, project.text).toBe(201);
    cleanup.push(() => api.delete(`/api/v2/projects/${project.body.id}`));
    const datasets = [];
    for (const [name, data] of [
      ["small", { ITEMS: ["a", "b", "c"], w: { a: 2, b: 3, c: 4 }, v: { a: 3, b: 4, c: 5 }, cap: 5 }],
      ["large", { ITEMS: ["a", "b", "c", "d"], w: { a: 2, b: 3, c: 4, d: 5 }, v: { a: 3, b: 4, c: 5, d: 6 }, cap: 9 }],
    ] as const) {
      const d = await api.post(`/api/v2/projects/${project.body.id}/datasets`, { name, data });
      expect(d.status).toBe(201);
      datasets.push(d.body.id);
    }
    const matrix = await api.post("/api/v2/solvers/compare/batches", { project_id: project.body.id, dataset_ids: datasets, solver_names: ["highs", "cbc"] });
    expect(matrix.status, matrix.text).toBe(202);
    const done = await poll(`/api/v2/solvers/compare/batches/${matrix.body.batch_id}`, final);
    expect(done.status).toBe("completed");
    expect(done.rows.map((r: { results: { objective_value: number }[] }) => r.results.map((c) => c.objective_value))).toEqual([
      [7, 7],
      [12, 12],
    ]);
  });
});

describe("marketplace", () => {
  it("creates a project from a marketplace model with its datasets, and compares solvers on them", async () => {
    const list = await api.get("/api/v2/marketplace");
    expect(list.body.models.map((m: { id: string }) => m.id)).toContain("knapsack");
    const created = await api.post("/api/v2/projects/from-marketplace/knapsack", { name: `e2e marketplace ${randomSuffix()}` });
    expect(created.status, created.text).toBe(201);
    expect(created.body.project.kind).toBe("jmodel");
    cleanup.push(() => api.delete(`/api/v2/projects/${created.body.project.id}`));
    const byName = Object.fromEntries(created.body.datasets.map((d: { name: string; id: string }) => [d.name, d.id]));
    const matrix = await api.post("/api/v2/solvers/compare/batches", {
      project_id: created.body.project.id,
      dataset_ids: [byName.default, byName.p01],
      solver_names: ["highs", "cbc"],
    });
    expect(matrix.status, matrix.text).toBe(202);
    const done = await poll(`/api/v2/solvers/compare/batches/${matrix.body.batch_id}`, final);
    // Rosetta Code's knapsack: 1030; Burkardt's P01: 309 (checked by dynamic programming in the JModel tests).
    expect(done.rows.map((r: { results: { objective_value: number }[] }) => r.results.map((c) => c.objective_value))).toEqual([
      [1030, 1030],
      [309, 309],
    ]);
    expect((await api.post("/api/v2/projects/from-marketplace/no-such-model", {})).status).toBe(404);

    // Datasets and projects can be deleted; the matrix made from them keeps what it ran.
    const projectId = created.body.project.id;
    expect((await api.delete(`/api/v2/projects/${projectId}/datasets/${byName.p01}`)).status).toBe(204);
    expect((await api.get(`/api/v2/projects/${projectId}/datasets/${byName.p01}`)).status).toBe(404);
    expect((await api.delete(`/api/v2/projects/${projectId}`)).status).toBe(204);
    expect((await api.get(`/api/v2/projects/${projectId}`)).status).toBe(404);
    expect((await api.delete(`/api/v2/projects/${projectId}`)).status).toBe(404);
    expect((await api.get(`/api/v2/solvers/compare/batches/${matrix.body.batch_id}`)).body.rows).toHaveLength(2);
  });
});
