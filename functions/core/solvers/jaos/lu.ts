/**
 * LU factorisation of the simplex basis B (m × m) with product-form updates.
 *
 * Factorisation: right-looking Gaussian elimination on an active submatrix stored row-wise (values)
 * and column-wise (pattern only). The pivot is chosen by Markowitz's rule — minimum (r−1)(c−1) over
 * entries passing a threshold test |a_pq| ≥ u·max_i |a_iq| (u = 0.1) — searching columns and rows in
 * order of increasing count and stopping after a few candidates (Suhl & Suhl's limited search). Column
 * singletons (slack columns, triangular parts) fall out of the same search at count 1.
 *
 * A column whose remaining entries are all below `PIVOT_ABS_TOL` is numerically dependent: it is
 * reported in `deficientPositions`, paired with an unpivoted row, and factored as that row's unit
 * (slack) column. The caller must then put that row's logical variable in the basis (basis repair).
 *
 * Updates: each basis change appends an eta column (the FTRAN'd entering column), B' = B·E. The caller
 * refactorises after `MAX_UPDATES` updates or on numerical trouble.
 *
 * Conventions: FTRAN solves B x = b with b indexed by row and x by basis position; BTRAN solves
 * Bᵀ y = c with c indexed by basis position and y by row. Both work in place on dense arrays.
 */
import { GrowableF64, GrowableI32 } from "./growable.js";
import { Elimination, type EliminationResult } from "./markowitz.js";

/** Entries of an eta column below this are roundoff and are not stored. */
const DROP_TOL = 1e-14;
/** Refactorise after this many updates (the eta file grows; accuracy and speed drop). */
export const MAX_UPDATES = 100;

export interface FactorStats {
  /** Basis positions whose column was dependent and was replaced by a unit column. */
  deficientPositions: number[];
  /** The rows whose unit columns replaced them (same order). */
  replacementRows: number[];
  nnzL: number;
  nnzU: number;
}

export class LuFactor {
  readonly m: number;
  private readonly pivotRow: Int32Array;
  private readonly pivotCol: Int32Array;
  private readonly pivotValue: Float64Array;
  // L as column etas per step: rows l_i with row_i -= l_i·row_p
  private lStart: Int32Array;
  private lIndex = new GrowableI32();
  private lValue = new GrowableF64();
  // U by step, row-wise (entries: basis positions pivoted later) and column-wise (entries: rows)
  private uStart: Int32Array;
  private uIndex = new Int32Array(0);
  private uValue = new Float64Array(0);
  private ucStart: Int32Array;
  private ucIndex = new Int32Array(0);
  private ucValue = new Float64Array(0);
  // product-form etas
  private etaPos = new GrowableI32();
  private etaPivot = new GrowableF64();
  private etaStart = new GrowableI32();
  private etaIndex = new GrowableI32();
  private etaValue = new GrowableF64();
  private readonly work: Float64Array;

  constructor(m: number) {
    this.m = m;
    this.pivotRow = new Int32Array(m);
    this.pivotCol = new Int32Array(m);
    this.pivotValue = new Float64Array(m);
    this.lStart = new Int32Array(m + 1);
    this.uStart = new Int32Array(m + 1);
    this.ucStart = new Int32Array(m + 1);
    this.work = new Float64Array(m);
    this.etaStart.push(0);
  }

  get updateCount(): number {
    return this.etaPos.length;
  }

  /** Nonzeros held in the eta file (used to refactorise early when updates fill in). */
  get etaNonzeros(): number {
    return this.etaIndex.length;
  }

  /**
   * Factorises the basis given column-wise (column k = basis position k). Returns which positions
   * were dependent and which rows' unit columns took their place.
   */
  factorize(colStart: Int32Array, colIndex: Int32Array, colValue: Float64Array): FactorStats {
    const elim = new Elimination(this.m, colStart, colIndex, colValue);
    const result = elim.run();
    this.pivotRow.set(result.pivotRow);
    this.pivotCol.set(result.pivotCol);
    this.pivotValue.set(result.pivotValue);
    this.lStart = result.lStart;
    this.lIndex = result.lIndex;
    this.lValue = result.lValue;
    this.buildU(result);
    this.etaPos.clear();
    this.etaPivot.clear();
    this.etaStart.clear();
    this.etaStart.push(0);
    this.etaIndex.clear();
    this.etaValue.clear();
    return {
      deficientPositions: result.deficientPositions,
      replacementRows: result.replacementRows,
      nnzL: this.lIndex.length,
      nnzU: this.uIndex.length,
    };
  }

  /** Packs U rows (dropping entries in replaced positions) and builds the column-wise copy. */
  private buildU(r: EliminationResult): void {
    const m = this.m;
    const replaced = new Uint8Array(m);
    for (const k of r.deficientPositions) replaced[k] = 1;
    const stepOfPos = new Int32Array(m);
    for (let t = 0; t < m; t++) stepOfPos[r.pivotCol[t]] = t;
    let nnz = 0;
    for (let t = 0; t < m; t++) {
      for (let k = r.uStart[t]; k < r.uStart[t + 1]; k++) if (!replaced[r.uIndex.data[k]]) nnz++;
    }
    const uIndex = new Int32Array(nnz);
    const uValue = new Float64Array(nnz);
    const colCount = new Int32Array(m + 1);
    let w = 0;
    for (let t = 0; t < m; t++) {
      this.uStart[t] = w;
      for (let k = r.uStart[t]; k < r.uStart[t + 1]; k++) {
        const pos = r.uIndex.data[k];
        if (replaced[pos]) continue;
        uIndex[w] = pos;
        uValue[w] = r.uValue.data[k];
        colCount[stepOfPos[pos] + 1]++;
        w++;
      }
    }
    this.uStart[m] = w;
    this.uIndex = uIndex;
    this.uValue = uValue;
    for (let t = 0; t < m; t++) colCount[t + 1] += colCount[t];
    const fill = colCount.slice(0, m);
    const ucIndex = new Int32Array(nnz);
    const ucValue = new Float64Array(nnz);
    for (let t = 0; t < m; t++) {
      const row = r.pivotRow[t];
      for (let k = this.uStart[t]; k < this.uStart[t + 1]; k++) {
        const at = fill[stepOfPos[uIndex[k]]]++;
        ucIndex[at] = row;
        ucValue[at] = uValue[k];
      }
    }
    this.ucStart = colCount;
    this.ucIndex = ucIndex;
    this.ucValue = ucValue;
  }

  /** Solves B x = b in place: `rhs` holds b by row on entry and x by basis position on exit. */
  ftran(rhs: Float64Array): void {
    const m = this.m;
    const lIndex = this.lIndex.data;
    const lValue = this.lValue.data;
    const lStart = this.lStart;
    for (let t = 0; t < m; t++) {
      const v = rhs[this.pivotRow[t]];
      if (v === 0) continue;
      for (let k = lStart[t]; k < lStart[t + 1]; k++) rhs[lIndex[k]] -= lValue[k] * v;
    }
    const work = this.work;
    const ucStart = this.ucStart;
    const ucIndex = this.ucIndex;
    const ucValue = this.ucValue;
    for (let t = m - 1; t >= 0; t--) {
      const p = this.pivotRow[t];
      let v = rhs[p];
      if (v === 0) continue;
      v /= this.pivotValue[t];
      work[this.pivotCol[t]] = v;
      for (let k = ucStart[t]; k < ucStart[t + 1]; k++) rhs[ucIndex[k]] -= ucValue[k] * v;
    }
    rhs.set(work);
    work.fill(0);
    this.applyEtas(rhs);
  }

  private applyEtas(x: Float64Array): void {
    const count = this.etaPos.length;
    const pos = this.etaPos.data;
    const piv = this.etaPivot.data;
    const start = this.etaStart.data;
    const index = this.etaIndex.data;
    const value = this.etaValue.data;
    for (let e = 0; e < count; e++) {
      const r = pos[e];
      let v = x[r];
      if (v === 0) continue;
      v /= piv[e];
      x[r] = v;
      for (let k = start[e]; k < start[e + 1]; k++) x[index[k]] -= value[k] * v;
    }
  }

  /** Solves Bᵀ y = c in place: `rhs` holds c by basis position on entry and y by row on exit. */
  btran(rhs: Float64Array): void {
    const m = this.m;
    const pos = this.etaPos.data;
    const piv = this.etaPivot.data;
    const start = this.etaStart.data;
    const index = this.etaIndex.data;
    const value = this.etaValue.data;
    for (let e = this.etaPos.length - 1; e >= 0; e--) {
      const r = pos[e];
      let s = rhs[r];
      for (let k = start[e]; k < start[e + 1]; k++) s -= value[k] * rhs[index[k]];
      rhs[r] = s / piv[e];
    }
    const work = this.work;
    const uStart = this.uStart;
    const uIndex = this.uIndex;
    const uValue = this.uValue;
    for (let t = 0; t < m; t++) {
      let v = rhs[this.pivotCol[t]];
      if (v === 0) continue;
      v /= this.pivotValue[t];
      work[this.pivotRow[t]] = v;
      for (let k = uStart[t]; k < uStart[t + 1]; k++) rhs[uIndex[k]] -= uValue[k] * v;
    }
    const lIndex = this.lIndex.data;
    const lValue = this.lValue.data;
    const lStart = this.lStart;
    for (let t = m - 1; t >= 0; t--) {
      const b = lStart[t];
      const e = lStart[t + 1];
      if (b === e) continue;
      let s = work[this.pivotRow[t]];
      for (let k = b; k < e; k++) s -= lValue[k] * work[lIndex[k]];
      work[this.pivotRow[t]] = s;
    }
    rhs.set(work);
    work.fill(0);
  }

  /**
   * Records the basis change at position r: `alpha` = B⁻¹a_q by position (the FTRAN'd entering column,
   * computed before this update). The pivot alpha[r] must be safely nonzero (the caller checks it).
   */
  update(alpha: Float64Array, r: number): void {
    this.etaPos.push(r);
    this.etaPivot.push(alpha[r]);
    const m = this.m;
    for (let i = 0; i < m; i++) {
      const v = alpha[i];
      if (i !== r && (v > DROP_TOL || v < -DROP_TOL)) {
        this.etaIndex.push(i);
        this.etaValue.push(v);
      }
    }
    this.etaStart.push(this.etaIndex.length);
  }
}

