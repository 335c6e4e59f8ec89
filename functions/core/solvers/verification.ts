import { numericsAreRisky, numericsOf, type Numerics } from "../problem/numerics.js";
import { hasIntegers, type Problem, problemClass } from "../problem/schema.js";
import { relativeGap } from "./gap.js";
import { expressibilityGap } from "./registry.js";
import type { ModelNames } from "../jmodel/names.js";
import { emptyResult, type Infeasibility, type SolveSettings, type SolverName, type SolverResult, type SolverStatus } from "./types.js";
import { assessPoint, type Finding, objectiveFinding, roundedPoint, roundedVariablesIn } from "./verification-point.js";
import { INTEGRALITY_TOLERANCE, OBJECTIVE_TOLERANCE, type Verification, type ViolationPlace } from "./verification-schema.js";

export * from "./verification-schema.js";

/**
 * The verification gate: every result passes through it before it is reported (docs/decisions.md,
 * "The verification gate"). `verifyResult` judges one answer without solving again (pool members,
 * explain re-solves, a result computed elsewhere); `verifiedSolve` runs a solve through a port and
 * judges its answer, repeating it once with a tighter integrality tolerance when its integer values
 * only passed within the solver's own (a big-M trickle), and cross-checking an uncertified
 * `infeasible` or `unbounded` on a model with risky numerics with a second solver.
 *
 * The verdict (`status`) is what the service reports; the result keeps the solver's own word in
 * `solver_status`, its objective in `verification.solver_objective`, and its raw point when that point
 * breaks the model.
 */

export type SolveFn<R extends SolverResult = SolverResult> = (solver: SolverName, problem: Problem, settings: SolveSettings) => Promise<R>;

/** How an adapter proved an `infeasible` or `unbounded` verdict, when it did (certificates.ts). */
export type VerdictCertificate = "farkas" | "ray";

/** A solver's answer as the gate reads it: a result, with the certificate of its verdict when the adapter checked one. */
export type GateInput = SolverResult & { certificate?: VerdictCertificate | null };

export interface VerifiedResult<R extends SolverResult = SolverResult> {
  /** The verdict the service reports: a solve response's `status`, a comparison row's `solver_status`. */
  status: SolverStatus;
  /**
   * The answer as reported: `objective_value` recomputed from the point, integer values rounded where
   * the rounded point passes (else the raw point, for reading), `gap` recomputed, `dual_bound` null when
   * a verified point contradicts it, `error_message` naming the broken row. `solver_status` unchanged.
   */
  result: R;
  verification: Verification;
}

export interface VerifyOptions {
  /** The requested relative gap: a MILP `optimal` beyond it (by its dual bound) is reported `feasible`. */
  gapTolerance?: number;
}

/**
 * The solver options the gate tightens on a repeat, by solver; null: the solver has none (glpsol has
 * neither; jaos judges row feasibility with fixed tolerances of its own, and rows are what the repeat
 * tightens when no integer moved).
 */
export const TOLERANCE_OPTIONS: Record<SolverName, { integrality: string | null; feasibility: string | null }> = {
  highs: { integrality: "mip_feasibility_tolerance", feasibility: "primal_feasibility_tolerance" },
  scip: { integrality: "numerics/feastol", feasibility: "numerics/feastol" },
  cbc: { integrality: "integerTolerance", feasibility: "primalTolerance" },
  jaos: { integrality: "integralityTolerance", feasibility: null },
  glpk: { integrality: null, feasibility: null },
};

/** The row feasibility tolerance of a repeat (solvers' defaults are 1e-6 to 1e-7, relative to scaled rows). */
export const TIGHTENED_FEASIBILITY_TOLERANCE = 1e-9;

/** The tightened integrality tolerance of a repeat: a tenth of the smallest trickle, within [1e-10, 1e-9]. */
export function tightenedIntegralityTolerance(smallestTrickle: number): number {
  const tenth = Math.max(1e-10, Math.min(1e-9, smallestTrickle / 10));
  // One significant digit, rounded down: 3e-10, not 3.000000000000001e-10.
  const unit = 10 ** Math.floor(Math.log10(tenth));
  return Math.max(1e-10, Number((Math.floor(tenth / unit + 1e-9) * unit).toPrecision(1)));
}

/** The least time a repeat or a cross-check gets, whatever is left of the limit. */
export const MIN_FOLLOW_UP_SECONDS = 1;

/** Preference of the second solver that cross-checks a verdict (the first available one that can express the model). */
export const CROSS_CHECK_PREFERENCE: readonly SolverName[] = ["scip", "highs", "glpk", "jaos", "cbc"];

const POINT_VERDICTS: ReadonlySet<SolverStatus> = new Set(["optimal", "feasible", "time_limit"]);

interface Judgement<R extends SolverResult> extends VerifiedResult<R> {
  /**
   * Set when the solver kept to its own tolerances (its raw point passes rows scaled by their whole size)
   * and the reported point fails only the gate's stricter reading: a big-M trickle (the rounded integer
   * variables in the broken rows, and their smallest distance to the integer) or, with no variable named,
   * a row held only within a tolerance relative to its big terms. A repeat with tighter tolerances may cure it.
   */
  trickle: { variables: string[]; smallestDistance: number } | null;
}

function trickleOf(
  problem: Problem,
  { raw, rounded, broken }: { raw: Record<string, number>; rounded: { point: Record<string, number>; moved: string[] }; broken: Finding[] },
): { variables: string[]; smallestDistance: number } {
  const movedSet = new Set(rounded.moved);
  const inRows = roundedVariablesIn(
    problem,
    broken.filter((f) => f.kind === "constraint").map((f) => f.name),
    rounded.moved,
  );
  const inBounds = broken.filter((f) => f.kind === "bound" && movedSet.has(f.name)).map((f) => f.name);
  const named = [...new Set([...inRows, ...inBounds])];
  const variables = named.length > 0 ? named : rounded.moved;
  const distances = variables.map((name) => Math.abs(raw[name]! - rounded.point[name]!));
  return { variables, smallestDistance: distances.length > 0 ? Math.min(...distances) : Number.POSITIVE_INFINITY };
}

function place(f: Finding): ViolationPlace {
  return { kind: f.kind, name: f.name };
}

function blankVerification(claimed: SolverStatus, solverObjective: number | null): Verification {
  return {
    status: "not_checked",
    max_violation: null,
    where: null,
    message: null,
    claimed_status: claimed,
    solver_objective: solverObjective,
    retried_with: null,
    cross_check: null,
    refuted_by: null,
  };
}

/** Judges one answer. Pure: no solve, no clock. */
export function verifyResult<R extends SolverResult>(problem: Problem, result: R, options: VerifyOptions = {}): VerifiedResult<R> {
  const { trickle: _, ...verified } = judge(problem, result, options);
  return verified;
}

function judge<R extends SolverResult>(problem: Problem, result: R, options: VerifyOptions): Judgement<R> {
  const claimed = result.solver_status;
  const verification = blankVerification(claimed, result.objective_value);
  if (!POINT_VERDICTS.has(claimed) || result.solution === null) {
    if (POINT_VERDICTS.has(claimed) && result.objective_value !== null) {
      verification.message = "the solver handed over no point to check (its objective value is its own word)";
    }
    return { status: claimed, result, verification, trickle: null };
  }
  const raw = result.solution;
  // The solver's own reading (rows scaled by their whole size) of its raw point, and the gate's reading
  // of the point reported: integers rounded, rows scaled by their continuous part (verification-point.ts).
  const rawCheck = assessPoint(problem, raw, { rows: "solver" });
  const rounded = roundedPoint(problem, raw);
  const roundedCheck = assessPoint(problem, rounded.point, { rows: "reported" });
  const objectiveOff = objectiveFinding(result.objective_value, rawCheck.objective, rawCheck.objectiveSize);

  if (roundedCheck.violations.length === 0 && objectiveOff === null) {
    // The rounded point passes: it is the one reported, with its own objective.
    verification.status = "verified";
    verification.max_violation = roundedCheck.maxViolation;
    const reported = { ...result, solution: rounded.point, objective_value: roundedCheck.objective } as R;
    return { ...boundRule(problem, { result: reported, verification, options }), trickle: null };
  }

  // The raw point is reported for reading, with the objective recomputed from it.
  const worst = [...roundedCheck.violations, ...(objectiveOff ? [objectiveOff] : [])].sort((a, b) => b.scaled - a.scaled)[0]!;
  // A trickle: the raw point passes only because integer values sit within the tolerance of the
  // integers they stand for; rounded, it breaks a row or bound (and a repeat may cure it).
  const trickle = rawCheck.violations.length === 0 && objectiveOff === null ? trickleOf(problem, { raw, rounded, broken: roundedCheck.violations }) : null;
  verification.status = "violated";
  verification.max_violation = Math.max(rawCheck.maxViolation, roundedCheck.maxViolation, objectiveOff?.scaled ?? 0);
  verification.where = place(worst);
  verification.message = !trickle
    ? worst.message
    : trickle.variables.length === 0
      ? `${worst.message}: the point holds only within a tolerance relative to the row's big terms (a big-M row's slack taken as room)`
      : `${worst.message} once ${trickle.variables
          .slice(0, 3)
          .map((name) => `"${name}" = ${raw[name]} is taken as the integer ${rounded.point[name]}`)
          .join(
            ", ",
          )}${trickle.variables.length > 3 ? ` (and ${trickle.variables.length - 3} more)` : ""}: the point holds only because of the integrality tolerance`;
  const reported = {
    ...result,
    objective_value: Number.isFinite(rawCheck.objective) ? rawCheck.objective : result.objective_value,
    gap: null,
    error_message: `the ${claimed} point the solver reported breaks the model: ${verification.message}`,
  } as R;
  return { status: "error", result: reported, verification, trickle };
}

/**
 * The bound rules on a verified point: a dual bound a verified point contradicts (beyond the objective
 * tolerance) is wrong and dropped; the gap is recomputed from the recomputed objective; a MILP
 * `optimal` needs its bound, on the right side and within the requested gap, or it is `feasible`.
 */
function boundRule<R extends SolverResult>(
  problem: Problem,
  { result, verification, options }: { result: R; verification: Verification; options: VerifyOptions },
): VerifiedResult<R> {
  const z = result.objective_value!;
  const sign = problem.sense === "maximize" ? -1 : 1;
  const tolerance = OBJECTIVE_TOLERANCE * Math.max(1, Math.abs(z));
  const notes: string[] = [];
  let bound = result.dual_bound;
  if (bound !== null && Number.isFinite(bound) && sign * (bound - z) > tolerance) {
    notes.push(`the solver's dual bound ${bound} is on the wrong side of the objective ${z} its verified point has, so it was dropped`);
    bound = null;
  }
  const gap =
    result.solver_status === "optimal" || result.solver_status === "feasible" || result.solver_status === "time_limit" ? relativeGap(z, bound) : result.gap;
  let status: SolverStatus = result.solver_status;
  if (status === "optimal" && hasIntegers(problem)) {
    const requested = options.gapTolerance ?? 0;
    if (bound === null || !Number.isFinite(bound)) {
      status = "feasible";
      notes.push("an optimum of a model with integer variables needs its dual bound, and the solver gave none: reported feasible");
    } else {
      const difference = Math.abs(z - bound);
      // The requested relative gap, plus the 1e-6 absolute gap solvers accept by default (HiGHS's mip_abs_gap).
      if (difference > requested * Math.max(Math.abs(z), 1e-10) * (1 + 1e-9) + 1e-6) {
        status = "feasible";
        notes.push(`the gap to the solver's dual bound ${bound} is ${gap}, above the requested ${requested}: reported feasible`);
      }
    }
  }
  if (notes.length > 0) verification.message = notes.join("; ");
  return { status, result: { ...result, dual_bound: bound, gap }, verification };
}

export interface VerifiedSolveOptions<R extends GateInput> {
  problem: Problem;
  solver: SolverName;
  settings: SolveSettings;
  solve: SolveFn<R>;
  /**
   * The solvers of this machine a verdict may be cross-checked with (any order; CROSS_CHECK_PREFERENCE
   * decides), or a function that lists them when needed. None: no cross-check.
   */
  crossCheckers?: readonly SolverName[] | (() => Promise<readonly SolverName[]>);
  /** The model's numerics when the caller has them already. */
  numerics?: Numerics;
  /** A clock in milliseconds (default: performance.now). */
  now?: () => number;
}

export interface VerifiedSolve<R extends SolverResult = SolverResult> extends VerifiedResult<R> {
  numerics: Numerics;
}

/**
 * One solve through the gate. The repeat and the cross-check run within the request's time limit: each
 * gets what is left of it (at least MIN_FOLLOW_UP_SECONDS). The reported `wall_time_ms` and
 * `solver_time_seconds` count every run the answer took.
 */
export async function verifiedSolve<R extends GateInput>(options: VerifiedSolveOptions<R>): Promise<VerifiedSolve<R>> {
  const { problem, solver, settings, solve } = options;
  const now = options.now ?? (() => performance.now());
  const numerics = options.numerics ?? numericsOf(problem);
  const started = now();
  const remaining = () => Math.max(MIN_FOLLOW_UP_SECONDS, settings.timeLimitSeconds - (now() - started) / 1000);
  const verify = { gapTolerance: settings.gapTolerance };

  const first = await solve(solver, problem, settings);
  let judged = judge(problem, first, verify);
  if (judged.trickle) {
    const options = TOLERANCE_OPTIONS[solver];
    const integers = judged.trickle.variables.length > 0;
    // A trickle needs the integrality option; a row's slack taken as room, the feasibility option.
    const option = integers ? options.integrality : options.feasibility;
    if (option === null) {
      judged.verification.message += `; ${solver} has no ${integers ? "integrality" : "feasibility"} tolerance option, so the solve was not repeated`;
    } else if (settings.integralityTolerance === undefined || settings.integralityTolerance > INTEGRALITY_TOLERANCE / 10) {
      const tightened = tightenedIntegralityTolerance(integers ? judged.trickle.smallestDistance : TIGHTENED_FEASIBILITY_TOLERANCE);
      const feasibility = options.feasibility ? TIGHTENED_FEASIBILITY_TOLERANCE : undefined;
      const firstAnswer = judged.verification.message!;
      const again = await solve(solver, problem, {
        ...settings,
        timeLimitSeconds: remaining(),
        integralityTolerance: tightened,
        ...(feasibility !== undefined ? { feasibilityTolerance: feasibility } : {}),
      });
      judged = judge(problem, withTimesOf(again, [first]), verify);
      judged.verification.retried_with = { integrality_tolerance: tightened, feasibility_tolerance: feasibility ?? null, first_answer: firstAnswer };
      if (judged.verification.status === "verified" && judged.verification.message === null) {
        const what = [
          `${options.integrality} = ${tightened}`,
          ...(feasibility !== undefined && options.feasibility !== options.integrality ? [`${options.feasibility} = ${feasibility}`] : []),
        ];
        judged.verification.message = `repeated with ${what.join(", ")}: the first answer's point broke the model once read strictly (integers rounded, rows scaled by their continuous part)`;
      }
    }
  }

  const verdict = judged.status;
  const certified = (judged.result as GateInput).certificate != null;
  if ((verdict === "infeasible" || verdict === "unbounded") && !certified && numericsAreRisky(numerics) && options.crossCheckers) {
    const checker = await crossCheckerFor(options.crossCheckers, solver, problem);
    if (checker) {
      const checked = await crossCheck({ problem, solver: checker, solve, settings, seconds: remaining(), now });
      judged.verification.cross_check = { solver_name: checker, solver_status: checked.status, objective_value: checked.result.objective_value };
      const refutes =
        checked.verification.status === "verified" && (verdict === "infeasible" ? POINT_VERDICTS.has(checked.status) : checked.status === "optimal");
      if (refutes) {
        judged = refuted(judged, {
          solver_name: checker,
          objective_value: checked.result.objective_value,
          solution: checked.result.solution,
          execution_id: null,
        });
      } else {
        judged.verification.message = `cross-checked with ${checker}, which answered ${checked.status}${checked.verification.status === "violated" ? ` at a point that breaks the model (${checked.verification.message})` : ""}: the verdict stands`;
      }
    }
  }
  // An optimum claimed on a MILP with risky numerics: a solver can prune the true optimum away within its
  // tolerances and still report a valid point with a bound equal to it. A second solver's verified point
  // better than the claimed optimum disproves the bound; the answer is then `feasible` (its point stands).
  if (judged.status === "optimal" && hasIntegers(problem) && numericsAreRisky(numerics) && options.crossCheckers) {
    const checker = await crossCheckerFor(options.crossCheckers, solver, problem);
    if (checker) {
      const checked = await crossCheck({ problem, solver: checker, solve, settings, seconds: remaining(), now });
      judged.verification.cross_check = { solver_name: checker, solver_status: checked.status, objective_value: checked.result.objective_value };
      const claimed = judged.result.objective_value!;
      const found = checked.result.objective_value;
      const sign = problem.sense === "maximize" ? -1 : 1;
      const margin = Math.max(settings.gapTolerance * Math.abs(claimed), OBJECTIVE_TOLERANCE * Math.max(1, Math.abs(claimed)));
      if (checked.verification.status === "verified" && found !== null && sign * (claimed - found) > margin) {
        judged.status = "feasible";
        judged.result = { ...judged.result, dual_bound: null, gap: null };
        judged.verification.message = `${checker} found a point with objective ${found}, better than the optimum ${claimed} the solver claimed (a model with wide coefficient ranges): its bound is disproved, and its point is reported feasible`;
      }
    }
  }

  // The explanation's own re-solves found a point of the whole model (explain.ts: `verdict_check`
  // refuted): the infeasible verdict is wrong, whatever the cross-check said or whether it ran.
  const check = judged.result.infeasibility?.verdict_check;
  if (judged.status === "infeasible" && check?.status === "refuted") {
    judged = refuted(judged, { solver_name: check.solver ?? solver, objective_value: null, solution: null, execution_id: null });
  }
  const { trickle: _, ...out } = judged;
  return { ...out, numerics };
}

/**
 * The second solver's answer, through the gate itself (its own repeat on a trickle or a big-M row's slack,
 * no cross-check of its own): a checker that took the same tolerance as room is held to the same reading.
 */
function crossCheck<R extends GateInput>(options: {
  problem: Problem;
  solver: SolverName;
  solve: SolveFn<R>;
  settings: SolveSettings;
  seconds: number;
  now: () => number;
}): Promise<VerifiedSolve<R>> {
  const { settings } = options;
  return verifiedSolve({
    problem: options.problem,
    solver: options.solver,
    solve: options.solve,
    settings: { timeLimitSeconds: options.seconds, gapTolerance: settings.gapTolerance, threads: settings.threads },
    now: options.now,
  });
}

/** The first solver of CROSS_CHECK_PREFERENCE, other than `solver`, this machine has and that can express the model. */
async function crossCheckerFor(
  crossCheckers: NonNullable<VerifiedSolveOptions<GateInput>["crossCheckers"]>,
  solver: SolverName,
  problem: Problem,
): Promise<SolverName | undefined> {
  const listed = typeof crossCheckers === "function" ? await crossCheckers() : crossCheckers;
  const cls = problemClass(problem);
  return CROSS_CHECK_PREFERENCE.find((name) => name !== solver && listed.includes(name) && expressibilityGap(name, cls) === null);
}

/** The second answer with the time of the earlier ones added: the user waited for all of them. */
function withTimesOf<R extends SolverResult>(answer: R, earlier: SolverResult[]): R {
  const add = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));
  let wall = answer.wall_time_ms;
  let search = answer.solver_time_seconds;
  for (const e of earlier) {
    wall = add(wall, e.wall_time_ms);
    search = add(search, e.solver_time_seconds);
  }
  return { ...answer, wall_time_ms: wall, solver_time_seconds: search };
}

/** An explained infeasibility of a model shown feasible: its subset is not infeasible (`verified: false`). */
export function explanationRefuted(infeasibility: Infeasibility | null | undefined): { infeasibility?: Infeasibility | null } {
  return infeasibility ? { infeasibility: { ...infeasibility, verified: false } } : {};
}

/** Why a verdict stands refuted, in words. */
export function refutationMessage(claimed: SolverStatus, by: NonNullable<Verification["refuted_by"]>): string {
  const objective = by.objective_value === null ? "" : ` (objective ${by.objective_value})`;
  return claimed === "unbounded"
    ? `the solver said unbounded, but ${by.solver_name} proved an optimum${objective} at a point that satisfies every bound, row and integrality`
    : `the solver said ${claimed}, but ${by.solver_name} found a point that satisfies every bound, row and integrality${objective}`;
}

/**
 * A verdict refuted by a verified point of another solver: reported `error`, saying which solver
 * refuted it, with its point in `verification.refuted_by`.
 */
export function refuted<R extends SolverResult, V extends VerifiedResult<R>>(verified: V, by: NonNullable<Verification["refuted_by"]>): V {
  const message = refutationMessage(verified.verification.claimed_status, by);
  return {
    ...verified,
    status: "error",
    // A point of the whole model satisfies every subset of it: an explanation of the verdict cannot hold.
    result: { ...verified.result, error_message: message, ...explanationRefuted(verified.result.infeasibility) },
    verification: { ...verified.verification, status: "violated", where: null, max_violation: null, message, refuted_by: by },
  };
}

/**
 * Pool members through the same rules: each a point with the solver's objective, kept only when its
 * point (integers rounded where that still passes) verifies, and then with the recomputed objective.
 */
export function verifyPool(
  problem: Problem,
  members: readonly { objective_value: number; solution: Record<string, number> }[],
): { objective_value: number; solution: Record<string, number> }[] {
  const kept: { objective_value: number; solution: Record<string, number> }[] = [];
  for (const member of members) {
    const answer: SolverResult = { ...emptyResult("feasible"), objective_value: member.objective_value, solution: member.solution };
    const { verification, result } = verifyResult(problem, answer);
    if (verification.status === "verified" && result.solution && result.objective_value !== null) {
      kept.push({ objective_value: result.objective_value, solution: result.solution });
    }
  }
  return kept;
}

/** The place of a violation in a JModel model's words: the family and index tuple of its flat name. */
export function nameViolationPlace(where: ViolationPlace | null, names: ModelNames): ViolationPlace | null {
  if (!where) return where;
  const origin = where.kind === "constraint" ? names.constraints.get(where.name) : where.kind === "objective" ? undefined : names.variables.get(where.name);
  return origin ? { ...where, family: origin.family, index: origin.index } : where;
}
