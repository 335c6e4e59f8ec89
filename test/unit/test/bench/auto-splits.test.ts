import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { featuresOf } from "../../../../functions/core/solvers/recommendation/features.js";
import type { Observation } from "../../../../functions/core/solvers/recommendation/observations.js";
import {
  chooseByLeaveOneOut,
  evaluateSplit,
  judge,
  type Setting,
  type Split,
  secondsWithFallback,
  settingsGrid,
  splitsOf,
} from "../../../bench/_auto-splits.js";

/** A seeded stand-in for the scale set: `lps` LPs and `milps` MILPs of varied sizes, each run by HiGHS, CBC and SCIP. */
function instances(lps: number, milps: number, seed = 7): Observation[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const make = (cls: "LP" | "MILP", i: number): Observation => {
    const rows = Math.round(10 ** (1 + 3 * next()));
    const times = { highs: 0.1 + 20 * next(), cbc: 0.1 + 20 * next(), scip: 0.1 + 20 * next() };
    return {
      id: `${cls.toLowerCase()}_${String(i).padStart(2, "0")}.mps`,
      source: "public",
      features: featuresOf({ problem_class: cls, variable_count: rows * 2, constraint_count: rows, integer_count: cls === "MILP" ? rows : 0 }),
      runs: Object.entries(times).map(([solver, seconds]) => ({ solver, seconds, solved: seconds < 15, time_limit_seconds: 15 })),
    };
  };
  return [...Array.from({ length: lps }, (_, i) => make("LP", i)), ...Array.from({ length: milps }, (_, i) => make("MILP", i))];
}

const ids = (os: readonly Observation[]) => os.map((o) => o.id).sort();
const ofClass = (os: readonly Observation[], cls: string) => os.filter((o) => o.features.problem_class === cls).length;

/**
 * Every 361st setting of the grid (the first, never leaving the default, among them; structure on and off; every
 * strength of the guard, the stride being one more than a multiple of their 9): enough to choose among, quick to judge.
 */
const GRID: Setting[] = settingsGrid().filter((_, i) => i % 361 === 0);

describe("the auto bench's splits", () => {
  const all = instances(9, 8);

  it("halves every class in every random split: disjoint, together the whole set, an odd class's extra alternating", () => {
    const splits = splitsOf(all, 20);
    expect(splits).toHaveLength(21);
    expect(splits[0]!.name).toBe("even/odd by name");
    for (const split of splits.slice(1)) {
      expect(ids([...split.history, ...split.heldBack])).toEqual(ids(all));
      const held = new Set(ids(split.heldBack));
      expect(split.history.filter((o) => held.has(o.id))).toEqual([]);
      // LP (9, first in sorted class order) gives its extra instance to the history; MILP (8) halves evenly.
      expect([ofClass(split.history, "LP"), ofClass(split.heldBack, "LP")]).toEqual([5, 4]);
      expect([ofClass(split.history, "MILP"), ofClass(split.heldBack, "MILP")]).toEqual([4, 4]);
    }
    // Two odd classes: the extra goes to the history in the first, to the held-back half in the second.
    for (const split of splitsOf(instances(9, 7), 5).slice(1)) {
      expect([ofClass(split.history, "LP"), ofClass(split.heldBack, "LP")]).toEqual([5, 4]);
      expect([ofClass(split.history, "MILP"), ofClass(split.heldBack, "MILP")]).toEqual([3, 4]);
    }
  });

  it("is deterministic per seed, whatever the order the instances come in, and different seeds split differently", () => {
    const shuffled = [...all].reverse();
    const a = splitsOf(all, 10).map((s) => [ids(s.history), ids(s.heldBack)]);
    const b = splitsOf(shuffled, 10).map((s) => [ids(s.history), ids(s.heldBack)]);
    expect(b).toEqual(a);
    // Seed n is the same split whatever the count asked for.
    expect(splitsOf(all, 3).map((s) => ids(s.history))).toEqual(a.slice(0, 4).map(([h]) => h));
    expect(new Set(a.slice(1).map(([h]) => h!.join(","))).size).toBeGreaterThan(5);
  });

  it("never reads the held-back half to choose: its times change nothing but the times of the choices", () => {
    const split: Split = splitsOf(all, 1)[1]!;
    const reference = evaluateSplit(split, GRID, "one-se");
    const referenceBest = evaluateSplit(split, GRID, "best");
    const times = fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 3 * split.heldBack.length, maxLength: 3 * split.heldBack.length });
    fc.assert(
      fc.property(times, fc.array(fc.boolean(), { minLength: 3 * split.heldBack.length, maxLength: 3 * split.heldBack.length }), (seconds, solved) => {
        let k = 0;
        const heldBack = split.heldBack.map((o) => ({ ...o, runs: o.runs.map((r) => ({ ...r, seconds: seconds[k]!, solved: solved[k++]! })) }));
        const changed = { ...split, heldBack };
        for (const [selection, before] of [
          ["one-se", reference],
          ["best", referenceBest],
        ] as const) {
          const after = evaluateSplit(changed, GRID, selection);
          expect(after.setting).toEqual(before.setting);
          expect(after.outcome.picks.map((p) => [p.id, p.solver, p.reason])).toEqual(before.outcome.picks.map((p) => [p.id, p.solver, p.reason]));
        }
      }),
      { numRuns: 15, seed: 29 },
    );
  });

  it("chooses on the history by leave-one-out: an instance is never judged by its own runs", () => {
    const history = all.filter((o) => o.features.problem_class === "LP");
    const setting = chooseByLeaveOneOut(history, GRID, "best").setting;
    const outcome = judge(history, history, setting);
    // Each instance alone in the pool would leave nothing to learn from: the default rule, whatever its own times.
    const alone = history.map((o) => judge([o], [o], setting).picks[0]!);
    expect(alone.every((p) => p.basis === "default_rule")).toBe(true);
    expect(outcome.n).toBe(history.length);
  });

  it("prices auto's fallback as the service runs it: an error adds the default's time, capped at the limit; a time-out counts at the limit", () => {
    const run = (solver: string, seconds: number, solved: boolean) => ({ solver, seconds, solved, time_limit_seconds: 30 });
    const o = (runs: ReturnType<typeof run>[]): Observation => ({ ...all[0]!, runs });
    // CBC errs in 0.25 s, HiGHS answers in 0.49 s: 0.74 s, not the limit.
    expect(secondsWithFallback(o([run("cbc", 0.25, false), run("highs", 0.49, true)]), "cbc", "highs")).toEqual({ seconds: 0.74, fellBack: true });
    // The default does not answer right within what is left: the limit.
    expect(secondsWithFallback(o([run("cbc", 10, false), run("highs", 25, true)]), "cbc", "highs")).toEqual({ seconds: 30, fellBack: true });
    expect(secondsWithFallback(o([run("cbc", 1, false), run("highs", 2, false)]), "cbc", "highs")).toEqual({ seconds: 30, fellBack: true });
    // A time-out is the caller's limit: no fallback.
    expect(secondsWithFallback(o([run("cbc", 29.9, false), run("highs", 1, true)]), "cbc", "highs")).toEqual({ seconds: 30, fellBack: false });
    // The default's own error, and an answer, are final.
    expect(secondsWithFallback(o([run("highs", 0.3, false)]), "highs", "highs")).toEqual({ seconds: 30, fellBack: false });
    expect(secondsWithFallback(o([run("cbc", 3, true), run("highs", 1, true)]), "cbc", "highs")).toEqual({ seconds: 3, fellBack: false });
  });
});
