/**
 * The evaluation of `npm run bench -- auto` over several splits of the scale set (test/bench/auto.ts):
 * each split is a history half (as an organization's comparisons) and a held-back half. Every parameter
 * of the recommender (neighbours k, radius, shrinkage, confidence, distance weights, structure features, the guard's strengths)
 * is chosen by leave-one-out inside the history half alone, never by the held-back half; then `auto`
 * with those parameters chooses for each held-back instance, against always-HiGHS and the best in hindsight.
 */
import { countedSeconds, type Observation, type ObservedRun } from "../../functions/core/solvers/recommendation/observations.js";
import { candidatesInRuleOrder, recommend, type Tuning } from "../../functions/core/solvers/recommendation/recommender.js";

export interface Split {
  name: string;
  history: Observation[];
  heldBack: Observation[];
}

/** A parameter setting the nested leave-one-out may choose, with whether the structure shares are used (the recommender's `tuning.structure`). */
export interface Setting {
  tuning: Required<Omit<Tuning, "structure">>;
  structure: boolean;
}

export const describeSetting = (s: Setting): string =>
  `k ${s.tuning.k}, radius ${s.tuning.maxDistance}, shrinkage ${s.tuning.shrinkage}, confidence ${s.tuning.confidence}` +
  `${s.tuning.distanceWeighted ? ", distance-weighted" : ""}${s.structure ? ", structure" : ""}, ${s.tuning.scale}${s.tuning.prior === "class" ? ", class prior" : ""}` +
  `${s.tuning.failurePrior === null ? "" : `, rate guard ${s.tuning.failurePrior}`}${s.tuning.unseenFailures === null ? "" : `, seconds guard ${s.tuning.unseenFailures}`}`;

/**
 * The guard's strengths (guard.ts) the nested leave-one-out chooses among, strongest first (ties go to the
 * earlier, so to the guard): the rate test with a class prior of 3 or 0 pseudo-runs or off; the seconds
 * test with 1 or 0 unseen failures or off.
 */
export const GUARD_FAILURE_PRIORS: readonly (number | null)[] = [3, 0, null];
export const GUARD_UNSEEN_FAILURES: readonly (number | null)[] = [1, 0, null];

/** The grid, most conservative first (never leaving the default, then the widest margins): ties in leave-one-out go to the earlier. */
export function settingsGrid(): Setting[] {
  const grid: Setting[] = [];
  const never = {
    k: 5,
    maxDistance: 1.5,
    shrinkage: 0,
    confidence: Number.POSITIVE_INFINITY,
    distanceWeighted: false,
    scale: "log" as const,
    prior: "zero" as const,
    failurePrior: null,
    unseenFailures: null,
  };
  grid.push({ tuning: never, structure: false });
  for (const confidence of [2, 1, 0.5, 0])
    for (const shrinkage of [3, 1, 0])
      for (const k of [5, 3, 7, 9])
        for (const maxDistance of [1.5, 1, 3])
          for (const distanceWeighted of [false, true])
            for (const structure of [false, true])
              for (const scale of ["log", "seconds"] as const)
                for (const prior of shrinkage === 0 ? (["zero"] as const) : (["zero", "class"] as const))
                  for (const failurePrior of GUARD_FAILURE_PRIORS)
                    for (const unseenFailures of GUARD_UNSEEN_FAILURES)
                      grid.push({ tuning: { k, maxDistance, shrinkage, confidence, distanceWeighted, scale, prior, failurePrior, unseenFailures }, structure });
  return grid;
}

export const secondsOf = (o: Observation, solver: string): number | null => {
  const run = o.runs.find((r) => r.solver === solver);
  return run ? countedSeconds(run) : null;
};
export const bestOf = (o: Observation): number => Math.min(...o.runs.map(countedSeconds));

/**
 * The share of its limit below which a run that did not answer right ended on its own: an error or an answer
 * the known one refutes, not a time-out (the saved runs keep no status; a time-out stops at the limit, give or
 * take the kill's grace, and the earliest in the 30 s set stopped at 29.9 s).
 */
export const ENDED_SHORT_SHARE = 0.9;

/** Whether a run ended in an error or a wrong answer, well before its limit (a time-out is the caller's limit: no fallback). */
export const endedShort = (run: ObservedRun): boolean => !run.solved && run.seconds < ENDED_SHORT_SHARE * run.time_limit_seconds;

/**
 * The seconds `auto`'s choice counts for with the service's fallback (jobs/auto-fallback.ts): a chosen solver
 * other than the default that ends in an error or a wrong answer is followed, in the same job, by the default
 * with what is left of the limit; the choice counts its own time plus the default's, or the limit when the
 * default does not answer right within what is left. A time-out counts at the limit, as every unanswered run.
 */
export function secondsWithFallback(o: Observation, chosen: string, fallback: string | undefined): { seconds: number; fellBack: boolean } {
  const run = o.runs.find((r) => r.solver === chosen)!;
  if (fallback === undefined || chosen === fallback || !endedShort(run)) return { seconds: countedSeconds(run), fellBack: false };
  const second = o.runs.find((r) => r.solver === fallback);
  const left = run.time_limit_seconds - run.seconds;
  const answered = second?.solved && second.seconds <= left;
  return { seconds: answered ? run.seconds + second.seconds : run.time_limit_seconds, fellBack: true };
}

export interface Outcome {
  n: number;
  autoFastest: number;
  highsFastest: number;
  auto: number;
  highs: number;
  best: number;
  /** Each choice: its solver and counted time, always-HiGHS's time on the same instance, and the reason given. */
  picks: { id: string; solver: string; basis: string; reason: string; seconds: number; highs: number; fellBackTo: string | null }[];
}

/** `auto` with `setting` on each of `tests`, judged by `pool` (minus the test itself: leave-one-out when they overlap). */
export function judge(tests: readonly Observation[], pool: readonly Observation[], setting: Setting): Outcome {
  const out: Outcome = { n: 0, autoFastest: 0, highsFastest: 0, auto: 0, highs: 0, best: 0, picks: [] };
  const seen = pool.map((o) => ({ ...o, source: "organization" as const }));
  for (const o of tests) {
    // The recommender itself leaves the structure shares out when the setting does not use them, as the service's does.
    const r = recommend({
      features: o.features,
      available: new Set(o.runs.map((x) => x.solver)),
      organization: seen.filter((x) => x.id !== o.id),
      public: [],
      tuning: { ...setting.tuning, structure: setting.structure },
    });
    if (!r) continue;
    const best = bestOf(o);
    const fallback = candidatesInRuleOrder(o.features.problem_class, new Set(o.runs.map((x) => x.solver)))[0];
    const { seconds: autoTime, fellBack } = secondsWithFallback(o, r.solver, fallback);
    const highsTime = secondsOf(o, "highs") ?? best;
    out.n++;
    out.auto += autoTime;
    out.highs += highsTime;
    out.best += best;
    if (autoTime === best) out.autoFastest++;
    if (highsTime === best) out.highsFastest++;
    out.picks.push({
      id: o.id,
      solver: r.solver,
      basis: r.basis,
      reason: r.reason,
      seconds: autoTime,
      highs: highsTime,
      fellBackTo: fellBack ? fallback! : null,
    });
  }
  return out;
}

/**
 * How a setting is chosen from the leave-one-out totals on the history: "best" takes the least total time
 * (then the most fastest picks, then the earlier in the grid); "one-se" (Breiman's one-standard-error rule)
 * takes the earliest in the grid, so the most conservative, whose total is within one standard error of
 * the best's (the standard error of the summed per-instance differences to the best), against the
 * winner's curse of picking among hundreds of settings on 17 instances.
 */
export type Selection = "best" | "one-se";

export function chooseByLeaveOneOut(
  history: readonly Observation[],
  grid: readonly Setting[],
  selection: Selection = "best",
): { setting: Setting; outcome: Outcome } {
  const judged = grid.map((setting) => ({ setting, outcome: judge(history, history, setting) }));
  let best = judged[0]!;
  for (const j of judged) {
    const fewer = j.outcome.auto < best.outcome.auto - 1e-9;
    const asFast = Math.abs(j.outcome.auto - best.outcome.auto) <= 1e-9 && j.outcome.autoFastest > best.outcome.autoFastest;
    if (fewer || asFast) best = j;
  }
  if (selection === "best") return best;
  const bestTimes = best.outcome.picks.map((p) => p.seconds);
  for (const j of judged) {
    const diffs = j.outcome.picks.map((p, i) => p.seconds - bestTimes[i]!);
    const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
    const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / Math.max(1, diffs.length - 1));
    if (j.outcome.auto <= best.outcome.auto + sd * Math.sqrt(diffs.length) + 1e-9) return j;
  }
  return best;
}

/**
 * One split, nested: the setting is chosen on the history alone (leave-one-out inside it), then `auto` with
 * it chooses for each held-back instance from the history alone. The held-back half is read only for the
 * times of the choices made, never to make them.
 */
export function evaluateSplit(split: Split, grid: readonly Setting[], selection: Selection): { setting: Setting; outcome: Outcome } {
  const { setting } = chooseByLeaveOneOut(split.history, grid, selection);
  return { setting, outcome: judge(split.heldBack, split.history, setting) };
}

/** A small seeded generator (mulberry32): the same seed, the same splits. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The stated split (sorted by name, even positions the history) and `count` random half splits with seeds
 * 1…count, stratified by class: each class is shuffled and halved, an odd class's extra instance going to
 * the history in one class and to the held-back half in the next.
 */
export function splitsOf(observations: readonly Observation[], count: number): Split[] {
  const sorted = [...observations].sort((a, b) => (a.id < b.id ? -1 : 1));
  const splits: Split[] = [{ name: "even/odd by name", history: sorted.filter((_, i) => i % 2 === 0), heldBack: sorted.filter((_, i) => i % 2 === 1) }];
  const classes = [...new Set(sorted.map((o) => o.features.problem_class))].sort();
  for (let seed = 1; seed <= count; seed++) {
    const random = seeded(seed);
    const history: Observation[] = [];
    const heldBack: Observation[] = [];
    let extraToHistory = true;
    for (const cls of classes) {
      const members = sorted.filter((o) => o.features.problem_class === cls);
      for (let i = members.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [members[i], members[j]] = [members[j]!, members[i]!];
      }
      let half = Math.floor(members.length / 2);
      if (members.length % 2 === 1) {
        if (extraToHistory) half++;
        extraToHistory = !extraToHistory;
      }
      history.push(...members.slice(0, half));
      heldBack.push(...members.slice(half));
    }
    splits.push({ name: `random #${seed}`, history, heldBack });
  }
  return splits;
}
