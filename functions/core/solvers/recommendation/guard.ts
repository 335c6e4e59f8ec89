import type { SolverName } from "../types.js";
import type { Neighbour } from "./paired.js";
import { countedSeconds, type Observation, type ObservedRun } from "./observations.js";

/**
 * The guard against a switch lost to one run that does not answer (issue 29, Build 2, second pass). The
 * paired comparison (paired.ts) judges typical times; a run that does not answer (time limit, error, wrong
 * answer) costs the whole limit, and a switch that saves fractions of a second on most similar problems
 * loses that on the one where the other solver does not answer. Two tests, each off with null, their
 * strengths chosen like the other parameters (by leave-one-out on a history, test/bench/_auto-splits.ts):
 *
 * - **Rate** (`failurePrior`): the candidate's rate of not answering among the similar problems both ran,
 *   shrunk by `failurePrior` pseudo-runs toward its class-wide rate (every problem of the class both ran),
 *   must not exceed the default's estimated alike. Loss aversion: a switch is refused on a higher rate
 *   whatever the seconds say. With no unanswered run in the evidence it never refuses.
 * - **Seconds** (`unseenFailures`): the seconds the candidate saved on the similar problems (counted times,
 *   a run not answered at its limit), with `unseenFailures` pseudo-problems on which the candidate did not
 *   answer and the default did, priced at the limit, must stay above 0: the switch must pay for the risk
 *   that the next problem is one the history had not shown. 0 asks only that the seconds agree with the
 *   log-ratios.
 */
export interface RiskGuard {
  /** Pseudo-runs of the class-wide rate of not answering; null: no rate test. */
  failurePrior: number | null;
  /** Pseudo-problems the candidate does not answer and the default does, priced at the limit; null: no seconds test. */
  unseenFailures: number | null;
}

export const NO_GUARD: RiskGuard = { failurePrior: null, unseenFailures: null };

export interface GuardVerdict {
  solver: SolverName;
  against: SolverName;
  /** Whether the switch stands. */
  passes: boolean;
  /** Which test refused it: the rate of not answering, or the seconds saved against the risk. */
  refusedBy: "rate" | "seconds" | null;
  pairs: number;
  /** On how many of the pairs each did not answer (time limit, error or wrong answer). */
  unanswered: { solver: number; against: number };
  /** Over the class: problems both ran, and how many each did not answer. */
  classWide: { pairs: number; solver: number; against: number };
  /** The mean seconds saved per similar problem (counted times; negative: a loss). */
  savedSeconds: number;
  /** The same with the unseen failures priced in: what the seconds test holds above 0. */
  riskedSeconds: number;
  /** The time limit a run that does not answer costs (the mean over the pairs). */
  limitSeconds: number;
}

const firstRun = (o: Observation, solver: string): ObservedRun | undefined => o.runs.find((r) => r.solver === solver);

interface Tally {
  pairs: number;
  solver: number;
  against: number;
  saved: number;
  limit: number;
}

function tally(solver: SolverName, against: SolverName, observations: readonly Observation[]): Tally {
  const t: Tally = { pairs: 0, solver: 0, against: 0, saved: 0, limit: 0 };
  for (const o of observations) {
    const mine = firstRun(o, solver);
    const theirs = firstRun(o, against);
    if (!mine || !theirs) continue;
    t.pairs++;
    if (!mine.solved) t.solver++;
    if (!theirs.solved) t.against++;
    t.saved += countedSeconds(theirs) - countedSeconds(mine);
    t.limit += Math.max(mine.time_limit_seconds, theirs.time_limit_seconds);
  }
  return t;
}

/** Whether the switch from `against` to `solver`, judged on `neighbours` (and `sameClass` for the rate's prior), stands the guard. */
export function guardSwitch(
  solver: SolverName,
  against: SolverName,
  neighbours: readonly Neighbour[],
  sameClass: readonly Observation[],
  guard: RiskGuard,
): GuardVerdict {
  const near = tally(
    solver,
    against,
    neighbours.map((n) => n.observation),
  );
  const wide = tally(solver, against, sameClass);
  const limitSeconds = near.pairs > 0 ? near.limit / near.pairs : 0;
  let refusedBy: GuardVerdict["refusedBy"] = null;
  if (guard.failurePrior !== null && near.pairs > 0) {
    const s = guard.failurePrior;
    const classRate = (n: number) => (wide.pairs > 0 ? n / wide.pairs : 0);
    // Both estimates have the same denominator (pairs + s): compare the shrunk counts.
    const mine = near.solver + s * classRate(wide.solver);
    const theirs = near.against + s * classRate(wide.against);
    if (mine > theirs + 1e-9) refusedBy = "rate";
  }
  const u = guard.unseenFailures ?? 0;
  const riskedSeconds = near.pairs + u > 0 ? (near.saved - u * limitSeconds) / (near.pairs + u) : 0;
  if (refusedBy === null && guard.unseenFailures !== null && near.pairs > 0 && riskedSeconds <= 0) refusedBy = "seconds";
  return {
    solver,
    against,
    passes: refusedBy === null,
    refusedBy,
    pairs: near.pairs,
    unanswered: { solver: near.solver, against: near.against },
    classWide: { pairs: wide.pairs, solver: wide.solver, against: wide.against },
    savedSeconds: near.pairs > 0 ? near.saved / near.pairs : 0,
    riskedSeconds,
    limitSeconds,
  };
}
