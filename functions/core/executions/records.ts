import type { PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { Admitted } from "../limits/solve-admission.js";
import type { ProblemStats } from "../problem/schema.js";
import type { Settings } from "../solvers/settings.js";
import type { SolverName } from "../solvers/types.js";
import type { ExecutionOrigin } from "./schemas.js";
import type { ExecutionRecord } from "./store.js";
import type { AutoChoice } from "../solvers/recommendation/schemas.js";

/** What a new execution is made of; the rest of its fields start empty. */
export interface NewExecution {
  id: string;
  orgId: string;
  createdBy: string;
  origin: ExecutionOrigin;
  /** Notify `createdBy` when it ends (async runs). */
  notify: boolean;
  /** The solver asked for (`auto` or a name) and the one that runs. */
  solverRequested: string;
  solverName: string;
  problem: PayloadRef;
  problemName: string;
  stats: Pick<ProblemStats, "problem_class" | "variable_count" | "constraint_count">;
  settings: Settings;
  creditsCharged: number;
  nowMs: number;
  /** Created running (a worker, or the API, solves it at once: its lease is the caller's) instead of queued. */
  running?: boolean;
  /** The band it is queued on; absent: not recorded (read as 0). */
  priority?: number;
  modelNames?: PayloadRef;
  /** With `auto`: why this solver was chosen (the recommendation's reason and evidence). */
  autoChoice?: AutoChoice;
}

/**
 * A new execution record: the one place its fields are listed. Every creator (a solve, an explanation,
 * a trigger run's execution, a comparison row's execution) builds its record here.
 */
export function newExecutionRecord(e: NewExecution): ExecutionRecord {
  return {
    id: e.id,
    org_id: e.orgId,
    created_by: e.createdBy,
    status: e.running ? "running" : "queued",
    origin: e.origin,
    ...(e.priority === undefined ? {} : { priority: e.priority }),
    notify: e.notify,
    solver_requested: e.solverRequested,
    solver_name: e.solverName,
    problem: e.problem,
    ...(e.modelNames ? { model_names: e.modelNames } : {}),
    problem_name: e.problemName,
    problem_class: e.stats.problem_class,
    variable_count: e.stats.variable_count,
    constraint_count: e.stats.constraint_count,
    settings: e.settings,
    credits_charged: e.creditsCharged,
    created_at: isoTime(e.nowMs),
    started_at: e.running ? isoTime(e.nowMs) : null,
    completed_at: null,
    error_message: null,
    result: null,
    deadline_ms: null,
    ...(e.autoChoice ? { auto_choice: e.autoChoice } : {}),
  };
}

/** The record of an admitted single-solver execution (its id, solver, problem, stats, settings and charge from the admission). */
export function admittedExecutionRecord(
  admitted: Admitted<{ solver: SolverName; auto_choice?: AutoChoice }>,
  fields: Pick<NewExecution, "orgId" | "createdBy" | "origin" | "notify" | "solverRequested" | "problemName" | "nowMs" | "running" | "priority">,
): ExecutionRecord {
  return newExecutionRecord({
    ...fields,
    id: admitted.id,
    solverName: admitted.plan.solver,
    problem: admitted.problem!,
    stats: admitted.stats,
    settings: admitted.settings,
    creditsCharged: admitted.creditsEach,
    autoChoice: admitted.plan.auto_choice,
  });
}
