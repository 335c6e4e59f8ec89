import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { featuresOf } from "../../../../../../functions/core/solvers/recommendation/features.js";
import { guardSwitch } from "../../../../../../functions/core/solvers/recommendation/guard.js";
import type { Observation } from "../../../../../../functions/core/solvers/recommendation/observations.js";
import { recommend, type Tuning } from "../../../../../../functions/core/solvers/recommendation/recommender.js";

/** A past LP of about `rows` rows; a negative time: not answered right, counted at the 30 s limit. */
const lp = (id: string, rows: number, times: Record<string, number>): Observation => ({
  id,
  source: "organization",
  features: featuresOf({ problem_class: "LP", variable_count: rows * 2, constraint_count: rows }),
  runs: Object.entries(times).map(([solver, t]) => ({ solver, seconds: Math.abs(t), solved: t >= 0, time_limit_seconds: 30 })),
});
const query = featuresOf({ problem_class: "LP", variable_count: 1000, constraint_count: 500 });
const ask = (history: Observation[], tuning: Tuning, available = new Set(["highs", "cbc", "glpk"])) =>
  recommend({ features: query, available, organization: history, public: [], tuning })!;

/** Switching is easy here (no margin, no shrinkage): what decides is the guard. */
const EAGER: Tuning = { k: 5, confidence: 0, shrinkage: 0, prior: "zero", scale: "log", failurePrior: null, unseenFailures: null };
const RATE_GUARDS: Tuning[] = [
  { failurePrior: 0, unseenFailures: null },
  { failurePrior: 3, unseenFailures: null },
  { failurePrior: 3, unseenFailures: 1 },
];

/** Five LPs near the query on which CBC is a little faster than HiGHS; `far` more, two decades bigger, out of reach. */
const steady = (far: Record<string, number>[] = []) => [
  ...[0.5, 0.8, 1.2, 0.3, 2].map((h, i) => lp(`near${i}`, 480 + 10 * i, { highs: h, cbc: h * 0.6 })),
  ...far.map((times, i) => lp(`far${i}`, 50_000 + i, times)),
];

describe("the guard against a switch lost to a run that does not answer", () => {
  it("keeps the default when the candidate did not answer one of the similar problems, and says so", () => {
    // CBC a tenth of HiGHS's time on four, and an error on the fifth (counted at the 30 s limit).
    const history = [20, 15, 25, 18].map((h, i) => lp(`near${i}`, 480 + 10 * i, { highs: h, cbc: h / 10 }));
    history.push(lp("near4", 520, { highs: 2, cbc: -0.3 }));
    // Unguarded, the log-ratios are enough with no margin.
    expect(ask(history, { ...EAGER, confidence: 0 }).solver).toBe("cbc");
    const r = ask(history, { ...EAGER, failurePrior: 0 });
    expect(r.solver).toBe("highs");
    expect(r.reason).toMatch(
      /^Kept HiGHS, the default for LP: on the 5 most similar models you compared \(LP, 10\^2–10\^3 rows\) CBC was faster on 4 of 5 \(about [\d.]+× its time\) but did not answer 1 of them right within its limit \(HiGHS: none\)\.$/,
    );
  });

  it("with a class prior, carries the candidate's failures elsewhere in the class into the rate", () => {
    const history = steady([
      { highs: 3, cbc: -30 },
      { highs: 4, cbc: -30 },
      { highs: 5, cbc: 2 },
    ]);
    expect(ask(history, { ...EAGER, failurePrior: 0 }).solver).toBe("cbc");
    const r = ask(history, { ...EAGER, failurePrior: 3 });
    expect(r.solver).toBe("highs");
    expect(r.reason).toMatch(
      /CBC was faster on 5 of 5 .* but across the 8 LP models you compared both ran, it did not answer 2 right within its limit \(HiGHS: none\), a risk these few do not outweigh\.$/,
    );
  });

  it("the seconds test: a switch must save more than the unseen failures it risks, priced at the limit", () => {
    const history = steady();
    expect(ask(history, { ...EAGER, unseenFailures: 0 }).solver).toBe("cbc");
    const r = ask(history, { ...EAGER, unseenFailures: 1 });
    expect(r.solver).toBe("highs");
    expect(r.reason).toMatch(
      /CBC was faster on 5 of 5 .*, but it saved about 0\.38 s a problem on them, too little to risk a run that does not answer within the 30 s limit/,
    );
    // At 0 unseen failures the seconds need only agree with the log-ratios: here they do not.
    const shortGains = [0, 1, 2, 3].map((i) => lp(`s${i}`, 480 + 10 * i, { highs: 0.5, cbc: 0.05 }));
    shortGains.push(lp("long", 520, { highs: 10, cbc: 12 }));
    expect(ask(shortGains, EAGER).solver).toBe("cbc");
    expect(ask(shortGains, { ...EAGER, unseenFailures: 0 }).reason).toMatch(
      /^Kept HiGHS, the default for LP: .* CBC was faster on 4 of 5 .*, but it took longer on them in all \(about 0\.04 s a problem more\): it gained on the short ones and lost on the long\.$/,
    );
    // Big savings pay for the risk: 10 s a problem against one unseen 30 s failure in six.
    const big = [0, 1, 2, 3, 4].map((i) => lp(`b${i}`, 480 + 10 * i, { highs: 15, cbc: 5 }));
    expect(ask(big, { ...EAGER, unseenFailures: 1 }).solver).toBe("cbc");
    const v = guardSwitch(
      "cbc",
      "highs",
      big.map((observation) => ({ observation, distance: 0 })),
      big,
      { failurePrior: null, unseenFailures: 1 },
    );
    expect([v.savedSeconds, v.riskedSeconds, v.limitSeconds]).toEqual([10, (50 - 30) / 6, 30]);
  });
});

/** Generated LP histories near the query: each solver answers every problem, in 0.05 to 20 s. */
const answeredHistory = fc
  .array(
    fc.record({
      rows: fc.integer({ min: 300, max: 800 }),
      highs: fc.double({ min: 0.05, max: 20, noNaN: true }),
      cbc: fc.double({ min: 0.05, max: 20, noNaN: true }),
      glpk: fc.double({ min: 0.05, max: 20, noNaN: true }),
    }),
    { minLength: 3, maxLength: 9 },
  )
  .map((rows) => rows.map(({ rows: r, ...times }, i) => lp(`g${i}`, r, times)));

describe("the guard's properties", () => {
  it("with no unanswered run in the evidence, the rate test changes nothing", () => {
    let switched = 0;
    fc.assert(
      fc.property(
        answeredHistory,
        fc.constantFrom(0, 1, 3, 10),
        fc.constantFrom<Tuning>(EAGER, { k: 7, confidence: 1, shrinkage: 1, prior: "class" }),
        (history, s, base) => {
          const guarded = ask(history, { ...base, failurePrior: s });
          expect(guarded).toEqual(ask(history, { ...base, failurePrior: null }));
          if (guarded.solver !== "highs") switched++;
        },
      ),
      { seed: 29, numRuns: 150 },
    );
    expect(switched).toBeGreaterThan(20);
  });

  it("a time-limit run added for a solver can only move the choice toward the default", () => {
    // Not vacuous: count the cases that switched before the time-limit run was added, and those it moved back.
    let switched = 0;
    let movedBack = 0;
    fc.assert(
      fc.property(
        answeredHistory,
        fc.nat(),
        fc.constantFrom("cbc", "glpk"),
        fc.constantFrom(...RATE_GUARDS),
        fc.constantFrom<Tuning>(EAGER, { k: 7, confidence: 1, shrinkage: 1, prior: "class", scale: "seconds" }),
        (history, at, solver, guard, base) => {
          const tuning = { ...base, ...guard };
          const i = at % history.length;
          const timedOut = history.map((o, j) =>
            j === i ? { ...o, runs: o.runs.map((r) => (r.solver === solver ? { ...r, seconds: 30, solved: false } : r)) } : o,
          );
          // Two solvers: the choice stays or goes back to HiGHS.
          const pair = new Set(["highs", solver]);
          const before = ask(history, tuning, pair).solver;
          const afterPair = ask(timedOut, tuning, pair).solver;
          expect([before, "highs"]).toContain(afterPair);
          if (before !== "highs") switched++;
          if (before !== afterPair) movedBack++;
          // Three: a kept default stays kept, and the solver that did not answer is never newly chosen.
          const all = ask(history, tuning).solver;
          const after = ask(timedOut, tuning).solver;
          if (all === "highs") expect(after).toBe("highs");
          if (all !== solver) expect(after).not.toBe(solver);
        },
      ),
      { seed: 29, numRuns: 200 },
    );
    expect(switched).toBeGreaterThan(20);
    expect(movedBack).toBeGreaterThan(10);
  });
});
