/**
 * A MILP's start solution (JaosOptions.startSolution): verified like every incumbent — accepted when it
 * holds, ignored when it breaks a row, a bound or integrality — and the optimum never changes with it.
 */
import { describe, expect, it } from "vitest";
import { type Problem, type ProblemInput, expectObjective, problem, seededGenerator, solveChecked } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** A random knapsack-like MILP of binaries and small general integers: 0 is always feasible. */
function randomMilp(seed: number): Problem {
  const g = seededGenerator(seed);
  const n = g.int(8, 16);
  const variables: ProblemInput["variables"] = Array.from({ length: n }, (_, j) =>
    g.next() < 0.7 ? { name: `x${j}`, type: "binary" as const } : { name: `x${j}`, lb: 0, ub: g.int(2, 4), type: "integer" as const },
  );
  const constraints: ProblemInput["constraints"] = [];
  for (let i = 0; i < g.int(3, 6); i++) {
    const terms = variables.filter(() => g.next() < 0.6).map((v) => term(g.int(1, 12), v.name));
    if (terms.length < 2) continue;
    const total = terms.reduce((s, t) => s + t.coef, 0);
    constraints.push({ name: `r${i}`, terms, ub: Math.round((0.3 + 0.4 * g.next()) * total) });
  }
  const objective = { constant: 0, terms: variables.map((v) => term(g.int(1, 20), v.name)) };
  return problem({ sense: "maximize", variables, objective, constraints });
}

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
