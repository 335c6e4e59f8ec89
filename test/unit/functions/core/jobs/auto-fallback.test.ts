import { describe, expect, it } from "vitest";
import type { ExecutionView, SolveResponse } from "../../../../../functions/core/executions/schemas.js";
import type { ExecutionRecord } from "../../../../../functions/core/executions/store.js";
import { fallbackPlan } from "../../../../../functions/core/jobs/auto-fallback.js";
import type { SolvePort } from "../../../../../functions/core/jobs/ports.js";
import { runExecution } from "../../../../../functions/core/jobs/run-execution.js";
import { AutoChoiceSchema } from "../../../../../functions/core/solvers/recommendation/schemas.js";
import { fakeJobPorts, OPTIMUM, queuedExecution, readPayload, solverAnswer } from "../../../../support/job-fakes.js";

/**
 * `auto` falls back to the class's default (HiGHS for an LP) when its choice ends in an error or a refuted
 * answer (jobs/auto-fallback.ts), within what is left of the caller's limit; never on a time limit, never
 * twice, never for a named solver.
 */

const CHOICE = {
  solver: "cbc" as const,
  reason: "CBC was faster on 4 of the 5 most similar models you compared.",
  basis: "organization" as const,
  evidence: { comparisons: 12, similar_problems: ["cmp_a", "cmp_b", "cmp_c"] },
};

/** An execution of SMALL_LP (limit 60 s) as `auto` (or a named solver) admitted it, on a worker with HiGHS and CBC. */
function world(solve: SolvePort["solve"], execution: Partial<ExecutionRecord> = { solver_requested: "auto", solver_name: "cbc", auto_choice: CHOICE }) {
  const limits: number[] = [];
  const w = fakeJobPorts((name, request) => {
    limits.push(request.settings.timeLimitSeconds);
    return solve(name, request);
  });
  w.ports.solver.inventory = async () => [
    { name: "highs", available: true, version: "1", detail: null },
    { name: "cbc", available: true, version: "1", detail: null },
  ];
  w.executionStore.items.put("exe_1", { ...queuedExecution("exe_1"), ...execution });
  const stored = () => w.executionStore.items.get("exe_1")!;
  const response = async () => (await readPayload<SolveResponse>(w.blobs, stored().result))!;
  return { ...w, limits, stored, response, job: { orgId: "org_1", id: "exe_1" } };
}

const cbcErrs =
  (answer = solverAnswer("error", { error_message: "cbc: the LP could not be read" })): SolvePort["solve"] =>
  async (name) =>
    name === "cbc" ? answer : OPTIMUM;

describe("auto's fallback to the default", () => {
  it("re-solves with the default when the chosen solver errors: the default's answer, solver_name the default, auto_choice.fallback set", async () => {
    const w = world(cbcErrs());
    await runExecution(w.ports, w.job);

    expect(w.solves.map((s) => s.solver)).toEqual(["cbc", "highs"]);
    expect(w.limits[1]).toBeGreaterThan(58);
    expect(w.limits[1]).toBeLessThanOrEqual(60);
    const stored = w.stored();
    expect(stored).toMatchObject({ status: "completed", error_message: null, solver_name: "highs", solver_requested: "auto", credits_charged: 1 });
    expect(stored.auto_choice).toMatchObject({ solver: "highs", reason: CHOICE.reason, fallback: { from: "cbc" } });
    expect(stored.auto_choice?.fallback?.reason).toMatch(/CBC ended in an error .*cbc: the LP could not be read.*HiGHS, the default for LP/);
    const response = await w.response();
    expect(response).toMatchObject({ status: "optimal", objective_value: 11, solver_name: "highs" });
    expect(response.auto_choice).toEqual(stored.auto_choice);
    expect(AutoChoiceSchema.parse(response.auto_choice)).toEqual(stored.auto_choice);
    expect(w.progressChunks.flatMap((c) => c.lines).some((l) => l.startsWith("auto: cbc ended in an error"))).toBe(true);
    expect(w.notices.map((n) => n.message)).toEqual(["small with highs: optimal, objective 11."]);
    expect(w.totals).toHaveLength(1);
  });

  it("falls back when the chosen solver's answer is refuted by the gate (a point that breaks a row)", async () => {
    const w = world(cbcErrs(solverAnswer("optimal", { objective_value: 20, solution: { x: 4, y: 4 } })));
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["cbc", "highs"]);
    expect((await w.response()).status).toBe("optimal");
    expect(w.stored().auto_choice?.fallback?.from).toBe("cbc");
  });

  it("does not fall back on a time limit: the limit is the caller's", async () => {
    const w = world(cbcErrs(solverAnswer("time_limit", { solver_time_seconds: 60 })));
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["cbc"]);
    expect((await w.response()).status).toBe("time_limit");
    expect(w.stored()).toMatchObject({ solver_name: "cbc", auto_choice: CHOICE });
  });

  it("tries the default once: when it errors too, the execution fails with its words (and says it fell back)", async () => {
    const w = world(async (name) => solverAnswer("error", { error_message: `${name}: broken` }));
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["cbc", "highs"]);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "highs: broken", solver_name: "highs" });
    expect(w.stored().auto_choice?.fallback?.from).toBe("cbc");
  });

  it("never falls back when auto chose the default itself", async () => {
    const w = world(async () => solverAnswer("error", { error_message: "highs: broken" }), {
      solver_requested: "auto",
      solver_name: "highs",
      auto_choice: { ...CHOICE, solver: "highs" },
    });
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["highs"]);
    expect(w.stored()).toMatchObject({ status: "failed", solver_name: "highs" });
    expect(w.stored().auto_choice?.fallback).toBeUndefined();
  });

  it("never falls back for a named solver", async () => {
    const w = world(cbcErrs(), { solver_requested: "cbc", solver_name: "cbc" });
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["cbc"]);
    expect(w.stored()).toMatchObject({ status: "failed", error_message: "cbc: the LP could not be read", solver_name: "cbc" });
    expect((await w.response()).auto_choice).toBeUndefined();
  });

  it("does not fall back when less than a second of the limit is left", async () => {
    const w = world(cbcErrs(solverAnswer("error", { error_message: "cbc: crashed", wall_time_ms: 59_500 })));
    await runExecution(w.ports, w.job);
    expect(w.solves.map((s) => s.solver)).toEqual(["cbc"]);
    expect(w.stored()).toMatchObject({ status: "failed", solver_name: "cbc" });
  });
});

describe("fallbackPlan", () => {
  const record: Pick<ExecutionView, "solver_requested" | "solver_name" | "problem_class"> & { auto_choice: typeof CHOICE } = {
    solver_requested: "auto",
    solver_name: "cbc",
    problem_class: "MILP",
    auto_choice: CHOICE,
  };
  const available = new Set(["highs", "cbc", "scip"]);
  const first = { status: "error", errorMessage: null, seconds: 2 };

  it("gives the class's default what is left of the limit", () => {
    expect(fallbackPlan(record, first, { available, timeLimitSeconds: 30, stopped: false })).toEqual({ solver: "highs", timeLimitSeconds: 28 });
  });

  it("gives nothing to a stopped solve, a verdict, or a default the machine lacks", () => {
    expect(fallbackPlan(record, first, { available, timeLimitSeconds: 30, stopped: true })).toBeNull();
    for (const status of ["time_limit", "optimal", "infeasible", "feasible"])
      expect(fallbackPlan(record, { ...first, status }, { available, timeLimitSeconds: 30, stopped: false })).toBeNull();
    expect(fallbackPlan(record, first, { available: new Set(["cbc"]), timeLimitSeconds: 30, stopped: false })).toBeNull();
  });
});
