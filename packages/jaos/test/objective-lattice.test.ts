/**
 * The objective's lattice (objective-lattice.ts): on random small mixed-integer models, whenever a step
 * is claimed, the best point of every assignment of the integer columns (an LP in the continuous ones,
 * solved by the engine) has its objective on offset + k·step — what pruning at incumbent − step and
 * rounding bounds up need. Checked by enumerating the assignments; a failing model is shrunk first.
 */
import { describe, expect, it } from "vitest";
import { LpEngine } from "../src/lp.js";
import { modelFromProblem, objectiveValue } from "../src/model.js";
import { asFraction, objectiveLatticeStep } from "../src/objective-lattice.js";
import { type Problem, problem, seededGenerator, shrinkProblem } from "./support.js";

const UNITS = [1, 0.25, 1 / 3, 0.2, 0.1, 2];

/** A few integer columns, continuous "total" columns tied to them by equalities or pushed by their costs, noise rows. */
function randomModel(seed: number): Problem {
  const g = seededGenerator(seed);
  const pick = <T>(xs: T[]): T => xs[g.int(0, xs.length - 1)]!;
  const ints = Array.from({ length: g.int(2, 4) }, (_, k) => ({ name: `x${k}`, lb: 0, ub: g.int(1, 2), type: "integer" as const }));
  const unit = pick(UNITS);
  const objective = ints.map((v) => ({ var: v.name, coef: unit * g.int(-3, 3) })).filter((t) => t.coef !== 0);
  const constraints: Problem["constraints"] = [];
  const conts: { name: string; lb: number; ub: number }[] = [];
  const combination = (scale: number, exact: boolean) =>
    ints.filter(() => g.next() < 0.7).map((v) => ({ var: v.name, coef: scale * (exact ? g.int(-2, 2) || 1 : g.int(1, 9) / 7) }));
  for (let t = 0; t < g.int(1, 3); t++) {
    const name = `t${t}`;
    conts.push({ name, lb: 0, ub: 50 });
    const a = pick([1, 2, 0.5, -3]);
    // now and then a ratio or a side that is not integral: no claim may follow from that row
    const exact = g.next() < 0.8;
    const exactSide = g.next() < 0.8;
    const kind = g.next() < 0.5 ? "equality" : "pushed";
    if (kind === "equality") {
      constraints.push({ name: `eq${t}`, terms: [{ var: name, coef: a }, ...combination(a, exact)], lb: a * (g.int(0, 4) + (exactSide ? 0 : 0.5)), ub: null });
      constraints[constraints.length - 1]!.ub = constraints[constraints.length - 1]!.lb;
    } else {
      // t·|a| ≥ Σ … + side, as often as it takes; sometimes a row on the side the cost does not push towards
      for (let r = 0; r < g.int(1, 3); r++) {
        const side = Math.abs(a) * (g.int(-1, 3) + (exactSide ? 0 : 0.25));
        constraints.push({ name: `ge${t}_${r}`, terms: [{ var: name, coef: Math.abs(a) }, ...combination(-Math.abs(a), exact)], lb: side, ub: null });
      }
      if (g.next() < 0.3) constraints.push({ name: `le${t}`, terms: [{ var: name, coef: g.int(1, 9) / 7 }, ...combination(1.3, false)], lb: null, ub: 40 });
    }
    objective.push({ var: name, coef: unit * g.int(1, 3) * (kind === "pushed" ? 1 : pick([1, -1])) });
  }
  if (g.next() < 0.5) constraints.push({ name: "noise", terms: combination(1, false), lb: null, ub: g.int(1, 3) });
  return problem({
    variables: [...ints, ...conts],
    objective: { constant: g.int(-5, 5) * 0.37, terms: objective },
    constraints: constraints.filter((c) => c.terms.length > 0),
  });
}

/** Why the claimed lattice is wrong on the model (an assignment whose best objective is off it), or null. */
function latticeFailure(p: Problem): string | null {
  const { model } = modelFromProblem(p);
  const step = objectiveLatticeStep(model);
  if (!Number.isFinite(step)) return null;
  const ints: number[] = [];
  for (let j = 0; j < model.cols; j++) if (model.integer[j]) ints.push(j);
  const value = new Array<number>(ints.length).fill(0);
  for (;;) {
    const engine = new LpEngine(model);
    ints.forEach((j, k) => engine.setColumnBounds(j, model.colLower[j]! + value[k]!, model.colLower[j]! + value[k]!));
    const r = engine.solve({ deadline: performance.now() + 5000 });
    if (r.status === "optimal") {
      const k = (objectiveValue(model, r.x!) - model.offset) / step;
      if (Math.abs(k - Math.round(k)) > 1e-6 * Math.max(1, Math.abs(k)))
        return `step ${step}: assignment ${value.join(",")} has its best objective at ${k} steps`;
    } else if (r.status !== "infeasible") return `an LP ended ${r.status}`;
    let k = 0;
    while (k < ints.length && value[k] === model.colUpper[ints[k]!]! - model.colLower[ints[k]!]!) value[k++] = 0;
    if (k === ints.length) return null;
    value[k]!++;
  }
}

describe("jaos objective lattice", () => {
  it("reads costs as fractions exactly or not at all", () => {
    expect(asFraction(0.25)).toEqual([1, 4]);
    expect(asFraction(1.25)).toEqual([5, 4]);
    expect(asFraction(1 / 3)).toEqual([1, 3]);
    expect(asFraction(7)).toEqual([7, 1]);
    expect(asFraction(0.1234567)).toBeNull();
    expect(asFraction(Math.PI)).toBeNull();
    // large costs get no looser: 1e8 + 0.5 is not the integer 1e8
    expect(asFraction(1e8 + 0.5)).toEqual([200000001, 2]);
    expect(asFraction(1e8 + 0.0001)).toBeNull();
  });

  it("finds the step of rational costs and of columns that rows or costs make integral", () => {
    const vpmLike = problem({
      variables: [
        { name: "a", ub: 1, type: "integer" },
        { name: "b", ub: 1, type: "integer" },
      ],
      objective: {
        terms: [
          { var: "a", coef: 0.25 },
          { var: "b", coef: 1.25 },
        ],
      },
    });
    expect(objectiveLatticeStep(modelFromProblem(vpmLike).model)).toBe(0.25);
    // wedding_16's shape: a continuous happiness column bounded below by integral expressions, pushed down by its cost
    const pushed = problem({
      variables: [{ name: "y1", ub: 1, type: "integer" }, { name: "y2", ub: 1, type: "integer" }, { name: "h" }],
      objective: { terms: [{ var: "h", coef: 1 }] },
      constraints: [
        {
          name: "r1",
          terms: [
            { var: "h", coef: 1 },
            { var: "y1", coef: -1 },
            { var: "y2", coef: -1 },
          ],
          lb: -1,
        },
        {
          name: "r2",
          terms: [
            { var: "h", coef: 1 },
            { var: "y1", coef: 2 },
          ],
          lb: -3,
        },
      ],
    });
    expect(objectiveLatticeStep(modelFromProblem(pushed).model)).toBe(1);
    // pushed up by its cost instead: only its bound 2.5 stops it, off the lattice
    const wrongWay = {
      ...pushed,
      variables: pushed.variables.map((v) => (v.name === "h" ? { ...v, ub: 2.5 } : v)),
      objective: { constant: 0, terms: [{ var: "h", coef: -1 }] },
    };
    expect(objectiveLatticeStep(modelFromProblem(wrongWay).model)).toBe(Infinity);
    const equality = problem({
      variables: [{ name: "y", ub: 3, type: "integer" }, { name: "t" }],
      objective: { terms: [{ var: "t", coef: 0.5 }] },
      constraints: [
        {
          name: "e",
          terms: [
            { var: "t", coef: 2 },
            { var: "y", coef: -4 },
          ],
          lb: 6,
          ub: 6,
        },
      ],
    });
    expect(objectiveLatticeStep(modelFromProblem(equality).model)).toBe(0.5);
    const halfRatio = {
      ...equality,
      constraints: [
        {
          ...equality.constraints[0]!,
          terms: [
            { var: "t", coef: 2 },
            { var: "y", coef: -3 },
          ],
        },
      ],
    };
    expect(objectiveLatticeStep(modelFromProblem(halfRatio).model)).toBe(Infinity);
  });

  it("never claims a lattice that the best point of some integer assignment is off (random models, enumerated)", () => {
    let claimed = 0;
    let withContinuous = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const p = randomModel(seed);
      const { model } = modelFromProblem(p);
      if (!Number.isFinite(objectiveLatticeStep(model))) continue;
      claimed++;
      if (p.objective.terms.some((t) => t.var.startsWith("t"))) withContinuous++;
      const failure = latticeFailure(p);
      if (failure) {
        const small = shrinkProblem(p, latticeFailure);
        expect.fail(`seed ${seed}: ${latticeFailure(small)}\n${JSON.stringify(small)}`);
      }
    }
    // the test is not vacuous: claims are made, including on costs of continuous columns
    expect(claimed).toBeGreaterThan(100);
    expect(withContinuous).toBeGreaterThan(100);
  });
});
