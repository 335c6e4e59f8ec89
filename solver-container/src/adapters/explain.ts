import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { hasIntegers, hasOpenIntegerColumn, type Problem } from "../../../functions/core/problem/schema.js";
import type { FilterOptions } from "../../../functions/core/solvers/iis/deletion-filter.js";
import {
  allMembers,
  checkInfeasibility,
  deletionFilter,
  type FeasibilityOracle,
  infeasibilityOf,
  membersOf,
  searchDeadlineMs,
  subproblem,
  VERDICT_UNCONFIRMED,
  verdictOf,
  verifyDeadlineMs,
} from "../../../functions/core/solvers/iis/index.js";
import type { Infeasibility, SolverName, SolveSettings, VerdictCheck } from "../../../functions/core/solvers/types.js";
import type { AdapterResult, SolveContext, SolverAdapter } from "./types.js";

/** The adapters an explanation may call besides the one that proved infeasibility. */
export interface ExplanationSolvers {
  /** Native HiGHS when this machine has it (highspy), else null: the filter's MILP oracle and the checker's. */
  nativeHighs(): Promise<SolverAdapter | null>;
}

/**
 * A solver's adapter that, with `settings.explainInfeasibility`, follows an infeasible verdict with its
 * explanation: the solver's own IIS where the adapter brought one with members (HiGHS on LPs, SCIP; SCIP's
 * bounds then filtered, its constraints kept), else the deletion filter; then the checker's re-solves set
 * `verified`, and what the re-solves showed about the verdict itself goes in `verdict_check`. The search
 * and the verification get one more time limit each (iis/budget.ts). Which solver re-solves
 * (docs/decisions.md, "Why infeasible"):
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
      return { ...result, infeasibility: await explain(adapter, { solvers, problem, settings, context, result }) };
    },
  };
}

/**
 * The filter's oracle when it is not the solver that proved infeasibility: a subproblem with an integer
 * column unbounded on a side (the filter drops integer bounds) goes first to `proving`, with half the
 * time, then to `fast` with the rest; any other to `fast`. Native HiGHS, the fast MILP oracle, cannot end
 * a search over free integers with no finite tree (2a + 2b = 3 with a and b free) and proves such a
 * subproblem only in the presolve half of its run, late or not at all on a loaded machine; the solver
 * that proved the whole model infeasible usually settles its subsets at once.
 */
function openIntegersFirstBy(proving: FeasibilityOracle, fast: FeasibilityOracle): FeasibilityOracle {
  return async (subproblem, timeLimitSeconds) => {
    if (!hasOpenIntegerColumn(subproblem)) return fast(subproblem, timeLimitSeconds);
    const started = Date.now();
    const first = await proving(subproblem, timeLimitSeconds / 2);
    if (first !== "unknown") return first;
    const left = timeLimitSeconds - (Date.now() - started) / 1000;
    return left > 0.05 ? fast(subproblem, left) : "unknown";
  };
}

/**
 * The explanation, never taken on trust: the filter first re-solves the set it starts from, the checker
 * re-solves the answer, and a checked point of the whole model refutes the verdict (issue 24: a false
 * `infeasible` used to come back `irreducible: true` over the whole feasible model, and SCIP's empty IIS
 * of `2a + 2b = 3` as irreducible).
 */
async function explain(
  adapter: SolverAdapter,
  {
    solvers,
    problem,
    settings,
    context,
    result,
  }: { solvers: ExplanationSolvers; problem: Problem; settings: SolveSettings; context: SolveContext; result: AdapterResult },
): Promise<Infeasibility> {
  const brought = result.infeasibility ?? null;
  // A refutation the adapter brought is its own solver's (a Node child's filter, which has no name for it).
  if (brought?.verdict_check?.status === "refuted") return refuted(brought.verdict_check.solver ?? adapter.name);
  const searchUntil = searchDeadlineMs(settings.timeLimitSeconds, Date.now());
  // A cancelled solve ends its explanation at once: every deadline has passed.
  const now = () => (context.signal?.aborted ? Number.POSITIVE_INFINITY : Date.now());
  const highs = await solvers.nativeHighs();
  const filterSolver = hasIntegers(problem) && highs ? highs : adapter;
  const filterOracle =
    filterSolver === adapter
      ? adapterOracle(adapter, settings, context)
      : openIntegersFirstBy(adapterOracle(adapter, settings, context), adapterOracle(filterSolver, settings, context));
  const filter = (from: Pick<FilterOptions, "start" | "keep"> = {}) => deletionFilter(problem, filterOracle, { ...from, deadlineMs: searchUntil, now });
  // The solver whose re-solve proved the filter's starting set infeasible, if one did.
  let provedBy: SolverName | null = null;
  // An empty subset is never an explanation (integrality alone always holds): the filter runs instead.
  let found = brought && brought.constraints.length + brought.variable_bounds.length > 0 ? brought : null;
  if (found?.method === "solver_iis" && found.irreducible && adapter.name === "scip") {
    // SCIP's IIS is irreducible in its constraints; the bounds it keeps may include some it does not need.
    const members = membersOf(problem, found);
    const trimmed = await filter({ start: members, keep: members.filter((m) => m.kind === "constraint") });
    if (trimmed.start === "infeasible") provedBy = filterSolver.name;
    // A subset with a point is no IIS at all: the filter starts again, from the whole model.
    found =
      trimmed.start === "feasible"
        ? null
        : infeasibilityOf(problem, trimmed.members, { method: "solver_iis", irreducible: trimmed.irreducible, verified: null });
  }
  if (!found) {
    const filtered = await filter();
    if (filtered.start === "feasible") return refuted(filterSolver.name);
    if (filtered.start === "infeasible") provedBy = filterSolver.name;
    found = infeasibilityOf(problem, filtered.members, { method: "deletion_filter", irreducible: filtered.irreducible, verified: null });
  }
  const verifyUntil = verifyDeadlineMs(settings.timeLimitSeconds, Date.now());
  const checker = highs ?? adapter;
  const checkerOracle = adapterOracle(checker, settings, context);
  const check = await checkInfeasibility(problem, found, { oracle: checkerOracle, deadlineMs: verifyUntil, now });
  if (check.subset === "infeasible") return { ...found, verified: check.verified, verdict_check: confirmed(checker.name) };
  const unproved = provedBy
    ? confirmed(provedBy)
    : { ...VERDICT_UNCONFIRMED, message: "no re-solve decided whether the model is infeasible within the explanation's time" };
  if (check.subset === "unknown") return { ...found, verified: check.verified, verdict_check: unproved };
  // The subset has a point, so it is no conflict; whether the verdict holds is the whole model's question.
  const all = allMembers(problem);
  const leftMs = verifyUntil - now();
  const whole =
    membersOf(problem, found).length === all.length ? "feasible" : leftMs > 0 ? await checkerOracle(subproblem(problem, all), leftMs / 1000) : "unknown";
  if (whole === "feasible") return refuted(checker.name);
  return { ...found, irreducible: false, verified: false, verdict_check: whole === "infeasible" ? confirmed(checker.name) : unproved };
}

function confirmed(solver: SolverName): VerdictCheck {
  return { status: "confirmed", solver, message: `${solver} proved a subset of the model infeasible, so the model is infeasible` };
}

/** A checked point of the whole model: no conflict to name, and the infeasible verdict is wrong. */
function refuted(solver: SolverName): Infeasibility {
  return {
    constraints: [],
    variable_bounds: [],
    method: "deletion_filter",
    irreducible: false,
    verified: false,
    verdict_check: {
      status: "refuted",
      solver,
      message: `${solver} found a point satisfying every constraint and bound, with its integer variables at integers: the model is feasible and the infeasible verdict is wrong`,
    },
  };
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
