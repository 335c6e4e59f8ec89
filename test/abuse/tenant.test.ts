import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Api } from "../support/test-stack.js";
import { FINAL_RUN_STATUSES, eventually } from "../support/triggers.js";
import { type AbuseStack, selfSignedUpTenant, startAbuseStack, whileAttacking } from "./support.js";

/**
 * Issue 25, smaller attacks by a tenant who signed up a minute ago: tool calls batched past the rate
 * limits, user-named keys that are the prototype's, webhook URLs that reach the service's own network,
 * and solver errors that tell the server's paths. The stack's `glpsol` is a stand-in that fails the way
 * GLPK does on a file it cannot read, naming the file (so what the service says can be checked).
 */
let stack: AbuseStack;
let tenant: { api: Api; orgId: string };
let shim: string;
const savedPath = process.env.PATH;

beforeAll(async () => {
  shim = mkdtempSync(path.join(tmpdir(), "incumbent-abuse-glpsol-"));
  writeFileSync(
    path.join(shim, "glpsol"),
    [
      "#!/bin/sh",
      'case "$*" in *--version*) echo "GLPSOL--GLPK LP/MIP Solver 5.0"; exit 0;; esac',
      'for a in "$@"; do case "$a" in /*.mps|/*.lp) echo "$a:4: missing COLUMNS indicator record"; break;; esac; done',
      'echo "MPS file processing error in $(pwd)"; exit 1',
      "",
    ].join("\n"),
  );
  chmodSync(path.join(shim, "glpsol"), 0o755);
  // The stack probes with this process's PATH and its worker inherits it.
  process.env.PATH = `${shim}${path.delimiter}${savedPath}`;
  // Organizations' windows counted per day only (120), so no window boundary falls inside a test.
  stack = await startAbuseStack({ LOCAL_WORKERS: "1", PATH: process.env.PATH, INSTANCE_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_RATE_LIMIT_PER_DAY: "120" });
  tenant = await selfSignedUpTenant(stack);
  await stack.workers.ready();
});
afterAll(async () => {
  await stack?.stop();
  process.env.PATH = savedPath;
  rmSync(shim, { recursive: true, force: true });
});

const PROBLEM = { name: "p", sense: "maximize", variables: [{ name: "x", lb: 0, ub: 4 }], objective: { terms: [{ var: "x", coef: 1 }] }, constraints: [] };
const rpc = (id: number, name: string, args: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("a JSON-RPC batch of tool calls", () => {
  it("counts each call: 10 compare_solvers in one batch take 10 from the window, and a batch past what is left is refused whole", async () => {
    const { api } = await selfSignedUpTenant(stack);
    const mcp = (body: unknown) =>
      api.send("POST", "/api/v2/mcp", {
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      });
    const before = Number((await api.get("/api/v2/credits/balance")).headers.get("x-ratelimit-remaining"));
    const ten = await mcp(Array.from({ length: 10 }, (_, i) => rpc(i + 1, "compare_solvers", { solver_names: ["highs"], problem: PROBLEM })));
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    // The batch took ten (the header after the balance read already counted that read).
    expect(Number(ten.headers.get("x-ratelimit-remaining"))).toBe(before - 10);
    const listed = await api.get("/api/v2/solvers/compare?limit=100");
    expect(listed.body.comparisons).toHaveLength(10);
    // A batch of 100 (the most the transport takes) reads: each call counts, answered or not.
    const reads = await mcp(Array.from({ length: 100 }, (_, i) => rpc(i + 1, "get_solver_comparison", { comparison_id: `cmp_missing_${i}` })));
    expect(reads.status).toBe(200);
    const left = Number(reads.headers.get("x-ratelimit-remaining"));
    expect(left).toBe(Number(listed.headers.get("x-ratelimit-remaining")) - 100);
    // A batch larger than what is left: refused whole, none of it run.
    const flood = await mcp(Array.from({ length: left + 2 }, (_, i) => rpc(i + 1, "compare_solvers", { solver_names: ["highs"], problem: PROBLEM })));
    expect(flood.status).toBe(429);
    expect(flood.body).toMatchObject({ error: "rate_limit_exceeded", limit: 120, remaining: left - 1 });
    expect((await api.get("/api/v2/solvers/compare?limit=100")).body.comparisons).toHaveLength(10);
  });
});

describe("override fields named like the prototype's members", () => {
  it("stores and runs `constructor`, counts it missing when not sent, and refuses `__proto__` with a 422 (a 500 from the marshaller, a drop, a false present before)", async () => {
    const other = await selfSignedUpTenant(stack);
    const source = "param constructor; var x >= 0; minimize z: x; s.t. c: x >= constructor;";
    const doc = await other.api.post("/api/v2/documents", { name: "proto", model: { kind: "jmodel", source, data: { constructor: 1 } }, solver_name: "highs" });
    expect(doc.status, doc.text).toBe(201);
    const trigger = await other.api.post("/api/v2/triggers", {
      name: "proto",
      document_id: doc.body.id,
      version_id: doc.body.version_id,
      override_schema: [{ name: "constructor", type: "number", required: true }],
    });
    expect(trigger.status, trigger.text).toBe(201);
    const fire = (body: unknown) =>
      fetch(`${stack.url}/api/v2/triggers/${trigger.body.id}/fire`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${trigger.body.trigger_secret}` },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    const missing = await fire({ override_data: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: "trigger.override_missing_required", params: { missing_fields: ["constructor"] } });

    const fired = await fire({ override_data: { constructor: 2 } });
    expect(fired.status).toBe(202);
    const run = await eventually(
      () => other.api.get(`/api/v2/triggers/${trigger.body.id}/runs/${fired.body.run_id}`),
      (r) => FINAL_RUN_STATUSES.includes(r.body.status),
      { timeoutMs: 120_000 },
    );
    expect(run.body).toMatchObject({ status: "completed", override_data: { constructor: 2 }, result_data: { objective_value: 2 } });

    const proto = await fire('{"override_data": {"__proto__": {"constructor": 3}}}');
    expect(proto.status).toBe(422);
    expect(proto.body).toMatchObject({ detail: [{ type: "forbidden_key" }] });
    const named = await other.api.post("/api/v2/triggers", {
      name: "proto2",
      document_id: doc.body.id,
      version_id: doc.body.version_id,
      override_schema: [{ name: "__proto__", type: "number" }],
    });
    expect(named.status).toBe(422);
  });
});

describe("webhook URLs that reach the service's own network", () => {
  it("are refused at save time in every IPv6 form that maps a loopback IPv4, and with a trailing dot", async () => {
    const doc = await tenant.api.post("/api/v2/documents", { name: "w", model: { kind: "problem", problem: PROBLEM }, solver_name: "highs" });
    for (const url of [
      "http://[::127.0.0.1]/",
      "http://[::ffff:0:127.0.0.1]/",
      "http://[64:ff9b:1::7f00:1]/",
      "http://[2002:7f00:1::]/",
      "http://localhost./hook",
    ]) {
      const res = await tenant.api.post("/api/v2/triggers", { name: "w", document_id: doc.body.id, version_id: doc.body.version_id, webhook_url: url });
      expect(res.status, url).toBe(422);
      expect(JSON.stringify(res.body), url).toMatch(/webhook_url/);
    }
    const ok = await tenant.api.post("/api/v2/triggers", {
      name: "w",
      document_id: doc.body.id,
      version_id: doc.body.version_id,
      webhook_url: "https://hooks.example.com/x",
    });
    expect(ok.status).toBe(201);
  });
});

describe("solver errors", () => {
  it("name the files they are about, never the server's temporary folders (GLPK echoed /tmp/incumbent-glpk-…)", async () => {
    const seen = await whileAttacking(stack.url, () => tenant.api.post("/api/v2/solve/async", { problem: PROBLEM, solver_name: "glpk" }));
    expect(seen.result.status, seen.result.text).toBe(202);
    const id = seen.result.body.execution_id;
    const done = await eventually(
      () => tenant.api.get(`/api/v2/models/executions/${id}`),
      (r) => ["completed", "failed"].includes(r.body.status),
      { timeoutMs: 120_000 },
    );
    const log = await tenant.api.get(`/api/v2/models/executions/${id}/log`);
    const said = `${done.text}\n${log.text}`;
    expect(said).toMatch(/missing COLUMNS indicator record/);
    expect(said).not.toContain(tmpdir());
    expect(said).not.toMatch(/incumbent-glpk-/);
  });
});
