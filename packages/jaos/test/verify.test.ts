import { describe, expect, it } from "vitest";
import { solveJaos } from "../src/index.js";
import { type LpModel, modelFromProblem } from "../src/model.js";
import { AT_LOWER, BASIC, SimplexState } from "../src/simplex-state.js";
import { checkBasis, VERIFY_DUAL_TOL, VERIFY_PRIMAL_TOL, verifiedOptimum } from "../src/verify.js";
import { factoredBasis } from "../src/verify-basis.js";
import { seededGenerator, seededMilp, TEXTBOOK_LP } from "./support.js";

const textbook = modelFromProblem(TEXTBOOK_LP).model;

// statuses: columns x, y, then the logicals of c1, c2, c3 (a logical is −activity, so an active upper
// side puts it at its lower bound)
const OPTIMAL = Int8Array.from([BASIC, BASIC, BASIC, AT_LOWER, AT_LOWER]);
const SLACK = Int8Array.from([AT_LOWER, AT_LOWER, BASIC, BASIC, BASIC]);
const OVERSHOOT = Int8Array.from([BASIC, BASIC, AT_LOWER, AT_LOWER, BASIC]);

const far = () => performance.now() + 10_000;

describe("jaos optimality check on the original model", () => {
  it("accepts the optimal basis and recomputes its point and duals from a fresh factorisation", () => {
    const c = checkBasis(textbook, OPTIMAL)!;
    expect(c.ok).toBe(true);
    expect(c.primal).toBeLessThanOrEqual(VERIFY_PRIMAL_TOL);
    expect(c.dual).toBeLessThanOrEqual(VERIFY_DUAL_TOL);
    expect(Array.from(c.x)).toEqual([2, 6]);
    // minimisation convention c = Aᵀy + d: y(c2) = −1.5, y(c3) = −1, c1 inactive
    expect(c.y[0]).toBeCloseTo(0, 12);
    expect(c.y[1]).toBeCloseTo(-1.5, 12);
    expect(c.y[2]).toBeCloseTo(-1, 12);
  });

  it("rejects a primal feasible basis whose reduced costs have the wrong sign", () => {
    const c = checkBasis(textbook, SLACK)!;
    expect(c.primal).toBe(0);
    // d = c = (−3, −5) at lower bounds: the worst, 5, relative to max(1, |c_y|) = 5
    expect(c.dual).toBeCloseTo(1, 12);
    expect(c.ok).toBe(false);
  });

  it("rejects a dual feasible basis whose point violates a row, relative to the row's terms", () => {
    const c = checkBasis(textbook, OVERSHOOT)!;
    // x = 4, y = 6: 3x + 2y = 24 > 18, relative to max(1, 18, 12 + 12) = 24
    expect(c.primal).toBeCloseTo(6 / 24, 12);
    expect(c.ok).toBe(false);
  });

  it("refuses a basis with the wrong number of basic variables", () => {
    expect(checkBasis(textbook, Int8Array.from([BASIC, BASIC, BASIC, BASIC, AT_LOWER]))).toBeNull();
  });

  it("cleans up a failing basis into a verified optimum", () => {
    for (const start of [SLACK, OVERSHOOT]) {
      const r = verifiedOptimum(textbook, start, far());
      expect(r.check?.ok).toBe(true);
      expect(r.rounds).toBe(1);
      expect(r.iterations).toBeGreaterThan(0);
      expect(Array.from(r.check!.x).map((x) => Math.round(x * 1e9) / 1e9)).toEqual([2, 6]);
    }
  });

  it("does not clean up a basis that passes", () => {
    const r = verifiedOptimum(textbook, OPTIMAL, far());
    expect(r).toMatchObject({ rounds: 0, iterations: 0 });
    expect(r.check?.ok).toBe(true);
  });

  it("takes a check already made of the same basis as its first check, with the same outcome", () => {
    for (const start of [SLACK, OVERSHOOT, OPTIMAL]) {
      const own = verifiedOptimum(textbook, start, far());
      const given = verifiedOptimum(textbook, start, far(), checkBasis(textbook, start));
      expect(given.initial).toEqual(own.initial);
      expect(given).toMatchObject({ rounds: own.rounds, iterations: own.iterations });
      expect(Array.from(given.check!.x)).toEqual(Array.from(own.check!.x));
      expect(Array.from(given.check!.y)).toEqual(Array.from(own.check!.y));
    }
  });

  it("says why when the deadline leaves no time for cleanup", () => {
    const r = verifiedOptimum(textbook, SLACK, performance.now() - 1);
    expect(r.check?.ok).toBe(false);
    expect(r.reason).toMatch(/time limit/);
  });

  it("stands behind solveJaos's optimal, with and without presolve, and its row duals are the verified ones", () => {
    for (const presolve of [true, false]) {
      const r = solveJaos(TEXTBOOK_LP, { timeLimitSeconds: 10, gapTolerance: 1e-6, presolve });
      expect(r.solver_status).toBe("optimal");
      expect(r.objective_value).toBe(36);
      const v = r.stats.verification!;
      expect(v.primal).toBeLessThanOrEqual(VERIFY_PRIMAL_TOL);
      expect(v.dual).toBeLessThanOrEqual(VERIFY_DUAL_TOL);
      // maximise, reported for min −cᵀx: y(c2) = −1.5, y(c3) = −1 (1.5 and 1 in the problem's own sense)
      expect(r.row_duals!.c1).toBeCloseTo(0, 12);
      expect(r.row_duals!.c2).toBeCloseTo(-1.5, 12);
      expect(r.row_duals!.c3).toBeCloseTo(-1, 12);
    }
  });
});

describe("jaos optimality check: the lean factorisation", () => {
  // checkBasis factorises without a SimplexState (verify-basis.ts); this is the state's own path, the
  // reference it must match to the bit
  const viaState = (model: LpModel, given: Int8Array) => {
    const st = new SimplexState(model);
    if (!st.setBasis(given)) return null;
    const replaced = st.refactor();
    st.computePrimal();
    const y = st.computeDual();
    return { status: st.status.slice(), x: st.x.slice(0, model.cols), y, replaced };
  };
  const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]));

  it("the lean check factorises as the simplex state does (statuses, x and y to the bit, singular bases repaired alike)", () => {
    const g = seededGenerator(20261129);
    let compared = 0;
    let singular = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const model = modelFromProblem(seededMilp(seed, { rowKinds: { atMost: 0.4, atLeast: 0.3 } })).model;
      const { rows: m, cols: n } = model;
      // some columns free or half-bounded, so every nonbasic status and the replaced column's side occur
      for (let j = 0; j < n; j++) {
        const r = g.next();
        if (r < 0.1) model.colLower[j] = -Infinity;
        else if (r < 0.2) model.colUpper[j] = Infinity;
        else if (r < 0.25) [model.colLower[j], model.colUpper[j]] = [-Infinity, Infinity];
      }
      for (let trial = 0; trial < 6; trial++) {
        const total = n + m;
        const given = new Int8Array(total);
        for (let j = 0; j < total; j++) given[j] = 1 + g.int(0, 2);
        // m basic variables, structurals favoured (so that dependent sets occur)
        const order = Array.from({ length: total }, (_, j) => j).sort((p, q) => (p < n ? 0 : 0.6) + g.next() - ((q < n ? 0 : 0.6) + g.next()));
        for (let k = 0; k < m; k++) given[order[k]!] = BASIC;
        if (trial === 5) given[order[m]!] = BASIC; // one too many
        const lean = factoredBasis(model, given);
        const ref = viaState(model, given);
        if (ref === null) {
          expect(lean).toBeNull();
          continue;
        }
        expect(lean).not.toBeNull();
        expect(lean!.replaced).toBe(ref.replaced);
        expect(same(lean!.status, ref.status)).toBe(true);
        expect(same(lean!.x, ref.x)).toBe(true);
        expect(same(lean!.y, ref.y)).toBe(true);
        compared++;
        if (ref.replaced > 0) singular++;
      }
    }
    expect(compared).toBeGreaterThan(400);
    expect(singular).toBeGreaterThan(50);
  });
});
