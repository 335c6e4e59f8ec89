/**
 * The hyper-sparse FTRAN and BTRAN of the LU factors (lu.ts): a symbolic search (reach.ts) finds the
 * entries reachable from the right-hand side's nonzeros in L's, the row etas', U's and Lᵀ's graphs, in
 * topological order, and the numeric pass visits only those. LuFactor chooses them per solve on counted
 * density; the arithmetic is the dense solves' on the reached entries, so the results agree with them
 * up to rounding order. Lᵀ is a row-wise copy of L built by the first hyper-sparse solve after a
 * factorisation (`invalidate` marks it stale).
 */
import type { GrowableF64, GrowableI32 } from "./growable.js";
import { Reach } from "./reach.js";
import type { SparseLists } from "./sparse-lists.js";

/** The factors as LuFactor stores them (see lu.ts for their meaning); read here, never written. */
export interface FactorParts {
  readonly m: number;
  /** L: column etas by elimination step t, pivot row lRow[t], entries lStart[t] .. lStart[t + 1). */
  readonly lRow: Int32Array;
  readonly lStart: Int32Array;
  readonly lIndex: GrowableI32;
  readonly lValue: GrowableF64;
  /** Forrest–Tomlin row etas. */
  readonly rRow: GrowableI32;
  readonly rStart: GrowableI32;
  readonly rIndex: GrowableI32;
  readonly rValue: GrowableF64;
  /** U row-wise (row p: basis positions) and column-wise (position: rows), its diagonal by row. */
  readonly uRows: SparseLists;
  readonly uCols: SparseLists;
  readonly diag: Float64Array;
  readonly posOfRow: Int32Array;
  readonly rowOfPos: Int32Array;
  /** A zero m-vector the solves may use and must leave zero. */
  readonly work: Float64Array;
}

/**
 * Where `ftran` saves the spike (L⁻¹ and the row etas applied) and the rows it may be nonzero in. The
 * spike must be zero on entry (the owner clears the previous one); only the reached rows are written.
 */
export interface SpikeStore {
  readonly spike: Float64Array;
  readonly spikeRows: Int32Array;
}

export class HyperSolves {
  // L's step of each row, L's entry count per step, Lᵀ by row (scatter form)
  private readonly tOfRow: Int32Array;
  private readonly lLength: Int32Array;
  private readonly ltStart: Int32Array;
  private readonly ltLength: Int32Array;
  private ltTarget: Int32Array;
  private ltValue: Float64Array;
  /** Whether tOfRow, lLength and Lᵀ describe the current L. */
  private lIndexed = false;
  private readonly reach: Reach;
  private readonly pattern: Int32Array;
  private readonly listed: Uint8Array;
  /** The count of spikeRows written by the last `ftran` that kept the spike. */
  spikeCount = 0;

  constructor(m: number) {
    this.tOfRow = new Int32Array(m);
    this.lLength = new Int32Array(m);
    this.ltStart = new Int32Array(m);
    this.ltLength = new Int32Array(m);
    this.ltTarget = new Int32Array(0);
    this.ltValue = new Float64Array(0);
    this.reach = new Reach(m);
    this.pattern = new Int32Array(m);
    this.listed = new Uint8Array(m);
  }

  /** L changed (a factorisation): its index is rebuilt by the next hyper-sparse solve. */
  invalidate(): void {
    this.lIndexed = false;
  }

  /** Builds L's index for the current factors unless it is up to date. */
  prepare(f: FactorParts): void {
    if (this.lIndexed) return;
    this.indexL(f);
    this.lIndexed = true;
  }

  /** L's step of each row and L transposed (row i: the steps' pivot rows it feeds). */
  private indexL(f: FactorParts): void {
    const m = f.m;
    const { lRow, lStart } = f;
    const { tOfRow, lLength, ltStart, ltLength } = this;
    const lIndex = f.lIndex.data;
    const lValue = f.lValue.data;
    ltLength.fill(0);
    for (let t = 0; t < m; t++) {
      tOfRow[lRow[t]] = t;
      lLength[t] = lStart[t + 1] - lStart[t];
      for (let k = lStart[t]; k < lStart[t + 1]; k++) ltLength[lIndex[k]]++;
    }
    const nnz = lStart[m];
    if (this.ltTarget.length < nnz) {
      this.ltTarget = new Int32Array(nnz);
      this.ltValue = new Float64Array(nnz);
    }
    let at = 0;
    for (let i = 0; i < m; i++) {
      ltStart[i] = at;
      at += ltLength[i];
      ltLength[i] = 0;
    }
    const { ltTarget, ltValue } = this;
    for (let t = 0; t < m; t++) {
      for (let k = lStart[t]; k < lStart[t + 1]; k++) {
        const i = lIndex[k];
        const q = ltStart[i] + ltLength[i]++;
        ltTarget[q] = lRow[t];
        ltValue[q] = lValue[k];
      }
    }
  }

  /**
   * FTRAN over the reached rows only: the rows reachable from b's in L's graph (in topological order),
   * the row etas (which may add their own rows), then the rows reachable from those in U's. With
   * `keep`, the vector after L and the row etas is saved there with its rows, sorted (`spikeCount`).
   */
  ftran(f: FactorParts, rhs: Float64Array, rhsRows: Int32Array, rhsCount: number, keep: SpikeStore | null, nonzeros: Int32Array): number {
    this.prepare(f);
    const m = f.m;
    const reach = this.reach;
    const topo = reach.topo;
    const pattern = this.pattern;
    const lIndex = f.lIndex.data;
    const lValue = f.lValue.data;
    const lStart = f.lStart;
    const tOfRow = this.tOfRow;
    let top = reach.search(rhsRows, rhsCount, tOfRow, lStart, this.lLength, lIndex);
    let count = 0;
    for (let c = top; c < m; c++) {
      const i = topo[c];
      pattern[count++] = i;
      const v = rhs[i];
      if (v === 0) continue;
      const t = tOfRow[i];
      for (let k = lStart[t]; k < lStart[t + 1]; k++) rhs[lIndex[k]] -= lValue[k] * v;
    }
    if (f.rRow.length > 0) count = this.applyRowEtasListed(f, rhs, pattern, count);
    if (keep !== null) {
      // rhs is zero outside the reached rows: copying those is the whole vector's copy in O(count)
      const spike = keep.spike;
      for (let c = 0; c < count; c++) spike[pattern[c]] = rhs[pattern[c]];
      keep.spikeRows.set(pattern.subarray(0, count));
      keep.spikeRows.subarray(0, count).sort();
      this.spikeCount = count;
    }
    const work = f.work;
    const { start, length, key, value } = f.uCols;
    const { diag, posOfRow } = f;
    top = reach.search(pattern, count, posOfRow, start, length, key);
    let out = 0;
    for (let c = top; c < m; c++) {
      const p = topo[c];
      let v = rhs[p];
      if (v === 0) continue;
      rhs[p] = 0;
      v /= diag[p];
      const pos = posOfRow[p];
      work[pos] = v;
      nonzeros[out++] = pos;
      const b = start[pos];
      const e = b + length[pos];
      for (let k = b; k < e; k++) rhs[key[k]] -= value[k] * v;
    }
    // the reached rows were zeroed above; the rows outside the search were zero throughout
    for (let c = 0; c < out; c++) {
      const pos = nonzeros[c];
      rhs[pos] = work[pos];
      work[pos] = 0;
    }
    return out;
  }

  /**
   * BTRAN over the reached entries only: U's rows reachable from c's positions, the transposed row
   * etas, then Lᵀ in scatter form from the rows reached so far. The result's rows are sorted, as the
   * dense pass lists them.
   */
  btran(f: FactorParts, rhs: Float64Array, rhsPositions: Int32Array, rhsCount: number, nonzeros: Int32Array): number {
    this.prepare(f);
    const m = f.m;
    const reach = this.reach;
    const topo = reach.topo;
    const pattern = this.pattern;
    const work = f.work;
    const { start, length, key, value } = f.uRows;
    const { diag, rowOfPos } = f;
    let top = reach.search(rhsPositions, rhsCount, rowOfPos, start, length, key);
    let count = 0;
    for (let c = top; c < m; c++) {
      const pos = topo[c];
      let v = rhs[pos];
      if (v === 0) continue;
      rhs[pos] = 0;
      const p = rowOfPos[pos];
      v /= diag[p];
      work[p] = v;
      pattern[count++] = p;
      const b = start[p];
      const e = b + length[p];
      for (let k = b; k < e; k++) rhs[key[k]] -= value[k] * v;
    }
    if (f.rRow.length > 0) count = this.applyRowEtasTransposedListed(f, work, pattern, count);
    const { ltStart, ltLength, ltTarget, ltValue } = this;
    top = reach.search(pattern, count, null, ltStart, ltLength, ltTarget);
    let out = 0;
    for (let c = top; c < m; c++) {
      const i = topo[c];
      const v = work[i];
      if (v === 0) continue;
      const b = ltStart[i];
      const e = b + ltLength[i];
      for (let k = b; k < e; k++) work[ltTarget[k]] -= ltValue[k] * v;
    }
    for (let c = top; c < m; c++) {
      const i = topo[c];
      const v = work[i];
      if (v === 0) continue;
      rhs[i] = v;
      work[i] = 0;
      nonzeros[out++] = i;
    }
    nonzeros.subarray(0, out).sort();
    return out;
  }

  /** The row etas in order, keeping the list of rows that may be nonzero (an eta's row joins it); returns its length. */
  private applyRowEtasListed(f: FactorParts, rhs: Float64Array, list: Int32Array, count: number): number {
    const listed = this.listed;
    for (let c = 0; c < count; c++) listed[list[c]] = 1;
    const etas = f.rRow.length;
    const rRow = f.rRow.data;
    const rStart = f.rStart.data;
    const rIndex = f.rIndex.data;
    const rValue = f.rValue.data;
    for (let e = 0; e < etas; e++) {
      const p = rRow[e];
      let s = rhs[p];
      for (let k = rStart[e]; k < rStart[e + 1]; k++) s -= rValue[k] * rhs[rIndex[k]];
      rhs[p] = s;
      if (s !== 0 && listed[p] === 0) {
        listed[p] = 1;
        list[count++] = p;
      }
    }
    for (let c = 0; c < count; c++) listed[list[c]] = 0;
    return count;
  }

  /** The transposed row etas in reverse order, keeping the list of rows that may be nonzero; returns its length. */
  private applyRowEtasTransposedListed(f: FactorParts, w: Float64Array, list: Int32Array, count: number): number {
    const listed = this.listed;
    for (let c = 0; c < count; c++) listed[list[c]] = 1;
    const rRow = f.rRow.data;
    const rStart = f.rStart.data;
    const rIndex = f.rIndex.data;
    const rValue = f.rValue.data;
    for (let e = f.rRow.length - 1; e >= 0; e--) {
      const v = w[rRow[e]];
      if (v === 0) continue;
      for (let k = rStart[e]; k < rStart[e + 1]; k++) {
        const i = rIndex[k];
        w[i] -= rValue[k] * v;
        if (listed[i] === 0) {
          listed[i] = 1;
          list[count++] = i;
        }
      }
    }
    for (let c = 0; c < count; c++) listed[list[c]] = 0;
    return count;
  }
}
