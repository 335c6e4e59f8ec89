/**
 * The root cut loop switches c-MIR separation off after a first round in which it found no cut: on random
 * set-covering models (Σ x ≥ 1 over triples or wider random subsets of binaries) the separator runs in
 * every round while it finds cuts, and once when it is made to find none while Gomory cuts carry the
 * loop on; the loop's bound stays at most the optimum found by enumeration.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { LpEngine } from "../src/lp.js";
import { MirSeparator } from "../src/mir.js";
import { type LpModel, modelFromProblem, rowActivities } from "../src/model.js";
import { type CutRound, rootCutLoop } from "../src/root-cuts.js";
import { integerPoints, type Problem, problem, seededGenerator } from "./support.js";

function randomCovering(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(6, 10);
  const names = Array.from({ length: n }, (_, j) => `x${j}`);
  const constraints = Array.from({ length: g.int(6, 12) }, (_, i) => {
    // triples as in the Steiner covering models (stein27: no c-MIR cut at all), or wider rows
    const chosen = seed % 2 === 0 ? names.filter(() => g.next() < 0.35) : [];
    while (chosen.length < 3) {
      const v = names[g.int(0, n - 1)]!;
      if (!chosen.includes(v)) chosen.push(v);
    }
    const terms = chosen.map((v) => ({ var: v, coef: 1 }));
    return { name: `c${i}`, terms, lb: 1 };
  });
  return problem({
    sense: "minimize",
    variables: names.map((name) => ({ name, type: "binary" as const })),
    objective: { constant: 0, terms: names.map((v) => ({ var: v, coef: seed % 2 === 0 ? g.int(1, 9) : 1 })) },
    constraints,
  });
}

/** The optimum by enumeration of the binaries. */
function optimum(model: LpModel): number {
  let best = Infinity;
  for (const point of integerPoints(model)) {
    const x = new Float64Array(model.cols);
    for (const [j, v] of point) x[j] = v;
    const act = rowActivities(model, x);
    let feasible = true;
    for (let i = 0; i < model.rows; i++) if (act[i]! < model.rowLower[i]! - 1e-9 || act[i]! > model.rowUpper[i]! + 1e-9) feasible = false;
    if (feasible)
      best = Math.min(
        best,
        model.cost.reduce((s, c, j) => s + c * x[j]!, 0),
      );
  }
  return best;
}

/**
 * The root cut loop on each seed's covering model (seeds 1–60) whose root LP is optimal: the model, the
 * loop's rounds and its result. `beforeLoop` runs just before each loop, so a spy cleared there counts
 * that loop's calls alone.
 */
function* rootCutLoops(beforeLoop: () => void): Generator<{ model: LpModel; rounds: CutRound[]; r: ReturnType<typeof rootCutLoop> }> {
  for (let seed = 1; seed <= 60; seed++) {
    const { model } = modelFromProblem(randomCovering(seed));
    const engine = new LpEngine(model);
    const root = engine.solve({ deadline: Infinity });
    if (root.status !== "optimal") continue;
    beforeLoop();
    const rounds: CutRound[] = [];
    const r = rootCutLoop(model, engine, root, Infinity, { onRound: (c) => rounds.push(c) });
    yield { model, rounds, r };
  }
}

afterEach(() => vi.restoreAllMocks());

describe("jaos root cut loop, c-MIR switched off after an empty first round", () => {
  it("runs c-MIR in every round while it finds cuts, and keeps the bound at most the optimum", () => {
    const separate = vi.spyOn(MirSeparator.prototype, "separate");
    let looped = 0;
    for (const { model, rounds, r } of rootCutLoops(() => separate.mockClear())) {
      if (rounds.length === 0) continue;
      looped++;
      if (rounds[0]!.cuts.mir > 0) expect(separate.mock.calls.length).toBeGreaterThanOrEqual(rounds.length);
      else expect(separate).toHaveBeenCalledTimes(1);
      expect(r.root.objective).toBeLessThanOrEqual(optimum(model) + 1e-6);
    }
    expect(looped).toBeGreaterThan(20);
  });

  it("runs c-MIR only in the first round when that round finds nothing", () => {
    // c-MIR made to find nothing: the loop goes on with Gomory cuts alone
    const separate = vi.spyOn(MirSeparator.prototype, "separate").mockReturnValue([]);
    let multiRound = 0;
    for (const { model, rounds, r } of rootCutLoops(() => separate.mockClear())) {
      if (rounds.length > 1) multiRound++;
      expect(separate.mock.calls.length).toBeLessThanOrEqual(1);
      expect(r.root.objective).toBeLessThanOrEqual(optimum(model) + 1e-6);
    }
    expect(multiRound).toBeGreaterThan(5);
  });
});
