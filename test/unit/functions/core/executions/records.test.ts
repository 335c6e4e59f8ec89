import { describe, expect, it } from "vitest";
import type { Admitted } from "../../../../../functions/core/limits/solve-admission.js";
import { admittedExecutionRecord, newExecutionRecord } from "../../../../../functions/core/executions/records.js";
import type { SolverName } from "../../../../../functions/core/solvers/types.js";
import { queuedExecution } from "../../../../support/job-fakes.js";

/** The one builder of execution records: every field listed once, queued or created running. */

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const SETTINGS = { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 };
const STATS = { problem_class: "LP" as const, variable_count: 2, constraint_count: 2 };

const fields = {
  id: "exe_1",
  orgId: "org_1",
  createdBy: "usr_1",
  origin: { kind: "solve_async" as const, id: null },
  notify: true,
  solverRequested: "auto",
  solverName: "highs",
  problem: { inline: "{}" },
  problemName: "small",
  stats: STATS,
  settings: SETTINGS,
  creditsCharged: 1,
  nowMs: NOW,
};

describe("newExecutionRecord", () => {
  it("makes a queued execution with every field the store keeps, nothing started, ended or answered", () => {
    expect(newExecutionRecord(fields)).toEqual({
      id: "exe_1",
      org_id: "org_1",
      created_by: "usr_1",
      status: "queued",
      origin: { kind: "solve_async", id: null },
      notify: true,
      solver_requested: "auto",
      solver_name: "highs",
      problem: { inline: "{}" },
      problem_name: "small",
      problem_class: "LP",
      variable_count: 2,
      constraint_count: 2,
      settings: SETTINGS,
      credits_charged: 1,
      created_at: "2026-11-28T12:00:00.000Z",
      started_at: null,
      completed_at: null,
      error_message: null,
      result: null,
      deadline_ms: null,
    });
  });

  it("makes a running one started now, and keeps the priority and model names only when given", () => {
    const running = newExecutionRecord({ ...fields, running: true, priority: 3, modelNames: { blob: "names" } });
    expect(running).toMatchObject({ status: "running", started_at: "2026-11-28T12:00:00.000Z", priority: 3, model_names: { blob: "names" } });
    const plain = newExecutionRecord(fields);
    expect("priority" in plain).toBe(false);
    expect("model_names" in plain).toBe(false);
  });

  it("builds the test fakes' queued execution too", () => {
    expect(queuedExecution("exe_9")).toMatchObject({ id: "exe_9", status: "queued", started_at: null });
  });
});

describe("admittedExecutionRecord", () => {
  it("takes the id, solver, problem, stats, settings and charge from the admission", () => {
    const admitted: Admitted<{ solver: SolverName }> = {
      id: "exe_2",
      stats: { ...STATS, problem_class: "MILP", integer_count: 1, binary_count: 0, nonzero_count: 4, quadratic_term_count: 0 },
      settings: SETTINGS,
      plan: { solver: "cbc", solves: 1 },
      creditsEach: 4,
      problem: { blob: "problems/exe_2" },
    };
    const record = admittedExecutionRecord(admitted, {
      orgId: "org_1",
      createdBy: "usr_1",
      origin: { kind: "explanation", id: "exe_1" },
      notify: true,
      solverRequested: "cbc",
      problemName: "small",
      nowMs: NOW,
      priority: 0,
    });
    expect(record).toMatchObject({
      id: "exe_2",
      status: "queued",
      solver_name: "cbc",
      problem: { blob: "problems/exe_2" },
      problem_class: "MILP",
      credits_charged: 4,
      priority: 0,
      origin: { kind: "explanation", id: "exe_1" },
    });
  });
});
