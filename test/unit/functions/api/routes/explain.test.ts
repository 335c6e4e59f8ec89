import { describe, expect, it } from "vitest";
import type { ApiDeps } from "../../../../../functions/api/http/context.js";
import { type BlobStore, loadPayload, storePayload } from "../../../../../functions/core/blob/blob-store.js";
import { ExecutionService } from "../../../../../functions/core/executions/service.js";
import type { ExecutionRecord } from "../../../../../functions/core/executions/store.js";
import { compileJModel } from "../../../../../functions/core/jmodel/index.js";
import { SolveAdmission } from "../../../../../functions/core/limits/solve-admission.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import type { SolverStatus } from "../../../../../functions/core/solvers/types.js";
import { as, fakeApp } from "../../../../support/fake-api.js";

const PROBLEM: Problem = {
  name: "clash",
  sense: "minimize",
  variables: [{ name: "x", type: "continuous", lb: 0, ub: 1 }],
  objective: { constant: 0, terms: [{ var: "x", coef: 1 }] },
  constraints: [{ name: "at_least_two", terms: [{ var: "x", coef: 1 }], lb: 2, ub: null }],
};

const post = (token = "solver") => as(token, { method: "POST" });

/**
 * The real execution service over an organization's executions, blobs, credits, quota and queue in
 * memory: what explaining touches, recorded in order.
 */
function world(options: { solvers?: string[]; balance?: number } = {}) {
  const log: string[] = [];
  let balance = options.balance ?? 100;
  const items = new Map<string, ExecutionRecord>();
  const files = new Map<string, string>();
  const blobs: BlobStore = {
    put: async (key, body) => void files.set(key, typeof body === "string" ? body : new TextDecoder().decode(body)),
    get: async (key) => files.get(key) ?? null,
    delete: async (key) => void files.delete(key),
  };
  const executionStore = {
    get: async (orgId: string, id: string) => {
      const r = items.get(id);
      return r && r.org_id === orgId ? structuredClone(r) : null;
    },
    create: async (r: ExecutionRecord) => void items.set(r.id, structuredClone(r)),
    linkExplanation: async (_orgId: string, id: string, explanationId: string) => {
      items.get(id)!.explanation_execution_id = explanationId;
      return true;
    },
    failUnheld: async () => null,
  };
  const fairShare = { dispatch: async (job: { id: string; priority: number }) => void log.push(`enqueue ${job.id} at ${job.priority}`) };
  const { deps: base } = fakeApp();
  const admission = new SolveAdmission({
    config: base.config,
    clock: base.clock,
    blobs,
    credits: {
      perSolve: () => 3,
      charge: async (_org, amount) => {
        if (balance < amount) throw new Error("insufficient");
        balance -= amount;
        log.push(`charge ${amount}`);
        return balance;
      },
      refund: async () => undefined,
      noticeLowBalance: async () => undefined,
    },
    quota: { charge: async (_org, solves) => void log.push(`quota ${solves}`) },
  });
  const available = new Set(options.solvers ?? ["highs", "scip", "cbc", "glpk"]);
  const executions = new ExecutionService({
    config: base.config,
    clock: base.clock,
    executionStore: executionStore as never,
    blobs,
    inventory: { available: async () => available } as never,
    admission,
    fairShare: fairShare as never,
    finalSignals: { heard: false } as never,
  });
  const { app } = fakeApp({ executions: executions as ApiDeps["executions"] });

  /** An execution as a worker leaves it: `verdict` null for one that never finished. */
  async function stored(id: string, verdict: SolverStatus | null, extra: Partial<ExecutionRecord> = {}, problem: Problem = PROBLEM): Promise<ExecutionRecord> {
    const record: ExecutionRecord = {
      id,
      org_id: extra.org_id ?? "org_test",
      created_by: "usr_owner",
      status: verdict === null ? "running" : "completed",
      origin: { kind: "solve_async", id: null },
      priority: 7,
      notify: true,
      solver_requested: "auto",
      solver_name: "scip",
      problem: await storePayload(blobs, `problems/${id}.json`, { value: problem, inlineMaxBytes: 0 }),
      problem_name: problem.name,
      problem_class: "LP",
      variable_count: problem.variables.length,
      constraint_count: problem.constraints.length,
      settings: { time_limit_seconds: 17, gap_tolerance: 0.01, threads: 1, ranging: true },
      credits_charged: 3,
      created_at: "2026-11-23T17:00:00.000Z",
      started_at: "2026-11-23T17:00:00.100Z",
      completed_at: verdict === null ? null : "2026-11-23T17:00:01.000Z",
      error_message: null,
      result:
        verdict === null
          ? null
          : {
              inline: JSON.stringify({
                execution_id: id,
                status: verdict,
                solver_status: verdict,
                solver_name: "scip",
                objective_value: null,
                dual_bound: null,
                gap: null,
                nodes: null,
                iterations: null,
                wall_time_ms: 5,
                solver_version: "10",
                error_message: null,
                solve_time_seconds: 0.01,
                solution: null,
              }),
            },
      deadline_ms: null,
      ...extra,
    };
    items.set(id, record);
    return record;
  }
  return { app, log, items, blobs, stored, balance: () => balance };
}

describe("POST /api/v2/models/executions/{id}/explain: ask after the fact why a model is infeasible", () => {
  it("queues a new execution of the same problem, solver, time limit and gap with explain_infeasibility, charged as a solve, linked both ways", async () => {
    const w = world();
    await w.stored("exe_orig", "infeasible");
    const res = await w.app.request("/api/v2/models/executions/exe_orig/explain", post());
    expect(res.status).toBe(202);
    const view = (await res.json()) as Record<string, any>;
    expect(view).toMatchObject({
      status: "queued",
      solver_name: "scip",
      solver_requested: "scip",
      problem_name: "clash",
      origin: { kind: "explanation", id: "exe_orig" },
      explains_execution_id: "exe_orig",
      explanation_execution_id: null,
      priority: 0,
      credits_charged: 3,
      result: null,
    });
    expect(view.settings).toEqual({ time_limit_seconds: 17, gap_tolerance: 0.01, threads: expect.any(Number), explain_infeasibility: true });
    expect(view.id).toMatch(/^exe_/);
    expect(view.id).not.toBe("exe_orig");
    expect(w.log).toEqual(["charge 3", "quota 1", `enqueue ${view.id} at 0`]);

    const explanation = w.items.get(view.id)!;
    expect(await loadPayload(w.blobs, explanation.problem)).toEqual(PROBLEM);
    const original = await w.app.request("/api/v2/models/executions/exe_orig", as("viewer"));
    expect(await original.json()).toMatchObject({ id: "exe_orig", explanation_execution_id: view.id, explains_execution_id: null });
    const again = await w.app.request(`/api/v2/models/executions/${view.id}`, as("viewer"));
    expect(await again.json()).toMatchObject({ id: view.id, explains_execution_id: "exe_orig" });
  });

  it("answers 409 execution_not_infeasible, charging nothing, for an execution that ended otherwise or has not ended", async () => {
    const w = world();
    await w.stored("exe_opt", "optimal");
    await w.stored("exe_run", null);
    const optimal = await w.app.request("/api/v2/models/executions/exe_opt/explain", post());
    expect(optimal.status).toBe(409);
    expect(await optimal.json()).toMatchObject({ error: "execution_not_infeasible", status: "completed", solver_status: "optimal" });
    const running = await w.app.request("/api/v2/models/executions/exe_run/explain", post());
    expect(running.status).toBe(409);
    expect(await running.json()).toMatchObject({ error: "execution_not_infeasible", status: "running", solver_status: null });
    expect(w.log).toEqual([]);
    expect(w.items.get("exe_opt")!.explanation_execution_id).toBeUndefined();
  });

  it("answers 404 for an unknown execution and for another organization's", async () => {
    const w = world();
    await w.stored("exe_theirs", "infeasible", { org_id: "org_other" });
    for (const id of ["exe_none", "exe_theirs"]) {
      const res = await w.app.request(`/api/v2/models/executions/${id}/explain`, post());
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not_found" });
    }
    expect(w.log).toEqual([]);
  });

  it("refuses a viewer (403) before anything is read or charged", async () => {
    const w = world();
    await w.stored("exe_orig", "infeasible");
    const res = await w.app.request("/api/v2/models/executions/exe_orig/explain", post("viewer"));
    expect(res.status).toBe(403);
    expect(w.log).toEqual([]);
  });

  it("answers 422 no_solver_can_run_this_model when the solver that proved infeasibility is gone, charging nothing", async () => {
    const w = world({ solvers: ["highs"] });
    await w.stored("exe_orig", "infeasible");
    const res = await w.app.request("/api/v2/models/executions/exe_orig/explain", post());
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: "no_solver_can_run_this_model", reasons: { scip: "not_available" } });
    expect(w.log).toEqual([]);
  });

  it("carries a JModel execution's names over to its explanation, and makes a new explanation on each ask", async () => {
    const w = world();
    const compiled = compileJModel("var x >= 0, <= 1;\nminimize c: x;\nsubject to two: x >= 2;\n", {});
    const names = { inline: JSON.stringify({ constraints: [["two", "two"]], variables: [["x", "x"]] }) };
    await w.stored("exe_doc", "infeasible", { origin: { kind: "document_run", id: "doc_1" }, model_names: names }, compiled.problem);
    const first = (await (await w.app.request("/api/v2/models/executions/exe_doc/explain", post())).json()) as { id: string };
    const second = (await (await w.app.request("/api/v2/models/executions/exe_doc/explain", post())).json()) as { id: string };
    expect(first.id).not.toBe(second.id);
    expect(w.items.get(first.id)!.model_names).toEqual(names);
    expect(w.items.get(second.id)!.explains_execution_id).toBe("exe_doc");
    expect(w.items.get("exe_doc")!.explanation_execution_id).toBe(second.id);
    expect(w.balance()).toBe(94);
  });
});
