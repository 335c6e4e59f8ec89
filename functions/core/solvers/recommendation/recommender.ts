import type { ProblemClass } from "../../problem/schema.js";
import { expressibilityGap, SOLVERS } from "../registry.js";
import { SOLVER_NAMES, type SolverName } from "../types.js";
import { featureDistance, type ProblemFeatures } from "./features.js";
import { countedSeconds, type Observation } from "./observations.js";
import { type GuardVerdict, guardSwitch, type RiskGuard } from "./guard.js";
import { classPrior, type EvidenceRule, type Neighbour, type PairedComparison, pairedComparison } from "./paired.js";

/**
 * The recommender of `auto` (issue 29, Build 2): pure and deterministic. It takes the K_NEAREST past
 * problems of the same class nearest by `featureDistance` (ties by id), within MAX_DISTANCE, from the
 * organization's comparisons or, with fewer than MIN_SIMILAR of those, from the public benchmark table;
 * ranks each available solver able to run the class by the shifted geometric mean (shift
 * SHIFT_SECONDS) of its counted times on them (a run not solved right counts at its time limit), ties
 * by today's rule; and falls back to today's rule (registry.ts pickAuto) with fewer than MIN_SIMILAR
 * similar problems or no solver with runs on MIN_SIMILAR of them.
 *
 * It knows when it does not know (paired.ts): it keeps today's rule's solver unless a paired comparison
 * on the similar problems shows another clearly faster (the shrunk mean log-ratio below 0 by CONFIDENCE
 * standard errors), and says so in the reason when it kept it for lack of clear evidence.
 */
/**
 * Chosen by leave-one-out over every instance of the scale set at the 30 s limit with the one-standard-error
 * rule (`npm run bench -- auto --from docs/bench/auto-runs-30s.json`; docs/decisions.md), re-chosen when the
 * bench began to price the fallback of an erring choice to the default (jobs/auto-fallback.ts) as the service runs it.
 */
export const K_NEAREST = 3;
export const MIN_SIMILAR = 3;
/** How far (root mean square of weighted differences, in decades of size; features.ts) a problem may be to count as similar. */
export const MAX_DISTANCE = 1.5;
/** The shift of the geometric mean, in seconds: times well under a second weigh about alike. */
export const SHIFT_SECONDS = 1;
/** The evidence rule (paired.ts): pseudo-pairs of shrinkage, standard errors of margin, distance weights. */
export const SHRINKAGE = 0;
export const CONFIDENCE = 2;
export const DISTANCE_WEIGHTED = true;
export const SCALE: EvidenceRule["scale"] = "log";
export const PRIOR: EvidenceRule["prior"] = "zero";
/**
 * The guard against a switch lost to a run that does not answer (guard.ts), as the one-standard-error rule over
 * all 34 instances chose it with the rest (docs/bench/auto.md): the rate test on the similar problems alone
 * (no class prior), and the seconds test with no unseen failures (the seconds saved must agree with the log-ratios).
 */
export const FAILURE_PRIOR: RiskGuard["failurePrior"] = 0;
export const UNSEEN_FAILURES: RiskGuard["unseenFailures"] = 0;
/**
 * Whether the structure shares (structure.ts) count in the distance. Off: the nested leave-one-out took them
 * in a minority of splits, and the one-standard-error choice over all instances leaves them out. Off, the
 * problem's structure counts are not even computed for `auto` (live.ts).
 */
export const STRUCTURE = false;

export interface RankedSolver {
  solver: SolverName;
  /** The shifted geometric mean of its counted times on the similar problems; null without runs on MIN_SIMILAR of them. */
  expected_seconds: number | null;
  /** On how many of the similar problems it had the least counted time (ties: each tied solver). */
  fastest_on: number;
  /** How many of the similar problems it ran on. */
  runs: number;
}

export interface Recommendation {
  solver: SolverName;
  reason: string;
  /** What decided: the organization's comparisons, the public benchmark table, or today's rule. */
  basis: "organization" | "public" | "default_rule";
  ranking: RankedSolver[];
  evidence: { comparisons: number; similar_problems: string[] };
}

export interface RecommendInput {
  features: ProblemFeatures;
  /** The solvers available now (the inventory); those that cannot run the class are left out here. */
  available: ReadonlySet<string>;
  organization: readonly Observation[];
  public: readonly Observation[];
  /** Other neighbourhoods than the stated ones, for the benchmark's study of them (test/bench/auto.ts); the service never sets it. */
  tuning?: Tuning;
}

export interface Tuning extends Partial<EvidenceRule>, Partial<RiskGuard> {
  k?: number;
  maxDistance?: number;
  /** Whether the structure shares count (default STRUCTURE). */
  structure?: boolean;
}

/** Whether the recommender with `tuning` reads the structure shares. */
export const usesStructure = (tuning: Tuning = {}): boolean => tuning.structure ?? STRUCTURE;

/** The features without the structure shares: the distance then skips them on both sides (features.ts). */
export const withoutStructure = (f: ProblemFeatures): ProblemFeatures => ({
  ...f,
  set_share: null,
  knapsack_share: null,
  variable_bound_share: null,
  equality_share: null,
});

const ruleOf = (t: Tuning = {}): EvidenceRule => ({
  shrinkage: t.shrinkage ?? SHRINKAGE,
  confidence: t.confidence ?? CONFIDENCE,
  distanceWeighted: t.distanceWeighted ?? DISTANCE_WEIGHTED,
  scale: t.scale ?? SCALE,
  prior: t.prior ?? PRIOR,
});

const guardOf = (t: Tuning = {}): RiskGuard => ({
  failurePrior: t.failurePrior === undefined ? FAILURE_PRIOR : t.failurePrior,
  unseenFailures: t.unseenFailures === undefined ? UNSEEN_FAILURES : t.unseenFailures,
});

const SHORT_NAMES: Record<SolverName, string> = { scip: "SCIP", highs: "HiGHS", cbc: "CBC", glpk: "GLPK", jaos: "jaos" };
/** A solver's name as a reason says it ("HiGHS"). */
export const solverShortName = (name: SolverName): string => SHORT_NAMES[name];

/** The solvers able to run `cls` that are available, in today's rule's order: most preferred first, then registry order. */
export function candidatesInRuleOrder(cls: ProblemClass, available: ReadonlySet<string>): SolverName[] {
  const able = SOLVER_NAMES.filter((n) => available.has(n) && SOLVERS[n].autoPreference[cls] !== undefined && expressibilityGap(n, cls) === null);
  return able
    .map((name, index) => ({ name, index, score: SOLVERS[name].autoPreference[cls]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((c) => c.name);
}

/** The K_NEAREST observations within MAX_DISTANCE of `features` (same class), nearest first, ties by id. */
export function nearest(
  features: ProblemFeatures,
  observations: readonly Observation[],
  tuning: Tuning = {},
): { observation: Observation; distance: number }[] {
  return observations
    .map((observation) => ({ observation, distance: featureDistance(features, observation.features) }))
    .filter((n) => n.distance <= (tuning.maxDistance ?? MAX_DISTANCE))
    .sort((a, b) => a.distance - b.distance || (a.observation.id < b.observation.id ? -1 : a.observation.id > b.observation.id ? 1 : 0))
    .slice(0, tuning.k ?? K_NEAREST);
}

export const shiftedGeometricMean = (seconds: readonly number[], shift = SHIFT_SECONDS): number =>
  Math.exp(seconds.reduce((sum, t) => sum + Math.log(t + shift), 0) / seconds.length) - shift;

/** The candidates ranked on `similar`: by expected time (ties by rule order), then those without enough runs in rule order. */
export function rankOn(candidates: readonly SolverName[], similar: readonly Observation[]): RankedSolver[] {
  const times = new Map<SolverName, number[]>(candidates.map((c) => [c, []]));
  const wins = new Map<SolverName, number>(candidates.map((c) => [c, 0]));
  for (const o of similar) {
    let best = Number.POSITIVE_INFINITY;
    const counted = new Map<SolverName, number>();
    for (const run of o.runs) {
      const mine = times.get(run.solver as SolverName);
      // A solver compared twice on one problem: its first run counts.
      if (!mine || counted.has(run.solver as SolverName)) continue;
      const t = countedSeconds(run);
      counted.set(run.solver as SolverName, t);
      mine.push(t);
      best = Math.min(best, t);
    }
    for (const [solver, t] of counted) if (t === best) wins.set(solver, wins.get(solver)! + 1);
  }
  const ranked = candidates.map((solver, order) => {
    const ts = times.get(solver)!;
    const expected = ts.length >= MIN_SIMILAR ? shiftedGeometricMean(ts) : null;
    return { order, entry: { solver, expected_seconds: expected, fastest_on: wins.get(solver)!, runs: ts.length } };
  });
  ranked.sort((a, b) => {
    const x = a.entry.expected_seconds;
    const y = b.entry.expected_seconds;
    if (x !== null && y !== null && x !== y) return x - y;
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    return a.order - b.order;
  });
  return ranked.map((r) => r.entry);
}

/** The recommendation for a problem with `features`; null when no available solver can run its class. */
export function recommend(given: RecommendInput): Recommendation | null {
  // Structure shares off: left out of the problem's features, so no distance counts them whatever the history kept.
  const input = usesStructure(given.tuning) ? given : { ...given, features: withoutStructure(given.features) };
  const cls = input.features.problem_class;
  const candidates = candidatesInRuleOrder(cls, input.available);
  if (candidates.length === 0) return null;
  const comparisons = input.organization.length;
  const own = nearest(input.features, input.organization, input.tuning);
  const basis = own.length >= MIN_SIMILAR ? "organization" : "public";
  const similar = basis === "organization" ? own : nearest(input.features, input.public, input.tuning);
  const ranking = rankOn(
    candidates,
    similar.map((n) => n.observation),
  );
  const evidence = { comparisons, similar_problems: similar.map((n) => n.observation.id) };
  const top = ranking[0]!;
  if (similar.length < MIN_SIMILAR || top.expected_seconds === null) {
    const rule = candidates[0]!;
    const why =
      similar.length < MIN_SIMILAR
        ? `No ${MIN_SIMILAR} ${cls} models like this one in your comparisons or the public benchmark yet (${own.length} of yours, ${similar.length} public within reach)`
        : `The ${similar.length} most similar ${cls} models were not solved by ${MIN_SIMILAR} or more runs of an available solver`;
    return {
      solver: rule,
      reason: `${why}: ${SHORT_NAMES[rule]} by the default rule for ${cls}.`,
      basis: "default_rule",
      ranking: rankOn(candidates, []),
      evidence,
    };
  }
  const sameClass = (basis === "organization" ? input.organization : input.public).filter((o) => o.features.problem_class === cls);
  const decision = decide(candidates, ranking, similar, ruleOf(input.tuning), guardOf(input.tuning), sameClass);
  // The chosen solver first; the others as ranked.
  const ordered = [ranking.find((r) => r.solver === decision.solver)!, ...ranking.filter((r) => r.solver !== decision.solver)];
  return { solver: decision.solver, reason: reasonOf(cls, basis, similar, ordered, decision), basis, ranking: ordered, evidence };
}

interface Decision {
  solver: SolverName;
  /** The solver the others were compared with: today's rule's choice, or the best expected where it ran on too few. */
  reference: SolverName;
  ruleChoice: SolverName;
  /** The paired comparison that made it leave the reference, or the closest one that did not. */
  paired: PairedComparison | null;
  /** When the reference stayed only because the guard refused a clearly faster solver: the clearest one refused. */
  guarded: { paired: PairedComparison; verdict: GuardVerdict } | null;
}

/**
 * The reference is today's rule's choice where it ran on MIN_SIMILAR of the similar problems, else the
 * best expected; another solver replaces it only when clearly faster (paired.ts) and its switch stands the
 * guard (guard.ts), the clearest by time ratio first (ties by rule order).
 */
function decide(
  candidates: readonly SolverName[],
  ranking: readonly RankedSolver[],
  similar: readonly Neighbour[],
  rule: EvidenceRule,
  guard: RiskGuard,
  sameClass: readonly Observation[],
): Decision {
  const ruleChoice = candidates[0]!;
  const ruleEntry = ranking.find((r) => r.solver === ruleChoice)!;
  const reference = ruleEntry.expected_seconds !== null ? ruleChoice : ranking[0]!.solver;
  let best: PairedComparison | null = null;
  let closest: PairedComparison | null = null;
  let guarded: Decision["guarded"] = null;
  for (const solver of candidates) {
    if (solver === reference) continue;
    const prior = rule.prior === "class" && rule.shrinkage > 0 ? classPrior(solver, reference, sameClass, SHIFT_SECONDS) : undefined;
    const p = pairedComparison(solver, reference, similar, rule, { shift: SHIFT_SECONDS, minPairs: MIN_SIMILAR, classPrior: prior });
    if (!p) continue;
    if (p.clearly_faster) {
      const verdict = guardSwitch(solver, reference, similar, sameClass, guard);
      if (!verdict.passes) {
        if (!guarded || p.time_ratio < guarded.paired.time_ratio) guarded = { paired: p, verdict };
        continue;
      }
    }
    if (p.clearly_faster && (!best || p.time_ratio < best.time_ratio)) best = p;
    if (!closest || p.time_ratio < closest.time_ratio) closest = p;
  }
  return best
    ? { solver: best.solver, reference, ruleChoice, paired: best, guarded: null }
    : { solver: reference, reference, ruleChoice, paired: closest, guarded };
}

const fmtSeconds = (s: number) => `${Number(s.toPrecision(2))} s`;

/**
 * "CBC was fastest on 4 of the 5 most similar models you compared (MILP, 10^2–10^3 rows); expected 0.4 s vs
 * 1.2 s for HiGHS.", or, when the default stayed for lack of clear evidence, "Kept HiGHS, the default for
 * MILP: … CBC was faster on 3 of the 5 but not clearly (about 0.8× its time); more comparisons would tell."
 */
function reasonOf(cls: ProblemClass, basis: "organization" | "public", similar: readonly Neighbour[], ranking: RankedSolver[], d: Decision): string {
  const [top, next] = ranking as [RankedSolver, RankedSolver | undefined];
  const rows = similar.map((n) => 10 ** n.observation.features.log_constraints - 1);
  const low = Math.floor(Math.log10(Math.max(1, Math.min(...rows))));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(1, ...rows))));
  const where = basis === "organization" ? "models you compared" : "models of the public benchmark";
  if (d.guarded && d.solver === d.reference) return guardedReason(cls, basis, `${similar.length} most similar ${where} (${cls}, 10^${low}–10^${high} rows)`, d);
  // Kept the default while another solver looked faster on these few: say it was for lack of clear evidence.
  const doubted =
    d.solver === d.ruleChoice && d.paired !== null && !d.paired.clearly_faster && (d.paired.time_ratio < 1 || d.paired.faster_on > d.paired.pairs / 2);
  if (doubted) {
    const p = d.paired!;
    return (
      `Kept ${SHORT_NAMES[d.ruleChoice]}, the default for ${cls}, for lack of clear evidence: on the ${similar.length} most similar ${where} (${cls}, 10^${low}–10^${high} rows) ` +
      `${SHORT_NAMES[p.solver]} was faster on ${p.faster_on} of ${p.pairs} (about ${p.time_ratio.toFixed(2)}× its time), not clearly enough for their spread; more comparisons would tell.`
    );
  }
  let text = `${SHORT_NAMES[top.solver]} was fastest on ${top.fastest_on} of the ${similar.length} most similar ${where} (${cls}, 10^${low}–10^${high} rows)`;
  const expected = top.expected_seconds;
  if (expected != null)
    text +=
      next?.expected_seconds != null
        ? `; expected ${fmtSeconds(expected)} vs ${fmtSeconds(next.expected_seconds)} for ${SHORT_NAMES[next.solver]}`
        : `; expected ${fmtSeconds(expected)}, and no other available solver ran on enough of them`;
  if (d.paired?.clearly_faster && d.paired.against === d.ruleChoice)
    text += `, clearly faster than ${SHORT_NAMES[d.ruleChoice]}, the default for ${cls} (faster on ${d.paired.faster_on} of ${d.paired.pairs}, about ${d.paired.time_ratio.toFixed(2)}× its time)`;
  const ruleEntry = ranking.find((r) => r.solver === d.ruleChoice);
  if (d.ruleChoice !== top.solver && ruleEntry?.expected_seconds === null)
    text += ` (${SHORT_NAMES[d.ruleChoice]}, the default for ${cls}, was not run on enough of them)`;
  return `${text}.`;
}

/**
 * "Kept HiGHS, the default for LP: on the 5 most similar models you compared (…) CBC was faster on 4 of 5 (about
 * 0.60× its time) but did not answer 1 of them right within its limit (HiGHS: none)." — the guard's refusal in words.
 */
function guardedReason(cls: ProblemClass, basis: "organization" | "public", on: string, d: Decision): string {
  const { paired: p, verdict: v } = d.guarded!;
  const kept = `Kept ${SHORT_NAMES[d.reference]}${d.reference === d.ruleChoice ? `, the default for ${cls}` : ""}`;
  const faster = `${SHORT_NAMES[p.solver]} was faster on ${p.faster_on} of ${p.pairs} (about ${p.time_ratio.toFixed(2)}× its time)`;
  const none = (n: number) => (n === 0 ? "none" : `${n}`);
  if (v.refusedBy === "rate") {
    const near = v.unanswered;
    const where =
      near.solver > near.against
        ? `did not answer ${near.solver} of them right within its limit (${SHORT_NAMES[d.reference]}: ${none(near.against)})`
        : `across the ${v.classWide.pairs} ${cls} models ${basis === "organization" ? "you compared" : "of the public benchmark"} both ran, it did not answer ` +
          `${v.classWide.solver} right within its limit (${SHORT_NAMES[d.reference]}: ${none(v.classWide.against)}), a risk these few do not outweigh`;
    return `${kept}: on the ${on} ${faster} but ${where}.`;
  }
  if (v.savedSeconds <= 0)
    return `${kept}: on the ${on} ${faster}, but it took longer on them in all (about ${fmtSeconds(-v.savedSeconds)} a problem more): it gained on the short ones and lost on the long.`;
  return (
    `${kept}: on the ${on} ${faster}, but it saved about ${fmtSeconds(v.savedSeconds)} a problem on them, too little to risk ` +
    `a run that does not answer within the ${fmtSeconds(v.limitSeconds)} limit on a problem these did not show.`
  );
}
