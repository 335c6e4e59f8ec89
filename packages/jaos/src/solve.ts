/**
 * `solveJaos`: a problem in, a checked result out, with engine statistics.
 *
 * Every verdict is backed before it is reported: an optimal or feasible solution is postsolved and
 * checked against the original problem (rows, bounds, integrality); "infeasible" and "unbounded" for
 * an LP come with certificates checked on the original model (a verdict reached on the presolved
 * model is re-derived without presolve); for a MILP, "infeasible" is the exhausted search tree whose
 * every leaf was closed by a certified LP verdict or a bound, or presolve's one-row argument once a
 * short search of the model as given has found no point refuting it. A presolve whose points do not
 * map back to points of the model is replaced by a search without it (within the same deadline); what
 * still cannot be vouched for is `error` with the reason, never `infeasible`.
 */
import pkg from "../package.json" with { type: "json" };
import { checkUnboundedRay } from "./certificates.js";
import { LpEngine } from "./lp.js";
import { solveMip, type MipOutcome } from "./mip.js";
import { maxViolation, modelFromProblem, objectiveValue, rowActivities, type LpModel, type ModelMapping } from "./model.js";
import type { Rejection } from "./incumbent.js";
import type { JaosProblem, JaosResult, JaosStats } from "./problem.js";
import { AT_LOWER, AT_UPPER, BASIC } from "./simplex-state.js";
import { noPresolve, presolve, type Presolved } from "./presolve.js";
import { checkBasis, verifiedOptimum, type BasisCheck } from "./verify.js";

export const JAOS_VERSION: string = pkg.version;

export interface JaosOptions {
  timeLimitSeconds: number;
  /** Relative gap at which branch and bound stops (|primal − dual| / max(1, |primal|)). */
  gapTolerance: number;
  /** Absolute stop time, Date.now() milliseconds; the earlier of this and the time limit applies. */
  deadline?: number;
  /** Presolve on (default) or off. */
  presolve?: boolean;
  /**
   * Absolute integrality tolerance of branch and bound's fractionality test (absent: 1e-6;
   * integrality.ts). Reported points have their integer columns exactly integral whatever it is: a
   * point whose rounding breaks a row is repaired or branched on, never reported.
   */
  integralityTolerance?: number;
  /** Branch and bound's root sub-MIP heuristic (RENS/RINS; sub-mip.ts); absent: off. */
  // off by default: CPU ×1.064 over 24 MILPs with the gap-scaled budget, p2756 and fixnet6 slower with it (docs/bench/jaos.md, subon)
  rootSubMip?: boolean;
  /** Branch and bound's pool of dual proofs from pruned nodes (conflict-pool.ts); absent: mip.ts's default. */
  // off by default (CONFLICTS in mip.ts): fewer nodes, not less CPU, CPU ×1.013 over the 19 MILPs that learn proofs (docs/bench/jaos.md, conflict3)
  conflicts?: boolean;
  /** Whether that pool watches its proofs (conflict-pool.ts); absent: on. Off only to check that watching changes nothing. */
  // acts only with `conflicts`, itself off by default (the watch is exact: docs/bench/jaos.md, conflict3)
  watchConflicts?: boolean;
  /**
   * A MILP's start solution by variable name (variables not named take 0): verified on the problem like
   * every incumbent and branch and bound's first incumbent when it holds, else ignored
   * (`stats.mip.startSolution` says which).
   */
  // engine-only: the service does not pass it yet (settings.initial_solution goes to native HiGHS, SCIP, CBC; docs/bench/jaos.md, mipearly)
  startSolution?: Record<string, number>;
  /** Branch-and-bound progress, in the problem's own objective sense. */
  onProgress?: (progress: { incumbent: number | null; bound: number | null; nodes: number }) => void;
  /** Each new incumbent of branch and bound, verified on the original problem, by variable name. */
  onIncumbent?: (incumbent: { objective_value: number; solution: Record<string, number> }) => void;
}

const FEASIBILITY = 1e-6;

export function solveJaos(problem: JaosProblem, options: JaosOptions): JaosResult {
  const started = performance.now();
  let deadline = started + Math.max(0, options.timeLimitSeconds) * 1000;
  if (options.deadline !== undefined) deadline = Math.min(deadline, started + (options.deadline - Date.now()));
  const stats: JaosStats = { presolve: { rowsRemoved: 0, colsRemoved: 0, boundsTightened: 0 }, simplexIterations: 0, nodes: 0 };
  // The spec's two clocks: wall_time_ms around the whole call (building the engine's model, naming
  // the result; a caller that checks the duals extends it over that check), solver_time_seconds the
  // search alone — presolve, simplex, branch and bound, the engine's own verification — as HiGHS's
  // run time is.
  let searchStarted = started;
  let searchEnded: number | undefined;
  const searchDone = () => {
    searchEnded ??= performance.now();
  };
  const finish = (partial: Partial<Omit<JaosResult, "stats">> & Pick<JaosResult, "solver_status">): JaosResult => {
    const ended = performance.now();
    const seconds = ((searchEnded ?? ended) - searchStarted) / 1000;
    return {
      objective_value: null,
      dual_bound: null,
      gap: null,
      nodes: null,
      iterations: stats.simplexIterations,
      solver_time_seconds: seconds,
      wall_time_ms: Math.round(ended - started),
      solution: null,
      solver_version: JAOS_VERSION,
      error_message: null,
      ...partial,
      stats,
    };
  };

  if ((problem.objective.quadratic?.length ?? 0) > 0) return finish({ solver_status: "error", error_message: "jaos cannot express quadratic objective terms" });
  const mapping = modelFromProblem(problem);
  searchStarted = performance.now();
  const { model, sign } = mapping;
  const named = (x: Float64Array) => Object.fromEntries(mapping.colNames.map((name, j) => [name, x[j]]));
  const isMip = model.integer.some((v) => v === 1);

  const pre = options.presolve === false ? noPresolve(model) : presolve(model);
  stats.presolve = pre.stats;

  if (!isMip) {
    const outcome = solveLpWithFallback(model, pre, deadline, stats);
    if (outcome.status === "optimal") {
      const answer = verifiedLpAnswer(model, outcome, deadline, stats);
      searchDone();
      const obj = sign * objectiveValue(model, answer.x);
      if (answer.status !== "optimal") {
        // never a loose "optimal": a primal feasible point that could not be verified optimal
        return finish({ solver_status: answer.status, objective_value: obj, solution: named(answer.x), error_message: answer.reason ?? null });
      }
      const solved = { solver_status: "optimal" as const, objective_value: obj, dual_bound: obj, gap: 0, solution: named(answer.x) };
      const rowDuals = Object.fromEntries(mapping.rowNames.map((name, i) => [name, answer.y![i]!]));
      return finish({ ...solved, row_duals: rowDuals });
    }
    if (outcome.status === "infeasible" || outcome.status === "unbounded") return finish({ solver_status: outcome.status });
    if (outcome.status === "time_limit") return finish({ solver_status: "time_limit" });
    return finish({ solver_status: "error", error_message: outcome.message ?? `LP ended ${outcome.status}` });
  }

  const onProgress = options.onProgress;
  const mipOptions = {
    deadline,
    gapTolerance: options.gapTolerance,
    integralityTolerance: options.integralityTolerance,
    rootSubMip: options.rootSubMip,
    conflicts: options.conflicts,
    watchConflicts: options.watchConflicts,
    startSolution: options.startSolution ? Float64Array.from(mapping.colNames, (name) => options.startSolution![name] ?? 0) : undefined,
    onProgress: onProgress
      ? (incumbent: number | null, bound: number | null, nodes: number) =>
          onProgress({ incumbent: incumbent === null ? null : sign * incumbent, bound: bound === null ? null : sign * bound, nodes })
      : undefined,
    onIncumbent: options.onIncumbent
      ? (x: Float64Array, value: number) => options.onIncumbent!({ objective_value: sign * value, solution: named(x) })
      : undefined,
  };
  let earlier = { nodes: 0, iterations: 0 };
  let presolveNote: string | null = null;
  let mip: MipOutcome;
  if (pre.status === "infeasible") {
    // Presolve's argument (one row's activity range or its gcd, over bounds presolve itself rounded) is
    // a proof up to its 1e-9 tolerance, as a Farkas certificate is. A short search of the model as given
    // cross-checks it: a point it finds refutes it; otherwise the exhausted tree or presolve's argument
    // stands (a search without presolve need not end: 2x − 2y = 1 over unbounded integers).
    const check = solveMip(model, noPresolve(model), { ...mipOptions, deadline: Math.min(deadline, performance.now() + crossCheckMs(deadline)) });
    if (check.incumbent === null && check.status !== "unbounded") {
      searchDone();
      stats.simplexIterations = check.iterations;
      stats.nodes = check.nodes;
      stats.mip = check.stats;
      return finish({ solver_status: "infeasible", nodes: check.nodes, iterations: check.iterations });
    }
    presolveNote = `presolve found the model infeasible (${pre.reason ?? "no reason given"}), which the search without presolve refuted`;
    const final = check.status === "optimal" || check.status === "unbounded";
    if (!final) earlier = { nodes: check.nodes, iterations: check.iterations };
    mip = final ? check : solveMip(model, noPresolve(model), mipOptions);
  } else {
    mip = solveMip(model, pre, mipOptions);
    // the search's only points failed to map back to the model: presolve went wrong, search without it
    if (options.presolve !== false && mip.status === "error" && mip.incumbent === null && mip.rejection) {
      presolveNote = `${describeRejection(mip.message, mip.rejection, mapping)}; searched again without presolve`;
      earlier = { nodes: mip.nodes, iterations: mip.iterations };
      mip = solveMip(model, noPresolve(model), mipOptions);
    }
  }
  searchDone();
  const common = { nodes: earlier.nodes + mip.nodes, iterations: earlier.iterations + mip.iterations };
  stats.simplexIterations = common.iterations;
  stats.nodes = common.nodes;
  stats.mip = mip.stats;
  const bound = mip.dualBound === null ? null : sign * mip.dualBound;
  if (mip.status === "infeasible") return finish({ solver_status: "infeasible", ...common });
  if (mip.status === "unbounded") return finish({ solver_status: "unbounded", ...common });
  const reason = (text: string | null) => {
    const own = mip.rejection ? describeRejection(text ?? undefined, mip.rejection, mapping) : text;
    return presolveNote && own ? `${presolveNote}; then: ${own}` : (own ?? presolveNote);
  };
  if (mip.status === "error" && mip.incumbent === null)
    return finish({ solver_status: "error", dual_bound: bound, error_message: reason(mip.message ?? "branch and bound failed"), ...common });
  if (mip.incumbent === null)
    return finish({
      solver_status: mip.status === "time_limit" ? "time_limit" : "error",
      dual_bound: bound,
      error_message: reason(mip.message ?? null),
      ...common,
    });
  // an incomplete search (some node LP failed) still hands over its verified incumbent: "feasible"
  const obj = sign * objectiveValue(model, mip.incumbent);
  const status = mip.status === "optimal" ? "optimal" : mip.status === "time_limit" ? "time_limit" : "feasible";
  return finish({
    solver_status: status,
    objective_value: obj,
    dual_bound: bound,
    gap: mip.gap,
    solution: named(mip.incumbent),
    error_message: status === "optimal" ? null : reason(mip.message ?? null),
    ...common,
  });
}

/** Time for the search without presolve that cross-checks presolve's infeasibility: 5 % of what is left, 1 s to 60 s. */
function crossCheckMs(deadline: number): number {
  return Math.min(60_000, Math.max(1000, 0.05 * (deadline - performance.now())));
}

/** A rejected point's reason in the user's names: which row, bound or integer column it broke, by how much. */
function describeRejection(message: string | undefined, why: Rejection, mapping: ModelMapping): string {
  const amount = why.amount.toExponential(2);
  const where =
    why.where === "row"
      ? `row "${mapping.rowNames[why.index]}" is violated by ${amount} (relative to its side)`
      : why.where === "column"
        ? `variable "${mapping.colNames[why.index]}" is outside its bounds by ${amount} (relative)`
        : `integer variable "${mapping.colNames[why.index]}" is ${amount} from an integer`;
  return `${message ?? "a point failed the check on the original model"}: ${where}`;
}

interface LpAnswer {
  status: "optimal" | "feasible" | "time_limit";
  x: Float64Array;
  /** Verified row duals (minimisation convention), for "optimal". */
  y?: Float64Array;
  reason?: string;
}

/**
 * "optimal" only for a basis of the original model that passes `checkBasis` (verify.ts). An LP solved
 * without presolve is checked on its own final basis. A presolved optimum's basis mapped back by the
 * basis postsolve (or, where there is none, the basis the optimum x₀ suggests) is checked at once; where
 * it fails, the LP is solved once more on the original model (within the same deadline) from that
 * basis, and the re-solve's basis is checked and, where it fails, cleaned up. What
 * cannot be verified is reported with the primal feasible point it has: "time_limit" when the deadline
 * cut the work short, "feasible" otherwise, with the reason.
 */
function verifiedLpAnswer(model: LpModel, outcome: LpOutcome, deadline: number, stats: JaosStats): LpAnswer {
  const x0 = outcome.x!;
  let basis = outcome.basis;
  let resolveIterations = 0;
  let checked: BasisCheck | null | undefined;
  if (!basis) {
    const start = outcome.start ?? basisAt(model, x0);
    // The check is the verdict, so a mapped-back basis that passes it needs no re-solve. On the 56
    // presolved LPs of wide + scale, 39 pass, and for each the re-solve used to end at once on the same
    // basis and pass the same check with the same x and y to the bit; skipping it saves the engine's
    // construction, scaling and factorisation (osa-30 117 ms → 7 ms warm; docs/bench/jaos.md, lpsmall2 at night).
    const first = checkBasis(model, start);
    if (first?.ok) {
      stats.verification = { primal: first.primal, dual: first.dual, cleanupRounds: 0, initial: { primal: first.primal, dual: first.dual }, resolveIterations };
      return { status: "optimal", x: first.x, y: first.y };
    }
    const engine = new LpEngine(model);
    engine.setBasis(start);
    const r = engine.solve({ deadline });
    stats.simplexIterations += r.iterations;
    resolveIterations = r.iterations;
    if (r.status !== "optimal") {
      stats.verification = { primal: null, dual: null, cleanupRounds: 0, initial: null, resolveIterations };
      const reason = `the optimum of the presolved LP could not be re-derived on the original model (${r.status}${r.message ? `: ${r.message}` : ""})`;
      return { status: r.status === "time_limit" ? "time_limit" : "feasible", x: x0, reason };
    }
    basis = engine.getBasis();
    // a re-solve that moved nothing leaves the basis just checked: that check stands (pilot, pilot87)
    if (r.iterations === 0 && sameStatuses(basis, start)) checked = first;
  }
  const v = verifiedOptimum(model, basis, deadline, checked);
  stats.simplexIterations += v.iterations;
  stats.verification = { primal: v.check?.primal ?? null, dual: v.check?.dual ?? null, cleanupRounds: v.rounds, initial: v.initial, resolveIterations };
  if (v.check?.ok) return { status: "optimal", x: v.check.x, y: v.check.y };
  const x = v.check && maxViolation(model, v.check.x) <= FEASIBILITY ? v.check.x : x0;
  const reason = `optimality not verified: ${v.reason ?? "no basis"}`;
  return { status: performance.now() >= deadline ? "time_limit" : "feasible", x, reason };
}

function sameStatuses(a: Int8Array, b: Int8Array): boolean {
  if (a.length !== b.length) return false;
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return false;
  return true;
}

/**
 * Basis statuses for a vertex x: a column or logical (−row activity) strictly inside its bounds is
 * basic, one at a bound nonbasic there. A degenerate vertex has fewer than m such: the count is made up
 * by logicals of rows (the factorisation repairs a singular choice). Used only where presolve left no
 * basis to postsolve (every column removed).
 */
function basisAt(model: LpModel, x: Float64Array): Int8Array {
  const { rows, cols } = model;
  const status = new Int8Array(cols + rows);
  const near = (v: number, b: number) => Number.isFinite(b) && Math.abs(v - b) <= 1e-9 * Math.max(1, Math.abs(b));
  const place = (v: number, lower: number, upper: number) => (near(v, lower) ? AT_LOWER : near(v, upper) ? AT_UPPER : BASIC);
  let basic = 0;
  for (let j = 0; j < cols; j++) {
    status[j] = place(x[j]!, model.colLower[j]!, model.colUpper[j]!);
    if (status[j] === BASIC) basic++;
  }
  const activity = rowActivities(model, x);
  for (let i = 0; i < rows; i++) {
    status[cols + i] = place(-activity[i]!, -model.rowUpper[i]!, -model.rowLower[i]!);
    if (status[cols + i] === BASIC) basic++;
  }
  for (let i = 0; i < rows && basic < rows; i++) {
    if (status[cols + i] !== BASIC) {
      status[cols + i] = BASIC;
      basic++;
    }
  }
  return status;
}

interface LpOutcome {
  status: "optimal" | "infeasible" | "unbounded" | "time_limit" | "error";
  x?: Float64Array;
  /** For "optimal" solved on the original model: its final basis. */
  basis?: Int8Array;
  /** For "optimal" solved on the presolved model: its final basis mapped to the original model (postsolved). */
  start?: Int8Array;
  message?: string;
}

/**
 * Solves the presolved LP and maps the answer back. A checked optimum and an unbounded ray that,
 * mapped back, passes the check on the original model are reported; other verdicts (and any presolve
 * infeasibility) are re-derived on the original model, so their certificates refer to it.
 */
function solveLpWithFallback(model: LpModel, pre: Presolved, deadline: number, stats: JaosStats): LpOutcome {
  const direct = (): LpOutcome => {
    const engine = new LpEngine(model);
    const r = engine.solve({ deadline });
    stats.simplexIterations += r.iterations;
    if (r.status === "optimal") return { status: "optimal", x: r.x!, basis: engine.getBasis() };
    if (r.status === "infeasible" || r.status === "unbounded" || r.status === "time_limit") return { status: r.status };
    return { status: "error", message: r.message ?? `LP ended ${r.status}` };
  };
  const presolved = pre.stats.rowsRemoved > 0 || pre.stats.colsRemoved > 0 || pre.stats.boundsTightened > 0;
  if (!presolved) return direct();
  if (pre.status === "infeasible") return direct();
  if (pre.reduced.cols === 0) {
    const x = pre.postsolve(new Float64Array(0));
    if (maxViolation(model, x) <= FEASIBILITY) return { status: "optimal", x };
    return direct();
  }
  const engine = new LpEngine(pre.reduced);
  const r = engine.solve({ deadline });
  stats.simplexIterations += r.iterations;
  if (r.status === "time_limit") return { status: "time_limit" };
  if (r.status === "optimal") {
    const x = pre.postsolve(r.x!);
    if (maxViolation(model, x) <= FEASIBILITY) return { status: "optimal", x, start: pre.postsolveBasis(engine.getBasis(), x, engine.rowDuals()) };
  }
  if (r.status === "unbounded" && r.x && r.ray) {
    // the certificate mapped back and checked on the original model
    if (checkUnboundedRay(model, pre.postsolve(r.x), pre.postsolveRay(r.ray))) return { status: "unbounded" };
  }
  return direct();
}
