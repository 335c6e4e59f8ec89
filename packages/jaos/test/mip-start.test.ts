/**
 * A MILP's start solution (JaosOptions.startSolution): verified like every incumbent — accepted when it
 * holds, ignored when it breaks a row, a bound or integrality — and the optimum never changes with it.
 */
import { describe, expect, it } from "vitest";
import { expectObjective, solveChecked, seededMilp } from "./support.js";

/** A random knapsack-like MILP of binaries and small general integers, ≤ rows of positive terms: 0 is always feasible. */
const randomMilp = (seed: number) =>
  seededMilp(seed, {
    columns: [8, 16],
    integerUpper: [2, 4],
    continuous: false,
    rows: [3, 6],
    rowsRedrawn: true,
    termChance: 0.6,
    coefficient: [1, 12],
    negativeChance: 0,
    side: { base: 0.3, spread: 0.4 },
    rowKinds: { atMost: 1, atLeast: 0 },
    objective: [1, 20],
    sense: "maximize",
  });

describe("jaos MILP start solution", () => {
  it("is accepted when it holds, rejected when it does not, and never changes the optimum", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const p = randomMilp(seed * 31);
      const plain = solveChecked(p);
      expect(plain.solver_status, `seed ${seed}`).toBe("optimal");
      const best = plain.objective_value!;
      expect(plain.stats.mip?.startSolution ?? null).toBeNull();

      // the optimum itself: accepted, and the search only proves it
      const fromOptimum = solveChecked(p, { startSolution: plain.solution! });
      expect(fromOptimum.stats.mip?.startSolution, `seed ${seed}`).toBe("accepted");
      expectObjective(fromOptimum, best);

      // the zero point (feasible, usually poor): accepted, and the search still finds the optimum
      const fromZero = solveChecked(p, { startSolution: {} });
      expect(fromZero.stats.mip?.startSolution, `seed ${seed}`).toBe("accepted");
      expectObjective(fromZero, best);

      // every column at its upper bound breaks a row: ignored
      const full = Object.fromEntries(p.variables.map((v) => [v.name, v.ub ?? 1]));
      const fromFull = solveChecked(p, { startSolution: full });
      expect(fromFull.stats.mip?.startSolution, `seed ${seed}`).toBe("rejected");
      expectObjective(fromFull, best);

      // a fractional integer column: ignored
      const fractional = solveChecked(p, { startSolution: { x0: 0.5 } });
      expect(fractional.stats.mip?.startSolution, `seed ${seed}`).toBe("rejected");
      expectObjective(fractional, best);
    }
  });

  it("reports the start solution as the first incumbent", () => {
    const p = randomMilp(7);
    const plain = solveChecked(p);
    const seen: number[] = [];
    solveChecked(p, { startSolution: plain.solution!, onIncumbent: (i) => seen.push(i.objective_value) });
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.abs(seen[0]! - plain.objective_value!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(plain.objective_value!)));
  });
});
