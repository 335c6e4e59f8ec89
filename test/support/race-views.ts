import { ExecutionViewSchema, type ExecutionView } from "../../functions/core/executions/schemas.js";
import type { RaceEntrant, RaceView } from "../../functions/core/races/schemas.js";

/**
 * A race's execution view as the contract (functions/core/races/schemas.ts) shapes it, for the CLI and
 * console tests that run before the race backend does: every view is parsed by the execution view's
 * schema, so a fixture that drifts from the contract fails where it is made.
 */
export function raceExecutionView({ id = "exe_race_fixture", status, race }: { id?: string; status: ExecutionView["status"]; race: RaceView }): ExecutionView {
  const winner = race.winner ? race.entrants.find((e) => e.solver === race.winner) : undefined;
  const ended = status === "completed" || status === "failed" || status === "cancelled";
  return ExecutionViewSchema.parse({
    id,
    status,
    solver_name: race.winner ?? "race",
    solver_requested: "race",
    problem_name: "knapsack",
    problem_class: "MILP",
    variable_count: 4,
    constraint_count: 1,
    settings: { time_limit_seconds: 60, gap_tolerance: 0.0001, threads: 1 },
    credits_charged: 1,
    priority: 5,
    origin: { kind: "solve_async", id: null },
    created_at: "2026-11-28T10:00:00.000Z",
    started_at: "2026-11-28T10:00:00.100Z",
    completed_at: ended ? "2026-11-28T10:00:02.000Z" : null,
    error_message: null,
    explains_execution_id: null,
    explanation_execution_id: null,
    solved_by: ended ? "worker" : null,
    auto_choice: null,
    race,
    result:
      winner && status === "completed"
        ? {
            execution_id: id,
            status: winner.status,
            solver_status: winner.status,
            objective_value: winner.objective_value,
            dual_bound: winner.best_bound,
            gap: 0,
            nodes: 1,
            iterations: 3,
            wall_time_ms: 1900,
            solve_time_seconds: winner.time_seconds,
            solution: { x1: 1, x2: 0, x3: 1, x4: 1 },
            solver_version: null,
            error_message: null,
            solver_name: winner.solver,
            race,
          }
        : null,
  });
}

export const entrant = (e: Partial<RaceEntrant> & Pick<RaceEntrant, "solver" | "execution_id" | "state">): RaceEntrant => ({
  status: null,
  objective_value: null,
  best_bound: null,
  time_seconds: null,
  ...e,
});

/** highs and cbc racing: both running with incumbents, then highs wins with a proven optimum and cbc is stopped. */
export const RUNNING_RACE: RaceView = {
  winner: null,
  decided_by: null,
  degraded: false,
  note: null,
  entrants: [
    entrant({ solver: "highs", execution_id: "exe_entrant_highs", state: "running", objective_value: -8, best_bound: -10, time_seconds: 0.4 }),
    entrant({ solver: "cbc", execution_id: "exe_entrant_cbc", state: "running", objective_value: -7, best_bound: -11, time_seconds: 0.4 }),
  ],
};

export const WON_RACE: RaceView = {
  winner: "highs",
  decided_by: "proven_verdict",
  degraded: false,
  note: null,
  entrants: [
    entrant({ solver: "highs", execution_id: "exe_entrant_highs", state: "won", status: "optimal", objective_value: -9, best_bound: -9, time_seconds: 1.2 }),
    entrant({
      solver: "cbc",
      execution_id: "exe_entrant_cbc",
      state: "cancelled",
      status: "feasible",
      objective_value: -8,
      best_bound: -10,
      time_seconds: 1.2,
    }),
  ],
};

/** One worker free: the race ran the best single choice and says so. */
export const DEGRADED_RACE: RaceView = {
  winner: "highs",
  decided_by: "single_solver",
  degraded: true,
  note: "only one worker was free: ran highs alone",
  entrants: [
    entrant({ solver: "highs", execution_id: "exe_entrant_highs", state: "won", status: "optimal", objective_value: -9, best_bound: -9, time_seconds: 0.8 }),
  ],
};
