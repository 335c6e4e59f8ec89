import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import {
  deletionFilter,
  type FeasibilityOracle,
  infeasibilityOf,
  membersOf,
  searchDeadlineMs,
  verdictOf,
  verifyDeadlineMs,
  verifyInfeasibility,
} from "../../../functions/core/solvers/iis/index.js";
import type { Infeasibility, SolveSettings } from "../../../functions/core/solvers/types.js";
import type { AdapterResult, SolveContext, SolverAdapter } from "./types.js";

/** The adapters an explanation may call besides the one that proved infeasibility. */
export interface ExplanationSolvers {
  /** Native HiGHS when this machine has it (highspy), else null: the filter's MILP oracle and the checker's. */
  nativeHighs(): Promise<SolverAdapter | null>;
}

/**
 * A solver's adapter that, with `settings.explainInfeasibility`, follows an infeasible verdict with its
 * explanation: the solver's own IIS where the adapter brought one (HiGHS on LPs, SCIP; SCIP's bounds
 * then filtered, its constraints kept), else the deletion filter; then the checker's re-solves set `verified`. The search and the verification get one
 * more time limit each (iis/budget.ts). Which solver re-solves (docs/decisions.md, "Why infeasible"):
 * - the filter: the solver that proved infeasibility on an LP; on a MILP native HiGHS when present
 *   (each step is a branch and bound, and HiGHS is the fastest MILP solver a worker has), else the same;
 * - the checker: native HiGHS when present, else the solver that proved infeasibility.
 */
export function explaining(adapter: SolverAdapter, solvers: ExplanationSolvers): SolverAdapter {
  return {
    ...adapter,
    async solve(problem, settings, context) {
      const result = await adapter.solve(problem, settings, context);
      if (!settings.explainInfeasibility) return result;
      if (result.solver_status !== "infeasible") return { ...result, infeasibility: null };
      return { ...result, infeasibility: await explain(adapter, solvers, problem, settings, context, result) };
    },
  };
}

async function explain(
  adapter: SolverAdapter,
  solvers: ExplanationSolvers,
  problem: Problem,
  settings: SolveSettings,
  context: SolveContext,
  result: AdapterResult,
): Promise<Infeasibility> {
  const searchUntil = searchDeadlineMs(settings.timeLimitSeconds, Date.now());
  // A cancelled solve ends its explanation at once: every deadline has passed.
  const now = () => (context.signal?.aborted ? Number.POSITIVE_INFINITY : Date.now());
  const highs = await solvers.nativeHighs();
  const oracle = adapterOracle(hasIntegers(problem) && highs ? highs : adapter, settings, context);
  let found = result.infeasibility ?? null;
  if (!found) {
    const filtered = await deletionFilter(problem, oracle, { deadlineMs: searchUntil, now });
    found = infeasibilityOf(problem, filtered.members, { method: "deletion_filter", irreducible: filtered.irreducible, verified: null });
  } else if (found.method === "solver_iis" && found.irreducible && adapter.name === "scip") {
    // SCIP's IIS is irreducible in its constraints; the bounds it keeps may include some it does not need.
    const members = membersOf(problem, found);
    const rows = members.filter((m) => m.kind === "constraint");
    const trimmed = await deletionFilter(problem, oracle, { start: members, keep: rows, deadlineMs: searchUntil, now });
    found = infeasibilityOf(problem, trimmed.members, { method: "solver_iis", irreducible: trimmed.irreducible, verified: null });
  }
  const verifyUntil = verifyDeadlineMs(settings.timeLimitSeconds, Date.now());
  const verified = await verifyInfeasibility(problem, found, adapterOracle(highs ?? adapter, settings, context), { deadlineMs: verifyUntil, now });
  return { ...found, verified };
}

/**
 * One adapter as a feasibility oracle: each subproblem solved in a directory of its own under the
 * solve's, with the solve's threads, memory ceiling, kill grace and cancellation. Any feasible point
 * ends the search (the subproblem has no objective), hence the gap of 1.
 */
export function adapterOracle(adapter: SolverAdapter, settings: SolveSettings, context: SolveContext): FeasibilityOracle {
  return async (subproblem, timeLimitSeconds) => {
    const workDir = await mkdtemp(path.join(context.workDir, "iis-"));
    try {
      const answer = await adapter.solve(
        subproblem,
        { timeLimitSeconds: Math.max(0.01, Math.min(timeLimitSeconds, settings.timeLimitSeconds)), gapTolerance: 1, threads: settings.threads },
        { workDir, killGraceSeconds: context.killGraceSeconds, signal: context.signal, memoryMb: context.memoryMb },
      );
      return verdictOf(subproblem, answer);
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  };
}
