import type { SolverName } from "../types.js";
import { countedSeconds, type Observation } from "./observations.js";

/**
 * When the evidence is clear enough to leave the reference solver (today's rule's choice, where it ran
 * on enough of the similar problems): a paired comparison on the similar problems both solvers ran on.
 * Each pair gives d = log((t_other + shift) / (t_reference + shift)) (counted times, observations.ts), or
 * d = t_other − t_reference with `scale` "seconds";
 * their weighted mean is shrunk by `shrinkage` pseudo-pairs toward a prior: 0 ("no different from the
 * reference"), or with `prior` "class" the mean difference over every past problem of the class both ran
 * (a solver that runs out of time elsewhere in the class carries that risk here too),
 * and the other solver counts as clearly faster only when that shrunk mean plus `confidence` standard
 * errors is still below 0. With few, noisy pairs the standard error is large and the reference stays.
 */
export interface EvidenceRule {
  /** Pseudo-pairs of "no difference" the mean is shrunk toward: mean × n / (n + shrinkage). */
  shrinkage: number;
  /** Standard errors of the mean the shrunk mean must stay below 0 by; Infinity never leaves the reference. */
  confidence: number;
  /** Weigh a similar problem by 1 / (DISTANCE_SOFTENING + distance) rather than all alike. */
  distanceWeighted: boolean;
  /**
   * What a pair's difference is measured in: "log" (the log-ratio of shifted times: each problem weighs
   * alike, whatever its size) or "seconds" (the difference of counted times: what a total time adds up).
   */
  scale: "log" | "seconds";
  /** What the mean is shrunk toward: no difference, or the class-wide mean difference (classPrior). */
  prior: "zero" | "class";
}

/** A problem at distance 0 weighs 1 / DISTANCE_SOFTENING, one at a decade's distance about a fifth of that. */
export const DISTANCE_SOFTENING = 0.25;

export interface PairedComparison {
  solver: SolverName;
  against: SolverName;
  /** The similar problems both ran on. */
  pairs: number;
  /** On how many of them `solver` took less counted time than `against`. */
  faster_on: number;
  /** exp of the shrunk weighted mean log-ratio, whatever the scale: 0.5 means about half the reference's (shifted) time. */
  time_ratio: number;
  /** Whether the shrunk mean stays below 0 by `confidence` standard errors. */
  clearly_faster: boolean;
}

export interface Neighbour {
  observation: Observation;
  distance: number;
}

const firstCounted = (o: Observation, solver: string): number | null => {
  const run = o.runs.find((r) => r.solver === solver);
  return run ? countedSeconds(run) : null;
};

/** `solver` against `against` on the neighbours both ran on; null with fewer than `minPairs` of them. */
export function pairedComparison(
  solver: SolverName,
  against: SolverName,
  neighbours: readonly Neighbour[],
  rule: EvidenceRule,
  options: { shift: number; minPairs: number; classPrior?: { log: number; seconds: number } },
): PairedComparison | null {
  const diffs: number[] = [];
  const logRatios: number[] = [];
  const weights: number[] = [];
  let fasterOn = 0;
  for (const n of neighbours) {
    const mine = firstCounted(n.observation, solver);
    const theirs = firstCounted(n.observation, against);
    if (mine === null || theirs === null) continue;
    const logRatio = Math.log((mine + options.shift) / (theirs + options.shift));
    logRatios.push(logRatio);
    diffs.push(rule.scale === "log" ? logRatio : mine - theirs);
    weights.push(rule.distanceWeighted ? 1 / (DISTANCE_SOFTENING + n.distance) : 1);
    if (mine < theirs) fasterOn++;
  }
  if (diffs.length < options.minPairs) return null;
  const sumW = weights.reduce((s, w) => s + w, 0);
  const mean = diffs.reduce((s, d, i) => s + weights[i]! * d, 0) / sumW;
  // Kish's effective number of pairs: equal weights give the count itself.
  const effective = sumW ** 2 / weights.reduce((s, w) => s + w * w, 0);
  const spread = diffs.reduce((s, d, i) => s + weights[i]! * (d - mean) ** 2, 0) / sumW;
  const variance = effective > 1 ? (spread * effective) / (effective - 1) : Number.POSITIVE_INFINITY;
  const standardError = Math.sqrt(variance / effective);
  const shrinking = effective / (effective + rule.shrinkage);
  const prior = rule.prior === "class" && options.classPrior ? options.classPrior : { log: 0, seconds: 0 };
  const shrunk = mean * shrinking + (rule.scale === "log" ? prior.log : prior.seconds) * (1 - shrinking);
  const meanLogRatio = logRatios.reduce((s, d, i) => s + weights[i]! * d, 0) / sumW;
  const margin = rule.confidence === 0 ? 0 : rule.confidence * standardError;
  return {
    solver,
    against,
    pairs: diffs.length,
    faster_on: fasterOn,
    time_ratio: Math.exp(meanLogRatio * shrinking + prior.log * (1 - shrinking)),
    clearly_faster: Number.isFinite(rule.confidence) && shrunk + margin < 0,
  };
}

/** The mean difference of `solver` against `against` over every past problem of `pool` both ran (unweighted): the class-wide prior. */
export function classPrior(solver: SolverName, against: SolverName, pool: readonly Observation[], shift: number): { log: number; seconds: number } {
  let log = 0;
  let seconds = 0;
  let n = 0;
  for (const o of pool) {
    const mine = firstCounted(o, solver);
    const theirs = firstCounted(o, against);
    if (mine === null || theirs === null) continue;
    log += Math.log((mine + shift) / (theirs + shift));
    seconds += mine - theirs;
    n++;
  }
  return n === 0 ? { log: 0, seconds: 0 } : { log: log / n, seconds: seconds / n };
}
