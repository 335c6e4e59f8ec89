import { describe, expect, it } from "vitest";
import type { BlobStore } from "../../../../../functions/core/blob/blob-store.js";
import { loadConfig } from "../../../../../functions/core/config.js";
import { Credits } from "../../../../../functions/core/credits/credits.js";
import { CreditFloorError } from "../../../../../functions/core/identity/store.js";
import { AppError } from "../../../../../functions/core/errors.js";
import { SolveAdmission } from "../../../../../functions/core/limits/solve-admission.js";
import type { Problem } from "../../../../../functions/core/problem/schema.js";
import { MAX_TIME_LIMIT_SECONDS } from "../../../../../functions/core/solvers/settings.js";
import { PriorityBudget } from "../../../../../functions/core/limits/priority-budget.js";
import { as, MemoryCounters } from "../../../../support/fake-api.js";

const problem = (variables: number): Problem =>
  ({
    name: "p",
    sense: "minimize",
    variables: Array.from({ length: variables }, (_, i) => ({ name: `x${i}`, type: "continuous", lb: 0, ub: 1 })),
    objective: { terms: [] },
    constraints: [],
  }) as unknown as Problem;

/** An organization's balance, its quota, its notices and its blobs, in memory: what the admission touches, and in which order. */
function world(options: { balance?: number; quotaLeft?: number; env?: Record<string, string> } = {}) {
  const log: string[] = [];
  let balance = options.balance ?? 1000;
  let quotaLeft = options.quotaLeft ?? 100;
  const config = loadConfig({ CREDITS_LOW_THRESHOLD: "100", ...options.env });
  const identity = {
    adjustCredits: async (_org: string, delta: number, floor: number | null) => {
      if (floor !== null && balance + delta < floor) throw new CreditFloorError({ pk: "ORG#org_test", sk: "ORG" }, { credit_balance: balance } as never);
      balance += delta;
      log.push(delta < 0 ? `charge ${-delta}` : `refund ${delta}`);
      return balance;
    },
    getOrganization: async () => ({ credit_balance: balance }),
    listUsers: async () => [],
  };
  const notifications = { notify: async (_user: string, n: { type: string }) => void log.push(`notify ${n.type}`) };
  const ledger = { record: async () => ({}) as never, page: async () => ({ entries: [], next: null }) };
  const credits = new Credits({ identity: identity as never, notifications: notifications as never, config, ledger, clock: { now: () => Date.now() } });
  const quota = {
    charge: async (_org: string, solves: number) => {
      const spent = Math.min(solves, quotaLeft);
      quotaLeft -= spent;
      log.push(`quota ${solves}`);
      if (spent < solves) throw new AppError("daily_solve_quota_exceeded", "no", { needed: solves, spent, limit: 100, used_today: 100 });
    },
  };
  const blobs: BlobStore = { put: async () => void log.push("blob"), get: async () => null, delete: async () => undefined };
  const budget = new PriorityBudget(new MemoryCounters(), config);
  const priorityBudget = {
    spend: async (org: string, spending: { priority: number | undefined; solves: number; nowMs: number }) => {
      const spent = await budget.spend(org, spending);
      if (spent) log.push(`priority ${spent}`);
      return spent;
    },
    giveBack: async (org: string, solves: number, now: number) => {
      if (solves) log.push(`priority back ${solves}`);
      await budget.giveBack(org, solves, now);
    },
  };
  const admission = new SolveAdmission({ config, clock: { now: () => Date.now() }, credits, quota, priorityBudget, blobs });
  return { admission, log, balance: () => balance };
}

const request = (p: Problem, extra: Partial<Parameters<SolveAdmission["admit"]>[0]> = {}) => ({
  orgId: "org_1",
  userId: "usr_1",
  problem: p,
  settings: undefined,
  idPrefix: "exe" as const,
  problemKey: (id: string) => `problems/${id}.json`,
  plan: () => ({ solves: 2 }),
  ...extra,
});

describe("solve admission: stats → cap → plan → settings → credits → charge → quota → id → problem", () => {
  it("charges the formula's credits per solve, then the quota, then keeps the problem under the new id", async () => {
    const w = world();
    const admitted = await w.admission.admit(request(problem(3)));
    expect(admitted.id).toMatch(/^exe_/);
    expect(admitted.stats.variable_count).toBe(3);
    expect(admitted.creditsEach).toBe(1);
    expect(w.log).toEqual(["charge 2", "quota 2"]);
    expect(admitted.problem).toEqual({ inline: expect.any(String) });
  });

  it("refuses a model past the variable cap before planning or charging anything", async () => {
    const w = world({ env: { INSTANCE_MAX_VARIABLES: "2" } });
    let planned = false;
    const refused = w.admission.admit(request(problem(3), { plan: () => ((planned = true), { solves: 1 }) }));
    await expect(refused).rejects.toMatchObject({ code: "variable_limit_exceeded", extra: { variable_count: 3, limit: 2 } });
    expect(planned).toBe(false);
    expect(w.log).toEqual([]);
  });

  it("charges nothing when the plan refuses (no solver can run the model)", async () => {
    const w = world();
    const plan = () => {
      throw new AppError("no_solver_can_run_this_model", "none", { reasons: { glpk: "quadratic_terms" } });
    };
    await expect(w.admission.admit(request(problem(1), { plan }))).rejects.toMatchObject({ code: "no_solver_can_run_this_model" });
    expect(w.log).toEqual([]);
  });

  it("puts the credits back when the quota refuses; the quota's spent slots stay spent", async () => {
    const w = world({ quotaLeft: 1 });
    await expect(w.admission.admit(request(problem(1)))).rejects.toMatchObject({ code: "daily_solve_quota_exceeded", extra: { spent: 1 } });
    expect(w.log).toEqual(["charge 2", "quota 2", "refund 2"]);
    expect(w.balance()).toBe(1000);
  });

  it("refuses with insufficient_credits before the quota is touched", async () => {
    const w = world({ balance: 1 });
    await expect(w.admission.admit(request(problem(1)))).rejects.toMatchObject({
      code: "insufficient_credits",
      extra: { credits_required: 2, credits_remaining: 1 },
    });
    expect(w.log).toEqual([]);
  });

  it("tells the user once the charge took the balance below the threshold, after the quota passed", async () => {
    const w = world({ balance: 101 });
    await w.admission.admit(request(problem(1)));
    expect(w.log).toEqual(["charge 2", "quota 2", "notify credits_low"]);
  });

  it("spends the priority budget (solves above priority 0) before the charge; past it 403 with nothing charged", async () => {
    const w = world({ env: { ORG_PRIORITY_SOLVES_PER_DAY: "3" } });
    const high = { priority: { value: 50, role: "owner" as const } };
    await w.admission.admit(request(problem(1), high));
    expect(w.log).toEqual(["priority 2", "charge 2", "quota 2"]);
    await expect(w.admission.admit(request(problem(1), high))).rejects.toMatchObject({
      code: "priority_budget_exceeded",
      extra: { needed: 2, limit: 3, used_today: 2 },
    });
    expect(w.log).toEqual(["priority 2", "charge 2", "quota 2"]);
    // Priority 0 and below spend nothing; one solve still fits the budget.
    await w.admission.admit(request(problem(1), { priority: { value: 0, role: "owner" } }));
    await w.admission.admit(request(problem(1), { ...high, plan: () => ({ solves: 1 }) }));
    expect(w.log.filter((l) => l.startsWith("priority"))).toEqual(["priority 2", "priority 1"]);
  });

  it("gives the priority budget back when the credits or the quota refuse", async () => {
    const broke = world({ balance: 1, env: { ORG_PRIORITY_SOLVES_PER_DAY: "2" } });
    const high = { priority: { value: 9, role: "admin" as const } };
    await expect(broke.admission.admit(request(problem(1), high))).rejects.toMatchObject({ code: "insufficient_credits" });
    expect(broke.log).toEqual(["priority 2", "priority back 2"]);
    const noQuota = world({ quotaLeft: 0, env: { ORG_PRIORITY_SOLVES_PER_DAY: "2" } });
    await expect(noQuota.admission.admit(request(problem(1), high))).rejects.toMatchObject({ code: "daily_solve_quota_exceeded" });
    expect(noQuota.log).toEqual(["priority 2", "charge 2", "quota 2", "refund 2", "priority back 2"]);
  });

  it("clamps a time limit, never refuses it: to the instance ceiling, and to one day without one", async () => {
    const open = world();
    expect((await open.admission.admit(request(problem(1), { settings: { time_limit_seconds: 1e7 } }))).settings.time_limit_seconds).toBe(
      MAX_TIME_LIMIT_SECONDS,
    );
    const capped = world({ env: { INSTANCE_MAX_SOLVE_TIME_SECONDS: "30" } });
    const admitted = await capped.admission.admit(request(problem(1), { settings: { time_limit_seconds: 600 } }));
    expect(admitted.settings.time_limit_seconds).toBe(30);
    // The credits follow the clamped limit (30 s: no time bonus).
    expect(admitted.creditsEach).toBe(1);
  });
});

describe("the solve route takes any positive time limit", () => {
  it("passes a time limit above one day to the service instead of answering 422", async () => {
    const { fakeApp } = await import("../../../../support/fake-api.js");
    let settings: unknown = null;
    const executions = {
      launch: async (_p: unknown, input: { settings: unknown }) => {
        settings = input.settings;
        return { id: "exe_1" };
      },
    };
    const { app } = fakeApp({ executions: executions as never });
    const res = await app.request(
      "/api/v2/solve/async",
      as("solver", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ problem: problem(1), settings: { time_limit_seconds: 200_000 } }),
      }),
    );
    expect(res.status).toBe(202);
    expect(settings).toEqual({ time_limit_seconds: 200_000 });
  });
});

describe("solve admission: a MIP start", () => {
  it("refuses a start naming variables the problem has not, before charging", async () => {
    const w = world();
    const refused = w.admission.admit(request(problem(2), { settings: { initial_solution: { x0: 1, nope: 2 } } }));
    await expect(refused).rejects.toMatchObject({ code: "validation_error", status: 422, detail: expect.stringContaining('"nope"') });
    expect(w.log).toEqual([]);
  });

  it("refuses a start past the instance's variable cap, and keeps a good one in the settings", async () => {
    const capped = world({ env: { INSTANCE_MAX_VARIABLES: "2" } });
    await expect(capped.admission.admit(request(problem(2), { settings: { initial_solution: { x0: 1, x1: 0, x2: 0 } } }))).rejects.toMatchObject({
      code: "validation_error",
    });
    const admitted = await world().admission.admit(request(problem(2), { settings: { initial_solution: { x0: 1 } } }));
    expect(admitted.settings.initial_solution).toEqual({ x0: 1 });
  });
});
