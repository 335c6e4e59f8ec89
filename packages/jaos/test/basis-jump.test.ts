import { describe, expect, it } from "vitest";
import type { LpModel } from "../src/model.js";
import { Rng } from "../src/rng.js";
import { AT_LOWER, BASIC, SimplexState } from "../src/simplex-state.js";
import { cscFromTriplets } from "../src/sparse.js";

/** A random sparse LP; `twins` columns are copies of column 0 (a basis holding two of them is singular). */
function randomLp(rng: Rng, rows: number, cols: number, twins = 0): LpModel {
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < rows; i++) {
      if (rng.next() < 0.2 || i === j % rows) {
        ri.push(i);
        ci.push(j);
        vv.push(Math.round((rng.next() * 8 - 4) * 100) / 100 || 1);
      }
    }
  }
  const first = ci.map((c, t) => (c === 0 ? t : -1)).filter((t) => t >= 0);
  for (let c = 0; c < twins; c++) {
    for (const t of first) {
      ri.push(ri[t]!);
      ci.push(cols + c);
      vv.push(vv[t]!);
    }
  }
  const n = cols + twins;
  return {
    rows,
    cols: n,
    a: cscFromTriplets(rows, n, ri, ci, vv),
    cost: new Float64Array(n).fill(1),
    colLower: new Float64Array(n),
    colUpper: new Float64Array(n).fill(10),
    rowLower: new Float64Array(rows).fill(-Infinity),
    rowUpper: new Float64Array(rows).fill(100),
    offset: 0,
    integer: new Uint8Array(n),
  };
}

/** Largest |B·x − b| where x = B⁻¹b by the state's factors (B's columns by basis position). */
function factorResidual(st: SimplexState, rng: Rng): number {
  const b = Float64Array.from({ length: st.m }, () => rng.next() * 2 - 1);
  const x = b.slice();
  st.lu.ftran(x);
  const back = new Float64Array(st.m);
  for (let p = 0; p < st.m; p++) {
    const j = st.basicIndex[p]!;
    if (j < st.n) for (let q = st.a.start[j]!; q < st.a.start[j + 1]!; q++) back[st.a.index[q]!]! += st.a.value[q]! * x[p]!;
    else back[j - st.n]! += x[p]!;
  }
  let worst = 0;
  for (let i = 0; i < st.m; i++) worst = Math.max(worst, Math.abs(back[i]! - b[i]!));
  return worst;
}

/** Random simplex-like pivots: nonbasic columns enter where their FTRAN'd column has a safe pivot. */
function pivot(st: SimplexState, rng: Rng, count: number): void {
  const alpha = new Float64Array(st.m);
  for (let done = 0, tries = 0; done < count && tries < 50 * count; tries++) {
    const q = rng.int(st.total);
    if (st.status[q] === BASIC) continue;
    st.ftranColumn(q, alpha);
    let r = -1;
    for (let k = 0; k < st.m; k++) if (Math.abs(alpha[k]!) > 0.1 && (r < 0 || rng.next() < 0.5)) r = k;
    if (r < 0) continue;
    st.replaceBasic(r, q, AT_LOWER, alpha);
    done++;
  }
}

function basicSet(status: Int8Array): number[] {
  return Array.from(status).flatMap((s, j) => (s === BASIC ? [j] : []));
}

describe("SimplexState.setBasis (jumps between stored bases)", () => {
  it("brings the factors to a basis a few columns away by column replacements: the basic set, statuses and B⁻¹ are the target's", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rng = new Rng(seed);
      const st = new SimplexState(randomLp(rng, 30, 50));
      st.setSlackBasis();
      st.refactor();
      pivot(st, rng, 10);
      let updated = 0;
      for (let jump = 0; jump < 12; jump++) {
        const target = st.status.slice();
        const weightByColumn = new Map<number, number>();
        pivot(st, rng, 1 + rng.int(4));
        for (let p = 0; p < st.m; p++) weightByColumn.set(st.basicIndex[p]!, st.dseWeight[p]!);
        expect(st.setBasis(target)).toBe(true);
        if (st.factorValid) updated++;
        else st.refactor();
        expect(basicSet(st.status)).toEqual(basicSet(target));
        for (let j = 0; j < st.total; j++) if (target[j] !== BASIC) expect(st.status[j]).toBe(target[j]);
        expect(factorResidual(st, rng)).toBeLessThan(1e-9);
        for (let p = 0; p < st.m; p++) {
          const kept = weightByColumn.get(st.basicIndex[p]!);
          expect(st.dseWeight[p]).toBe(kept ?? 1);
        }
      }
      // the jumps are 1-4 columns on m = 30: the update path takes (nearly) all of them
      expect(updated).toBeGreaterThan(6);
    }
  });

  it("falls back to a refactorisation when the target basis is singular", () => {
    for (let seed = 1; seed <= 4; seed++) {
      const rng = new Rng(100 + seed);
      const model = randomLp(rng, 20, 30, 1);
      const st = new SimplexState(model);
      st.setSlackBasis();
      st.refactor();
      // column 0 and its twin (column 30) both basic, in place of two logicals
      const target = st.status.slice();
      const slacks = [0, 1].map((k) => st.n + ((k + 3 * seed) % st.m));
      for (const j of slacks) target[j] = AT_LOWER;
      target[0] = BASIC;
      target[model.cols - 1] = BASIC;
      expect(st.setBasis(target)).toBe(true);
      expect(st.factorValid).toBe(false);
      expect(st.refactor()).toBeGreaterThan(0);
      expect(factorResidual(st, rng)).toBeLessThan(1e-9);
    }
  });
});
