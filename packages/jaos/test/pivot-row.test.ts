import { describe, expect, it } from "vitest";
import type { LpModel } from "../src/model.js";
import { Rng } from "../src/rng.js";
import { AT_LOWER, AT_UPPER, AT_ZERO, BASIC } from "../src/basis-status.js";
import { PivotRow, type PricingSource } from "../src/pivot-row.js";
import { SimplexState } from "../src/simplex-state.js";
import { type CscMatrix, cscFromTriplets } from "../src/sparse.js";
import { PartitionedRows } from "../src/sparse-partitioned.js";

/** A random rows × cols matrix: each entry present with probability `density`, its value drawn by `value` (column by column, rows increasing). */
function randomMatrix(rng: Rng, rows: number, cols: number, density: number, value: () => number): CscMatrix {
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  for (let j = 0; j < cols; j++)
    for (let i = 0; i < rows; i++)
      if (rng.next() < density) {
        ri.push(i);
        ci.push(j);
        vv.push(value());
      }
  return cscFromTriplets(rows, cols, ri, ci, vv);
}

function randomSparseLp(rng: Rng, rows: number, cols: number): LpModel {
  return {
    rows,
    cols,
    a: randomMatrix(rng, rows, cols, 0.15, () => Math.round((rng.next() * 8 - 4) * 100) / 100 || 1),
    cost: new Float64Array(cols).fill(1),
    colLower: new Float64Array(cols),
    colUpper: new Float64Array(cols).fill(10),
    rowLower: new Float64Array(rows).fill(-Infinity),
    rowUpper: new Float64Array(rows).fill(100),
    offset: 0,
    integer: new Uint8Array(cols),
  };
}

/** ρᵀ[A I] computed densely, column by column over all columns. */
function densePivotRow(st: SimplexState, rho: Float64Array): Float64Array {
  const out = new Float64Array(st.total);
  const a = st.a;
  for (let j = 0; j < st.n; j++) for (let p = a.start[j]; p < a.start[j + 1]; p++) out[j] += a.value[p] * rho[a.index[p]];
  for (let i = 0; i < st.m; i++) out[st.n + i] = rho[i];
  return out;
}

function expectPivotRowMatchesDense(st: SimplexState, rho: Float64Array): void {
  const expected = densePivotRow(st, rho);
  const pr = st.pivotRow;
  const row = pr.compute(rho, -1, undefined, 0);
  expect(st.alphaRow).toBe(row);
  expect(st.rowNzCount).toBe(pr.count);
  const listed = new Set(Array.from(pr.list.subarray(0, pr.count)));
  for (let j = 0; j < st.total; j++) {
    if (st.status[j] === BASIC) continue;
    expect(row[j]).toBeCloseTo(expected[j], 12);
    if (expected[j] !== 0) expect(listed.has(j)).toBe(true);
  }
  for (let j = 0; j < st.total; j++) if (!listed.has(j)) expect(row[j]).toBe(0);
}

/**
 * The fused candidate list equals the ratio-test rule applied to the dense row: for a sparse ρ in the
 * row-wise pass's first-touch order (whichever pass ran), for a dense ρ in the row list's order.
 */
function expectCandidatesMatchDense(st: SimplexState, rho: Float64Array, s: number): void {
  const rows = Int32Array.from(Array.from(rho).flatMap((v, i) => (v !== 0 ? [i] : [])));
  const expected = densePivotRow(st, rho);
  const pr = st.pivotRow;
  pr.compute(rho, rows.length, rows, s);
  let order: number[] = Array.from(pr.list.subarray(0, pr.count));
  if (rows.length < 0.4 * st.m) {
    const { start, index, nonbasicEnd } = st.rowWise;
    const seen = new Set<number>();
    order = [];
    for (const i of rows) {
      for (let p = start[i]; p < nonbasicEnd[i]; p++) if (!seen.has(index[p])) seen.add(index[p]), order.push(index[p]);
      order.push(st.n + i);
    }
  }
  const want: number[] = [];
  for (const j of order) {
    const sj = st.status[j];
    const a = s * expected[j];
    if (sj === BASIC || st.lower[j] === st.upper[j]) continue;
    if (sj === AT_LOWER ? a > st.tol.pivot : sj === AT_UPPER ? a < -st.tol.pivot : Math.abs(a) > st.tol.pivot) want.push(j);
  }
  expect(Array.from(pr.candidates.subarray(0, pr.candidateCount))).toEqual(want);
  expect(st.candidateCount).toBe(pr.candidateCount);
}

/** Every row of the partitioned copy holds exactly A's row, nonbasic columns before the split. */
function expectPartitionRight(st: SimplexState): void {
  const rw = st.rowWise;
  for (let i = 0; i < st.m; i++) {
    for (let q = rw.start[i]; q < rw.start[i + 1]; q++) {
      const j = rw.index[q];
      expect(q < rw.nonbasicEnd[i]).toBe(st.status[j] !== BASIC);
      let v = Number.NaN;
      for (let p = st.a.start[j]; p < st.a.start[j + 1]; p++) if (st.a.index[p] === i) v = st.a.value[p];
      expect(rw.value[q]).toBe(v);
    }
    expect(rw.start[i + 1] - rw.start[i]).toBe(Array.from(st.a.index).filter((r) => r === i).length);
  }
}

function randomRho(rng: Rng, m: number, nonzeros: number): Float64Array {
  const rho = new Float64Array(m);
  for (let k = 0; k < nonzeros; k++) rho[rng.int(m)] = rng.next() * 2 - 1;
  return rho;
}

describe("PivotRow (PRICE)", () => {
  it("equals ρᵀ[A I] computed densely, row-wise and column-wise, with the same ratio-test candidates, through a sequence of basis changes", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rng = new Rng(seed);
      const m = 25;
      const n = 40;
      const st = new SimplexState(randomSparseLp(rng, m, n));
      st.setSlackBasis();
      st.refactor();
      const alphaCol = new Float64Array(m);
      let changes = 0;
      for (let step = 0; step < 60; step++) {
        // a random nonbasic column enters wherever its FTRAN'd column has a safe pivot
        const q = rng.int(st.total);
        if (st.status[q] === BASIC) continue;
        st.ftranColumn(q, alphaCol);
        let r = -1;
        for (let k = 0; k < m; k++) if (Math.abs(alphaCol[k]) > 0.1 && (r < 0 || rng.next() < 0.5)) r = k;
        if (r < 0) continue;
        st.replaceBasic(r, q, AT_LOWER, alphaCol);
        changes++;
        if (step === 30) {
          // a basis installed from statuses (not through replaceBasic) must re-partition
          const status = Int8Array.from(st.status);
          st.setSlackBasis();
          st.refactor();
          st.computePivotRow(randomRho(rng, m, 2));
          expect(st.setBasis(status)).toBe(true);
          st.refactor();
        }
        expectPivotRowMatchesDense(st, randomRho(rng, m, 1 + rng.int(4)));
        expectPivotRowMatchesDense(st, randomRho(rng, m, 20));
        expectPartitionRight(st);
        expectCandidatesMatchDense(st, randomRho(rng, m, 2), step % 2 === 0 ? 1 : -1);
        expectCandidatesMatchDense(st, randomRho(rng, m, 20), step % 2 === 0 ? -1 : 1);
      }
      expect(changes).toBeGreaterThan(15);
    }
  });

  it("lists the row-wise pivot row in first-touch order, each column once, also where sums cancel to exactly 0", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rng = new Rng(100 + seed);
      const m = 12;
      const n = 30;
      // ±1 entries and integer ρ: many columns cancel to exactly 0 part-way and are touched again
      const a = randomMatrix(rng, m, n, 0.35, () => (rng.next() < 0.5 ? 1 : -1));
      const model = randomSparseLp(rng, m, n);
      const st = new SimplexState({ ...model, a });
      st.setSlackBasis();
      st.refactor();
      for (let trial = 0; trial < 20; trial++) {
        const rows = Array.from({ length: m }, (_, i) => i)
          .sort(() => rng.next() - 0.5)
          .slice(0, 1 + rng.int(4));
        const rho = new Float64Array(m);
        for (const i of rows) rho[i] = rng.next() < 0.5 ? 1 : -1;
        st.pivotRow.compute(rho, rows.length, Int32Array.from(rows), 0);
        // the reference: walk ρ's rows in the order given, each row's nonbasic entries in stored order
        const order: number[] = [];
        const seen = new Set<number>();
        const rw = st.rowWise;
        for (const i of rows) {
          for (let q = rw.start[i]; q < rw.nonbasicEnd[i]; q++) {
            const j = rw.index[q];
            if (!seen.has(j)) {
              seen.add(j);
              order.push(j);
            }
          }
          order.push(n + i);
        }
        expect(Array.from(st.pivotRow.list.subarray(0, st.pivotRow.count))).toEqual(order);
        const expected = densePivotRow(st, rho);
        for (const j of order) expect(st.pivotRow.row[j]).toBe(expected[j]);
      }
    }
  });

  it("lists a dense ρ's row in column order with the column-wise dot products' values bit for bit, columns stored in row order or not", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rng = new Rng(200 + seed);
      const m = 20;
      const n = 35;
      const model = randomSparseLp(rng, m, n);
      // the same matrix with each column's entries reversed (not in row order): the column-wise pass then
      const { start, index, value } = model.a;
      const ri: number[] = [];
      const ci: number[] = [];
      const vv: number[] = [];
      for (let j = 0; j < n; j++)
        for (let p = start[j + 1] - 1; p >= start[j]; p--) {
          ri.push(index[p]);
          ci.push(j);
          vv.push(value[p]);
        }
      for (const a of [model.a, cscFromTriplets(m, n, ri, ci, vv)]) {
        const st = new SimplexState({ ...model, a });
        st.setSlackBasis();
        st.refactor();
        const alphaCol = new Float64Array(m);
        for (let step = 0; step < 25; step++) {
          const q = rng.int(st.total);
          if (st.status[q] !== BASIC) {
            st.ftranColumn(q, alphaCol);
            let r = -1;
            for (let k = 0; k < m; k++) if (Math.abs(alphaCol[k]) > 0.1) r = k;
            if (r >= 0) st.replaceBasic(r, q, rng.next() < 0.5 ? AT_LOWER : AT_UPPER, alphaCol);
          }
          const rho = randomRho(rng, m, 30);
          const rows = Int32Array.from(Array.from(rho).flatMap((v, i) => (v !== 0 ? [i] : [])));
          if (rows.length < 0.4 * m) continue;
          const expected = densePivotRow(st, rho);
          const s = step % 2 === 0 ? 1 : -1;
          st.pivotRow.compute(rho, rows.length, rows, s);
          const order: number[] = [];
          for (let j = 0; j < n; j++) if (st.status[j] !== BASIC && expected[j] !== 0) order.push(j);
          for (const i of rows) order.push(n + i);
          expect(Array.from(st.pivotRow.list.subarray(0, st.pivotRow.count))).toEqual(order);
          for (const j of order) expect(st.pivotRow.row[j]).toBe(expected[j]);
          expectCandidatesMatchDense(st, rho, s);
        }
      }
    }
  });

  it("works on any pricing source: re-partitions a stale row-wise copy once, reads the bounds and tolerance it is given", () => {
    const rng = new Rng(300);
    const m = 15;
    const n = 30;
    const model = randomSparseLp(rng, m, n);
    const total = m + n;
    const status = new Int8Array(total);
    for (let j = 0; j < n; j++) status[j] = rng.next() < 0.5 ? AT_LOWER : AT_UPPER;
    for (let i = 0; i < m; i++) status[n + i] = BASIC;
    // a few structurals basic in place of logicals (the partition must move them behind the split)
    for (let k = 0; k < 5; k++) {
      status[3 * k] = BASIC;
      status[n + k] = AT_LOWER;
    }
    const lower = new Float64Array(total);
    const upper = new Float64Array(total).fill(10);
    upper[7] = 0; // fixed: never a candidate
    const source: PricingSource = {
      m,
      n,
      total,
      a: model.a,
      rowWise: new PartitionedRows(model.a),
      status,
      lower,
      upper,
      tol: { pivot: 1e-9 },
      partitionValid: false,
    };
    const pr = new PivotRow(source);
    for (let trial = 0; trial < 10; trial++) {
      const rho = randomRho(rng, m, trial < 5 ? 2 : 12);
      const s = trial % 2 === 0 ? 1 : -1;
      pr.compute(rho, -1, undefined, s);
      expect(source.partitionValid).toBe(true);
      const expected = new Float64Array(total);
      for (let j = 0; j < n; j++) for (let p = model.a.start[j]; p < model.a.start[j + 1]; p++) expected[j] += model.a.value[p] * rho[model.a.index[p]];
      for (let i = 0; i < m; i++) expected[n + i] = rho[i];
      const listed = Array.from(pr.list.subarray(0, pr.count));
      expect(new Set(listed).size).toBe(listed.length);
      for (let j = 0; j < total; j++) {
        if (status[j] === BASIC) continue;
        expect(pr.row[j]).toBeCloseTo(expected[j], 12);
        if (expected[j] !== 0) expect(listed).toContain(j);
      }
      // a sparse ρ lists its candidates in the row-wise pass's first-touch order (each ρ row's nonbasic
      // columns, then its logical) whichever pass computed the row; a dense ρ in the list's order
      const rhoRows = Array.from({ length: m }, (_, i) => i).filter((i) => rho[i] !== 0);
      let order = listed;
      if (rhoRows.length < 0.4 * m) {
        const { start, index, nonbasicEnd } = source.rowWise;
        const seen = new Set<number>();
        order = [];
        for (const i of rhoRows) {
          for (let p = start[i]!; p < nonbasicEnd[i]!; p++) if (!seen.has(index[p]!)) seen.add(index[p]!), order.push(index[p]!);
          order.push(n + i);
        }
      }
      const want = order.filter((j) => {
        const a = s * pr.row[j];
        if (status[j] === BASIC || lower[j] === upper[j]) return false;
        return status[j] === AT_LOWER ? a > 1e-9 : a < -1e-9;
      });
      expect(Array.from(pr.candidates.subarray(0, pr.candidateCount))).toEqual(want);
    }
  });

  it("admits candidates by status in every pass: at lower α·s > tol, at upper < −tol, free |α| > tol, fixed never", () => {
    const rng = new Rng(400);
    const m = 20;
    const n = 30;
    const total = m + n;
    // a dense A: a sparse ρ's rows then hold more than n nonbasic entries (the dense-result pass)
    const a = randomMatrix(rng, m, n, 0.6, () => rng.next() * 4 - 2);
    const status = new Int8Array(total);
    const lower = new Float64Array(total);
    const upper = new Float64Array(total).fill(10);
    const statuses = [AT_LOWER, AT_UPPER, AT_ZERO, BASIC];
    for (let j = 0; j < total; j++) status[j] = statuses[rng.int(4)]!;
    for (let j = 0; j < total; j++) {
      if (status[j] === AT_ZERO) {
        lower[j] = -Infinity;
        upper[j] = Infinity;
      } else if (rng.next() < 0.15) upper[j] = 0;
    }
    const tol = 1e-9;
    const source: PricingSource = { m, n, total, a, rowWise: new PartitionedRows(a), status, lower, upper, tol: { pivot: tol }, partitionValid: false };
    const pr = new PivotRow(source);
    const passes = new Set<string>();
    // candidates seen per status, and fixed columns whose α had an admissible sign (refused)
    const seen = { [AT_LOWER]: 0, [AT_UPPER]: 0, [AT_ZERO]: 0, fixed: 0 };
    for (let trial = 0; trial < 40; trial++) {
      const rho = randomRho(rng, m, 1 + rng.int(trial % 2 === 0 ? 4 : 30));
      const s = rng.next() < 0.5 ? 1 : -1;
      const rhoRows = Array.from({ length: m }, (_, i) => i).filter((i) => rho[i] !== 0);
      pr.compute(rho, rhoRows.length, Int32Array.from(rhoRows), s);
      const { start, index, nonbasicEnd } = source.rowWise;
      let touches = 0;
      for (const i of rhoRows) touches += nonbasicEnd[i]! - start[i]!;
      passes.add(rhoRows.length >= 0.4 * m ? "dense" : touches > n ? "dense result" : "row-wise");
      let order = Array.from(pr.list.subarray(0, pr.count));
      if (rhoRows.length < 0.4 * m) {
        const seen = new Set<number>();
        order = [];
        for (const i of rhoRows) {
          for (let p = start[i]!; p < nonbasicEnd[i]!; p++) if (!seen.has(index[p]!)) seen.add(index[p]!), order.push(index[p]!);
          order.push(n + i);
        }
      }
      const want = order.filter((j) => {
        const v = s * pr.row[j]!;
        if (status[j] === BASIC) return false;
        const signOk = status[j] === AT_LOWER ? v > tol : status[j] === AT_UPPER ? v < -tol : Math.abs(v) > tol;
        if (!signOk) return false;
        if (lower[j] === upper[j]) {
          seen.fixed++;
          return false;
        }
        seen[status[j] as 1 | 2 | 3]++;
        return true;
      });
      expect(Array.from(pr.candidates.subarray(0, pr.candidateCount))).toEqual(want);
    }
    expect([...passes].sort()).toEqual(["dense", "dense result", "row-wise"]);
    for (const k of [AT_LOWER, AT_UPPER, AT_ZERO, "fixed"] as const) expect(seen[k]).toBeGreaterThan(0);
  });
});
