/**
 * Symmetry handling (symmetry.ts, orbitope.ts):
 * - the fixing never removes a sorted point of the orbitope within a node's bounds, and reports an
 *   empty node only when it holds none (enumeration of every matrix on small orbitopes);
 * - detection finds the planted blocks of a seating-like model and nothing once one coefficient breaks
 *   the symmetry;
 * - on random MILPs with planted interchangeable blocks, branch and bound with the fixing finds the
 *   optimum it finds without (and the same status), also through presolve as the service solves them;
 *   so does the fixing alternated with node propagation (objective row and continuous columns included)
 *   against the search with neither (shrunk on failure).
 */
import { describe, expect, it } from "vitest";
import { solveMip } from "../src/mip.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { type Orbitope, orbitopalFixing } from "../src/orbitope.js";
import { noPresolve } from "../src/presolve.js";
import { detectOrbitope } from "../src/symmetry.js";
import { type Problem, type ProblemInput, problem, seededGenerator, shrinkProblem, solveChecked } from "./support.js";

const term = (coef: number, name: string) => ({ var: name, coef });

/** Whether a 0/1 matrix (row-major, m×k) has its non-empty blocks sorted by first row, empty ones last. */
function sorted(x: number[], m: number, k: number): boolean {
  let previous = -1;
  for (let j = 0; j < k; j++) {
    let f = m;
    for (let i = 0; i < m; i++)
      if (x[i * k + j] === 1) {
        f = i;
        break;
      }
    if (f === m) previous = m;
    else if (f <= previous) return false;
    else previous = f;
  }
  return true;
}

describe("orbitopal fixing", () => {
  it("keeps every sorted point within the node's bounds and closes only nodes without one", () => {
    const g = seededGenerator(7);
    for (let trial = 0; trial < 400; trial++) {
      const m = g.int(1, 4);
      const k = g.int(2, 3);
      const orb: Orbitope = { rows: m, blocks: k, columns: Int32Array.from({ length: m * k }, (_, c) => c) };
      const lower = new Float64Array(m * k);
      const upper = new Float64Array(m * k).fill(1);
      for (let c = 0; c < m * k; c++) {
        const r = g.next();
        if (r < 0.15) lower[c] = 1;
        else if (r < 0.35) upper[c] = 0;
      }
      const partitioning = g.next() < 0.5;
      // every matrix with at most (exactly, when partitioning) one 1 per row, within the bounds, sorted
      const points: number[][] = [];
      const choices = partitioning ? k : k + 1;
      for (let code = 0; code < choices ** m; code++) {
        const x = new Array<number>(m * k).fill(0);
        let rest = code;
        for (let i = 0; i < m; i++) {
          const j = rest % choices;
          rest = Math.floor(rest / choices);
          if (j < k) x[i * k + j] = 1;
        }
        if (x.every((v, c) => v >= lower[c]! && v <= upper[c]!) && sorted(x, m, k)) points.push(x);
      }
      const lo = lower.slice();
      const up = upper.slice();
      const out = orbitopalFixing(orb, lo, up);
      if (out < 0) expect(points).toEqual([]);
      else for (const x of points) expect(x.every((v, c) => v >= lo[c]! && v <= up[c]!)).toBe(true);
    }
  });
});

/**
 * k interchangeable blocks over m items: item i goes to at most (or exactly) one block; each block has
 * a capacity row, a continuous "load" column bounded below by weighted pairs of its items, and the
 * same costs; extra rows inside each block repeat the same pattern.
 */
function plantedModel(seed: number, breakSymmetry = false, largest = { items: 5, blocks: 3 }): Problem {
  const g = seededGenerator(seed);
  const m = g.int(2, largest.items);
  const k = g.int(2, largest.blocks);
  const partition = g.next() < 0.6;
  const variables: ProblemInput["variables"] = [];
  const constraints: ProblemInput["constraints"] = [];
  const itemCost = Array.from({ length: m }, () => g.int(-6, 4));
  const weight = Array.from({ length: m }, () => g.int(1, 4));
  const capacity = g.int(2, 6);
  const pairs = Array.from({ length: g.int(0, 3) }, () => [g.int(0, m - 1), g.int(0, m - 1), g.int(1, 5)] as const).filter(([a, b]) => a !== b);
  const loadCost = g.int(1, 3);
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < m; i++) variables.push({ name: `x${i}_${j}`, type: "binary" });
    variables.push({ name: `h${j}`, lb: 0, ub: 20 });
    const cap = breakSymmetry && j === k - 1 ? capacity + 1 : capacity;
    constraints.push({ name: `cap${j}`, terms: Array.from({ length: m }, (_, i) => term(weight[i]!, `x${i}_${j}`)), ub: cap });
    pairs.forEach(([a, b, c], p) => {
      constraints.push({ name: `pair${p}_${j}`, terms: [term(1, `h${j}`), term(-c, `x${a}_${j}`), term(-c, `x${b}_${j}`)], lb: -c });
    });
  }
  for (let i = 0; i < m; i++) {
    const terms = Array.from({ length: k }, (_, j) => term(1, `x${i}_${j}`));
    constraints.push({ name: `assign${i}`, terms, ub: 1, lb: partition ? 1 : undefined });
  }
  const objective = {
    constant: 0,
    terms: [
      ...Array.from({ length: k }, (_, j) => Array.from({ length: m }, (_, i) => term(itemCost[i]!, `x${i}_${j}`))).flat(),
      ...Array.from({ length: k }, (_, j) => term(loadCost, `h${j}`)),
    ],
  };
  return problem({ variables, objective, constraints });
}

function solveModel(model: LpModel, symmetry: boolean) {
  return solveMip(model, noPresolve(model), { deadline: performance.now() + 20_000, gapTolerance: 1e-9, symmetry });
}

describe("symmetry detection", () => {
  it("finds the planted blocks, and none once one block's capacity differs", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const p = plantedModel(seed);
      const orb = detectOrbitope(modelFromProblem(p).model);
      const k = p.variables.filter((v) => v.name.startsWith("h")).length;
      const m = p.constraints.filter((c) => c.name.startsWith("assign")).length;
      expect(orb, `seed ${seed}`).not.toBeNull();
      expect([orb!.rows, orb!.blocks]).toEqual([m, k]);
      expect(detectOrbitope(modelFromProblem(plantedModel(seed, true)).model), `seed ${seed} broken`).toBeNull();
    }
  });

  it("leaves the optimum of random MILPs with planted symmetry unchanged", () => {
    let fixings = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const p = plantedModel(seed);
      const model = modelFromProblem(p).model;
      const on = solveModel(model, true);
      const off = solveModel(model, false);
      expect(on.stats.symmetry, `seed ${seed}`).not.toBeNull();
      fixings += on.stats.symmetry!.fixings;
      expect(on.status, `seed ${seed}`).toBe(off.status);
      if (off.status === "optimal") {
        const value = (x: Float64Array) => x.reduce((s, v, j) => s + v * model.cost[j]!, model.offset);
        expect(value(on.incumbent!), `seed ${seed}`).toBeCloseTo(value(off.incumbent!), 6);
        // and through presolve, as the service solves it (the point checked on the problem as written)
        const served = solveChecked(p, { gapTolerance: 1e-9 });
        expect(served.solver_status, `seed ${seed}`).toBe("optimal");
        expect(served.objective_value!, `seed ${seed}`).toBeCloseTo(value(off.incumbent!), 6);
      }
    }
    expect(fixings).toBeGreaterThan(0);
  });

  it("keeps the optimum with the fixing alternated with propagation through the rows and the objective", () => {
    let nodes = 0;
    const disagreement = (p: Problem): string | null => {
      const model = modelFromProblem(p).model;
      const plain = solveMip(model, noPresolve(model), { deadline: performance.now() + 20_000, gapTolerance: 1e-9, symmetry: false, nodePropagation: false });
      const both = solveMip(model, noPresolve(model), { deadline: performance.now() + 20_000, gapTolerance: 1e-9, propagateContinuous: true });
      nodes += both.nodes;
      if (plain.status !== both.status) return `status ${both.status}, without: ${plain.status}`;
      if (plain.status !== "optimal") return null;
      const value = (x: Float64Array) => x.reduce((s, v, j) => s + v * model.cost[j]!, model.offset);
      const [a, b] = [value(both.incumbent!), value(plain.incumbent!)];
      return Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(b)) ? `optimum ${a}, without: ${b}` : null;
    };
    for (let seed = 1; seed <= 40; seed++) {
      // larger than above, so that the searches branch
      const p = plantedModel(seed, false, { items: 8, blocks: 4 });
      const why = disagreement(p);
      if (why) expect.fail(`seed ${seed}: ${why}; shrunk: ${JSON.stringify(shrinkProblem(p, disagreement))}`);
    }
    // some of the searches branched (the others close at the root)
    expect(nodes).toBeGreaterThan(0);
  }, 120_000);
});
