/**
 * LU factorisation of the simplex basis B (m × m) with Forrest–Tomlin updates.
 *
 * Factorisation (markowitz.ts): L·B = U up to row and column permutations, L a sequence of column etas,
 * U kept here both row-wise (row p: entries at the basis positions pivoted after p) and column-wise
 * (position k: entries in the rows pivoted before it), with the pivot rows in `order`. A column found
 * dependent is reported in `deficientPositions` and factored as the unit column of an unpivoted row;
 * the caller then puts that row's logical variable in the basis (basis repair).
 *
 * Forrest–Tomlin update for a basis change at position r (pivot row p): the old column r leaves U; the
 * entering column's "spike" L⁻¹a_q (saved by the FTRAN that computed it) takes its place; row p moves
 * to the end of the pivot order, and its entries to the right of the diagonal are eliminated with the
 * rows below it. The multipliers form a row eta R (stored; applied after L in FTRAN, before Lᵀ in
 * BTRAN); the new diagonal must equal α_r times the old one, which is checked. Unlike product-form
 * etas (dense columns of B⁻¹), row etas and spikes stay about as sparse as L and U. The caller
 * refactorises after `MAX_UPDATES` updates, when U has grown a lot, or on numerical trouble.
 *
 * Conventions: FTRAN solves B x = b with b indexed by row and x by basis position; BTRAN solves
 * Bᵀ y = c with c indexed by basis position and y by row. Both work in place on dense arrays and
 * report where the result's nonzeros are.
 */
import { GrowableF64, GrowableI32 } from "./growable.js";
import { Elimination, type EliminationOptions, type EliminationResult } from "./markowitz.js";
import { IndexHeap } from "./index-heap.js";
import { type FactorParts, HyperSolves, type SpikeStore } from "./lu-hyper.js";
import { SparseLists } from "./sparse-lists.js";

/** Spike entries below this are roundoff and are not stored. */
const DROP_TOL = 1e-14;
/** Refactorise after this many updates. */
export const MAX_UPDATES = 100;
/** An update whose new diagonal disagrees with α_r·(old diagonal) beyond this is refused. */
const UPDATE_CHECK = 1e-6;
/**
 * A solve given its right-hand side's nonzero list runs hyper-sparse (symbolic search, then only the
 * reached entries) when that list and the recent results of its kind are at most this share of m, as
 * HiGHS switches on predicted density. Counts, not timings, decide: the choice is deterministic.
 */
export const HYPER_DENSITY = 0.1;
/**
 * The update's elimination takes the rows it touches from a heap unless the pivot row's entry count
 * times this exceeds the rows after it (then it fills most of them and a scan in order is cheaper).
 */
const HEAP_FACTOR = 16;
/** Weight of the newest result in the running result density of each solve kind. */
const DENSITY_WEIGHT = 0.05;

/** How solves given a nonzero list choose: by predicted density, or forced (tests). */
export type HyperMode = "auto" | "always" | "never";

export interface FactorStats {
  /** Basis positions whose column was dependent and was replaced by a unit column. */
  deficientPositions: number[];
  /** The rows whose unit columns replaced them (same order). */
  replacementRows: number[];
  nnzL: number;
  nnzU: number;
}

/**
 * The factor storage is public-readonly to the hyper-sparse solves (lu-hyper.ts, `FactorParts`), which
 * read it in place; no other caller reads or writes it.
 */
export class LuFactor implements FactorParts {
  readonly m: number;
  // L: column etas by elimination step t, pivot row lRow[t]: row_i -= l_i·row_p
  lRow: Int32Array;
  lStart: Int32Array;
  lIndex = new GrowableI32();
  lValue = new GrowableF64();
  /**
   * L's non-empty etas packed, in step order: eta c has pivot row lPackRow[c] and entries lPackStart[c]
   * .. lPackStart[c + 1) of lIndex/lValue. The dense solves loop over these instead of all m steps:
   * most steps of an LP basis (slacks, column singletons) have no L entries, and skipping them changes
   * no arithmetic.
   */
  private readonly lPackRow: Int32Array;
  private readonly lPackStart: Int32Array;
  private lPackCount = 0;
  // U with its pivot structure
  /**
   * The pivot rows in order, order[0 .. orderEnd); an update appends its row at orderEnd and leaves −1
   * where the row was, so that it costs nothing per row passed (compacted when the room runs out).
   */
  private readonly order: Int32Array;
  private orderEnd: number;
  private readonly orderIndex: Int32Array;
  readonly posOfRow: Int32Array;
  readonly rowOfPos: Int32Array;
  readonly diag: Float64Array;
  readonly uRows: SparseLists;
  readonly uCols: SparseLists;
  private nnzUFactored = 0;
  // Forrest–Tomlin row etas: row rRow[e] -= Σ μ·(other rows)
  readonly rRow = new GrowableI32();
  readonly rStart = new GrowableI32();
  readonly rIndex = new GrowableI32();
  readonly rValue = new GrowableF64();
  private readonly spike: Float64Array;
  private spikeValid = false;
  /** Rows that may hold the spike's nonzeros, increasing (spikeRows[0 .. spikeCount)), or −1: any row. */
  private readonly spikeRows: Int32Array;
  private spikeCount = -1;
  private readonly rowHeap: IndexHeap;
  readonly work: Float64Array;
  private readonly work2: Float64Array;
  /** Default destination of the solves' nonzero lists. */
  private readonly nonzeros: Int32Array;
  private readonly pairWork: Float64Array;
  /** Count of the second vector's nonzeros after the last `ftranPair`. */
  otherCount = 0;
  private readonly hyper: HyperSolves;
  private elimination: Elimination | null = null;
  private readonly spikeStore: SpikeStore;
  // loadU's workspaces
  private readonly replaced: Uint8Array;
  private readonly rowCount: Int32Array;
  private readonly colCount: Int32Array;
  /** Running shares of m of the FTRAN and BTRAN results of solves given a nonzero list. */
  private ftranDensity = 0;
  private btranDensity = 0;
  hyperMode: HyperMode = "auto";

  constructor(m: number) {
    this.m = m;
    this.lRow = new Int32Array(m);
    this.lStart = new Int32Array(m + 1);
    this.lPackRow = new Int32Array(m);
    this.lPackStart = new Int32Array(m + 1);
    this.order = new Int32Array(m + MAX_UPDATES);
    this.orderEnd = m;
    this.orderIndex = new Int32Array(m);
    this.posOfRow = new Int32Array(m);
    this.rowOfPos = new Int32Array(m);
    this.diag = new Float64Array(m);
    this.uRows = new SparseLists(m, 4 * m);
    this.uCols = new SparseLists(m, 4 * m);
    this.spike = new Float64Array(m);
    this.spikeRows = new Int32Array(m);
    this.rowHeap = new IndexHeap(m);
    this.work = new Float64Array(m);
    this.work2 = new Float64Array(m);
    this.nonzeros = new Int32Array(m);
    this.pairWork = new Float64Array(m);
    this.rStart.push(0);
    this.hyper = new HyperSolves(m);
    this.spikeStore = { spike: this.spike, spikeRows: this.spikeRows };
    this.replaced = new Uint8Array(m);
    this.rowCount = new Int32Array(m);
    this.colCount = new Int32Array(m);
  }

  get updateCount(): number {
    return this.rRow.length;
  }

  /** Growth of the factors since the last factorisation (row etas plus U fill). */
  get growth(): number {
    return this.rIndex.length + Math.max(0, this.uRows.nonzeros - this.nnzUFactored);
  }

  /**
   * Factorises the basis given column-wise (column k = basis position k). Returns which positions
   * were dependent and which rows' unit columns took their place. `options` tune the elimination
   * (tests use them to force or forbid the dense kernel).
   */
  factorize(colStart: Int32Array, colIndex: Int32Array, colValue: Float64Array, options?: EliminationOptions): FactorStats {
    // the workspaces stay from one factorisation to the next (the previous L is replaced below anyway)
    this.elimination = this.elimination?.load(colStart, colIndex, colValue, options) ?? new Elimination(this.m, colStart, colIndex, colValue, options);
    const result = this.elimination.run();
    this.lRow = result.pivotRow;
    this.lStart = result.lStart;
    this.lIndex = result.lIndex;
    this.lValue = result.lValue;
    this.hyper.invalidate();
    this.packL();
    this.loadU(result);
    this.rRow.clear();
    this.rStart.clear();
    this.rStart.push(0);
    this.rIndex.clear();
    this.rValue.clear();
    this.spikeValid = false;
    return {
      deficientPositions: result.deficientPositions,
      replacementRows: result.replacementRows,
      nnzL: this.lIndex.length,
      nnzU: this.nnzUFactored,
    };
  }

  /** Whether a solve whose right-hand side has `count` listed nonzeros runs hyper-sparse (lu-hyper.ts). */
  private goesHyper(count: number, recentDensity: number): boolean {
    return this.hyperMode === "auto" ? count <= HYPER_DENSITY * this.m && recentDensity <= HYPER_DENSITY : this.hyperMode === "always";
  }

  /** L's non-empty etas in step order (`lPackRow`). */
  private packL(): void {
    const { lRow, lStart, lPackRow, lPackStart } = this;
    let c = 0;
    for (let t = 0; t < this.m; t++) {
      if (lStart[t + 1] === lStart[t]) continue;
      lPackRow[c] = lRow[t];
      lPackStart[c++] = lStart[t];
    }
    lPackStart[c] = lStart[this.m];
    this.lPackCount = c;
  }

  /** U from the elimination (entries in replaced positions dropped), row- and column-wise. */
  private loadU(r: EliminationResult): void {
    const m = this.m;
    const { replaced, rowCount, colCount, order, orderIndex, posOfRow, rowOfPos, diag } = this;
    const { pivotRow, pivotCol, pivotValue, uStart } = r;
    const uIndex = r.uIndex.data;
    const uValue = r.uValue.data;
    replaced.fill(0);
    rowCount.fill(0);
    colCount.fill(0);
    for (const k of r.deficientPositions) replaced[k] = 1;
    for (let t = 0; t < m; t++) {
      const p = pivotRow[t];
      const pos = pivotCol[t];
      order[t] = p;
      orderIndex[p] = t;
      posOfRow[p] = pos;
      rowOfPos[pos] = p;
      diag[p] = pivotValue[t];
      let count = 0;
      for (let k = uStart[t], e = uStart[t + 1]; k < e; k++) {
        const to = uIndex[k];
        if (replaced[to]) continue;
        count++;
        colCount[to]++;
      }
      rowCount[p] = count;
    }
    this.orderEnd = m;
    // the lists are laid out with exactly these capacities (plus slack): fill them without pushes
    const rows = this.uRows;
    const cols = this.uCols;
    rows.reset(rowCount);
    cols.reset(colCount);
    const { start: rowStart, key: rowKey, value: rowValue } = rows;
    const { start: colStart, length: colLength, key: colKey, value: colValue } = cols;
    const rowLength = rows.length;
    let nnz = 0;
    for (let t = 0; t < m; t++) {
      const e = uStart[t + 1];
      let k = uStart[t];
      if (k === e) continue;
      const p = pivotRow[t];
      let at = rowStart[p];
      for (; k < e; k++) {
        const to = uIndex[k];
        if (replaced[to]) continue;
        const v = uValue[k];
        rowKey[at] = to;
        rowValue[at++] = v;
        const c = colStart[to] + colLength[to]++;
        colKey[c] = p;
        colValue[c] = v;
      }
      rowLength[p] = at - rowStart[p];
      nnz += rowLength[p];
    }
    rows.nonzeros = nnz;
    cols.nonzeros = nnz;
    this.nnzUFactored = nnz;
  }

  /**
   * Solves B x = b in place: `rhs` holds b by row on entry and x by basis position on exit. With
   * `keepSpike`, the partially transformed vector (after L and the row etas) is saved for `update`.
   * The positions of x's nonzeros are written to `nonzeros` (when given) and their count returned; the
   * list comes from the U pass itself, so callers can work in O(nonzeros) afterwards. Callers that
   * know b's nonzero rows pass them (`rhsRows[0 .. rhsCount)`, duplicates allowed): when they and the
   * recent results are sparse, the solve runs hyper-sparse.
   */
  ftran(rhs: Float64Array, keepSpike = false, nonzeros: Int32Array = this.nonzeros, rhsRows?: Int32Array, rhsCount = 0): number {
    if (rhsRows === undefined) return this.ftranDense(rhs, keepSpike, nonzeros);
    const count = this.goesHyper(rhsCount, this.ftranDensity)
      ? this.ftranHyper(rhs, rhsRows, rhsCount, keepSpike, nonzeros)
      : this.ftranDense(rhs, keepSpike, nonzeros);
    this.ftranDensity += DENSITY_WEIGHT * (count / this.m - this.ftranDensity);
    return count;
  }

  private ftranDense(rhs: Float64Array, keepSpike: boolean, nonzeros: Int32Array): number {
    const lIndex = this.lIndex.data;
    const lValue = this.lValue.data;
    const { lPackRow, lPackStart } = this;
    for (let c = 0, etas = this.lPackCount; c < etas; c++) {
      const v = rhs[lPackRow[c]];
      if (v === 0) continue;
      for (let k = lPackStart[c], e = lPackStart[c + 1]; k < e; k++) rhs[lIndex[k]] -= lValue[k] * v;
    }
    if (this.rRow.length > 0) this.applyRowEtas(rhs);
    if (keepSpike) {
      this.spike.set(rhs);
      this.spikeValid = true;
      this.spikeCount = -1;
    }
    const work = this.work;
    const { start, length, key, value } = this.uCols;
    const { order, diag, posOfRow } = this;
    let count = 0;
    for (let idx = this.orderEnd - 1; idx >= 0; idx--) {
      const p = order[idx];
      if (p < 0) continue;
      let v = rhs[p];
      if (v === 0) continue;
      rhs[p] = 0;
      v /= diag[p];
      const pos = posOfRow[p];
      work[pos] = v;
      nonzeros[count++] = pos;
      const b = start[pos];
      const e = b + length[pos];
      for (let k = b; k < e; k++) rhs[key[k]] -= value[k] * v;
    }
    // every row was visited (and zeroed) above: only the result's nonzeros move back
    for (let c = 0; c < count; c++) {
      const pos = nonzeros[c];
      rhs[pos] = work[pos];
      work[pos] = 0;
    }
    return count;
  }

  /** The hyper-sparse FTRAN (lu-hyper.ts), saving the spike for `update` when asked. */
  private ftranHyper(rhs: Float64Array, rhsRows: Int32Array, rhsCount: number, keepSpike: boolean, nonzeros: Int32Array): number {
    if (keepSpike) this.clearSpike();
    const count = this.hyper.ftran(this, rhs, rhsRows, rhsCount, keepSpike ? this.spikeStore : null, nonzeros);
    if (keepSpike) {
      this.spikeValid = true;
      this.spikeCount = this.hyper.spikeCount;
    }
    return count;
  }

  /** Zeroes the saved spike: over its listed rows when it has them, else the whole vector. */
  private clearSpike(): void {
    if (this.spikeCount < 0) {
      this.spike.fill(0);
    } else {
      const { spike, spikeRows } = this;
      for (let c = 0; c < this.spikeCount; c++) spike[spikeRows[c]] = 0;
    }
    this.spikeCount = 0;
  }

  /**
   * Two FTRANs in one pass over the factors (the dual simplex's entering column and its DSE vector τ):
   * each L, row-eta and U entry is loaded once for both right-hand sides, which halves the memory
   * traffic when both are dense (pilot87: 73 %). `col` is solved as by `ftran(col, true, colNonzeros)`
   * (its spike kept for the update) and `other` as by `ftran(other)`, with the same arithmetic; returns
   * the count of col's nonzeros. With both right-hand sides' nonzero rows given and sparse, the two
   * are solved hyper-sparse one after the other instead. The positions of other's nonzeros go to
   * `otherNonzeros` (when given), their count to `otherCount`: with both lists a caller can clear
   * the two vectors in O(nonzeros) for the next call (both results are zero outside their lists).
   */
  ftranPair(
    col: Float64Array,
    colNonzeros: Int32Array,
    other: Float64Array,
    colRows?: Int32Array,
    colRhsCount = 0,
    otherRows?: Int32Array,
    otherRhsCount = 0,
    otherNonzeros: Int32Array = this.nonzeros,
  ): number {
    if (colRows !== undefined && otherRows !== undefined) {
      const density = this.ftranDensity;
      if (this.goesHyper(Math.max(colRhsCount, otherRhsCount), density)) {
        const count = this.ftranHyper(col, colRows, colRhsCount, true, colNonzeros);
        const otherCount = this.ftranHyper(other, otherRows, otherRhsCount, false, otherNonzeros);
        this.otherCount = otherCount;
        this.ftranDensity += DENSITY_WEIGHT * (Math.max(count, otherCount) / this.m - this.ftranDensity);
        return count;
      }
    }
    const count = this.ftranPairDense(col, colNonzeros, other, otherNonzeros);
    this.ftranDensity += DENSITY_WEIGHT * (count / this.m - this.ftranDensity);
    return count;
  }

  private ftranPairDense(col: Float64Array, colNonzeros: Int32Array, other: Float64Array, otherNonzeros: Int32Array): number {
    // each pass in its own method: a cold process optimises them after a few calls instead of
    // running one long method interpreted until on-stack replacement
    this.lowerPair(col, other);
    if (this.rRow.length > 0) this.applyRowEtasPair(col, other);
    this.spike.set(col);
    this.spikeValid = true;
    this.spikeCount = -1;
    return this.upperPair(col, colNonzeros, other, otherNonzeros);
  }

  /** L⁻¹ on two vectors at once (`ftranPair`). */
  private lowerPair(col: Float64Array, other: Float64Array): void {
    const lIndex = this.lIndex.data;
    const lValue = this.lValue.data;
    const { lPackRow, lPackStart } = this;
    for (let c = 0, etas = this.lPackCount; c < etas; c++) {
      const p = lPackRow[c];
      const va = col[p];
      const vb = other[p];
      const b = lPackStart[c];
      const e = lPackStart[c + 1];
      if (va === 0) {
        if (vb === 0) continue;
        for (let k = b; k < e; k++) other[lIndex[k]] -= lValue[k] * vb;
      } else if (vb === 0) {
        for (let k = b; k < e; k++) col[lIndex[k]] -= lValue[k] * va;
      } else {
        for (let k = b; k < e; k++) {
          const i = lIndex[k];
          const l = lValue[k];
          col[i] -= l * va;
          other[i] -= l * vb;
        }
      }
    }
  }

  /** U⁻¹ on two vectors at once, results moved to basis positions (`ftranPair`); returns col's count. */
  private upperPair(col: Float64Array, colNonzeros: Int32Array, other: Float64Array, listB: Int32Array): number {
    const workA = this.work;
    const workB = this.pairWork;
    const { start, length, key, value } = this.uCols;
    const { order, diag, posOfRow } = this;
    let countA = 0;
    let countB = 0;
    for (let idx = this.orderEnd - 1; idx >= 0; idx--) {
      const p = order[idx];
      if (p < 0) continue;
      let va = col[p];
      let vb = other[p];
      if (va === 0 && vb === 0) continue;
      const pos = posOfRow[p];
      const b = start[pos];
      const e = b + length[pos];
      if (va !== 0) {
        col[p] = 0;
        va /= diag[p];
        workA[pos] = va;
        colNonzeros[countA++] = pos;
      }
      if (vb !== 0) {
        other[p] = 0;
        vb /= diag[p];
        workB[pos] = vb;
        listB[countB++] = pos;
      }
      if (va === 0) {
        for (let k = b; k < e; k++) other[key[k]] -= value[k] * vb;
      } else if (vb === 0) {
        for (let k = b; k < e; k++) col[key[k]] -= value[k] * va;
      } else {
        // unrolled by two (V8 does not unroll), entries in index order: the rolled loop's values
        let k = b;
        for (const e2 = e - 1; k < e2; k += 2) {
          const i0 = key[k];
          const u0 = value[k];
          col[i0] -= u0 * va;
          other[i0] -= u0 * vb;
          const i1 = key[k + 1];
          const u1 = value[k + 1];
          col[i1] -= u1 * va;
          other[i1] -= u1 * vb;
        }
        if (k < e) {
          const i = key[k];
          const u = value[k];
          col[i] -= u * va;
          other[i] -= u * vb;
        }
      }
    }
    for (let c = 0; c < countA; c++) {
      const pos = colNonzeros[c];
      col[pos] = workA[pos];
      workA[pos] = 0;
    }
    for (let c = 0; c < countB; c++) {
      const pos = listB[c];
      other[pos] = workB[pos];
      workB[pos] = 0;
    }
    this.otherCount = countB;
    return countA;
  }

  /**
   * Solves Bᵀ y = c in place: `rhs` holds c by basis position on entry and y by row on exit. The rows
   * of y's nonzeros, in increasing order, are written to `nonzeros` (when given); returns their count.
   * Callers that know c's nonzero positions pass them (as `ftran`'s `rhsRows`).
   */
  btran(rhs: Float64Array, nonzeros: Int32Array = this.nonzeros, rhsPositions?: Int32Array, rhsCount = 0): number {
    if (rhsPositions === undefined) return this.btranDense(rhs, nonzeros);
    const count = this.goesHyper(rhsCount, this.btranDensity) ? this.hyper.btran(this, rhs, rhsPositions, rhsCount, nonzeros) : this.btranDense(rhs, nonzeros);
    this.btranDensity += DENSITY_WEIGHT * (count / this.m - this.btranDensity);
    return count;
  }

  private btranDense(rhs: Float64Array, nonzeros: Int32Array): number {
    const m = this.m;
    const work = this.work;
    const { start, length, key, value } = this.uRows;
    const { order, diag, posOfRow } = this;
    for (let idx = 0; idx < this.orderEnd; idx++) {
      const p = order[idx];
      if (p < 0) continue;
      const pos = posOfRow[p];
      let v = rhs[pos];
      if (v === 0) continue;
      rhs[pos] = 0;
      v /= diag[p];
      work[p] = v;
      const b = start[p];
      const e = b + length[p];
      for (let k = b; k < e; k++) rhs[key[k]] -= value[k] * v;
    }
    if (this.rRow.length > 0) this.applyRowEtasTransposed(work);
    const lIndex = this.lIndex.data;
    const lValue = this.lValue.data;
    const { lPackRow, lPackStart } = this;
    for (let c = this.lPackCount - 1; c >= 0; c--) {
      const p = lPackRow[c];
      let s = work[p];
      for (let k = lPackStart[c], e = lPackStart[c + 1]; k < e; k++) s -= lValue[k] * work[lIndex[k]];
      work[p] = s;
    }
    // every position was visited (and zeroed) above
    let count = 0;
    for (let i = 0; i < m; i++) {
      const v = work[i];
      if (v === 0) continue;
      rhs[i] = v;
      work[i] = 0;
      nonzeros[count++] = i;
    }
    return count;
  }

  /** rhs[p] −= Σ μ·rhs[s] for each row eta in order (FTRAN, after L). Kept apart so that the hot
   * solves are compiled before the first update exists (V8 would otherwise deoptimise them). */
  private applyRowEtas(rhs: Float64Array): void {
    const etas = this.rRow.length;
    const rRow = this.rRow.data;
    const rStart = this.rStart.data;
    const rIndex = this.rIndex.data;
    const rValue = this.rValue.data;
    for (let e = 0; e < etas; e++) {
      let s = rhs[rRow[e]];
      for (let k = rStart[e]; k < rStart[e + 1]; k++) s -= rValue[k] * rhs[rIndex[k]];
      rhs[rRow[e]] = s;
    }
  }

  /** `applyRowEtas` on two vectors at once (`ftranPair`). */
  private applyRowEtasPair(a: Float64Array, b: Float64Array): void {
    const etas = this.rRow.length;
    const rRow = this.rRow.data;
    const rStart = this.rStart.data;
    const rIndex = this.rIndex.data;
    const rValue = this.rValue.data;
    for (let e = 0; e < etas; e++) {
      const p = rRow[e];
      let sa = a[p];
      let sb = b[p];
      for (let k = rStart[e]; k < rStart[e + 1]; k++) {
        const i = rIndex[k];
        const mu = rValue[k];
        sa -= mu * a[i];
        sb -= mu * b[i];
      }
      a[p] = sa;
      b[p] = sb;
    }
  }

  /** The transposed row etas in reverse order (BTRAN, before Lᵀ): w[s] −= μ·w[p]. */
  private applyRowEtasTransposed(w: Float64Array): void {
    const rRow = this.rRow.data;
    const rStart = this.rStart.data;
    const rIndex = this.rIndex.data;
    const rValue = this.rValue.data;
    for (let e = this.rRow.length - 1; e >= 0; e--) {
      const v = w[rRow[e]];
      if (v === 0) continue;
      for (let k = rStart[e]; k < rStart[e + 1]; k++) w[rIndex[k]] -= rValue[k] * v;
    }
  }

  /**
   * Forrest–Tomlin update for the basis change at position r. `alpha` = B⁻¹a_q by position (old
   * basis), from the FTRAN that also saved the spike. Returns false when the update is refused
   * (no spike, or a new diagonal that fails the check): the caller must refactorise.
   */
  update(alpha: Float64Array, r: number): boolean {
    if (!this.spikeValid) return false;
    this.spikeValid = false;
    const p = this.rowOfPos[r];
    const oldDiag = this.diag[p];
    const etaFrom = this.rIndex.length;
    const newDiag = this.eliminatePivotRow(p);
    if (!(Math.abs(newDiag) > 1e-11) || Math.abs(newDiag - alpha[r] * oldDiag) > UPDATE_CHECK * (Math.abs(newDiag) + Math.abs(oldDiag))) {
      this.rIndex.length = etaFrom;
      this.rValue.length = etaFrom;
      return false;
    }
    if (this.rIndex.length > etaFrom) {
      this.rRow.push(p);
      this.rStart.push(this.rIndex.length);
    }
    this.replaceColumn(p, r, newDiag);
    return true;
  }

  /**
   * Row p to the right of its diagonal, scattered by position, eliminated with the rows below it; the
   * multipliers are appended to the row-eta arrays. Returns the new diagonal (spike_p − Σ μ·spike_s).
   */
  private eliminatePivotRow(p: number): number {
    // a long row fills most rows after it: scanning them in order is cheaper than a heap
    if (HEAP_FACTOR * this.uRows.length[p] > this.orderEnd - this.orderIndex[p]) return this.eliminatePivotRowByScan(p);
    const spike = this.spike;
    const rows = this.uRows;
    const w = this.work2;
    const { orderIndex, rowOfPos } = this;
    // the rows to eliminate with, smallest pivot index first: those of row p's entries and of the fill
    const heap = this.rowHeap;
    heap.clear();
    for (let q = rows.start[p], e = q + rows.length[p]; q < e; q++) {
      const pos = rows.key[q];
      w[pos] = rows.value[q];
      heap.push(rowOfPos[pos], orderIndex);
    }
    let newDiag = spike[p];
    while (heap.size > 0) {
      const s = heap.pop(orderIndex);
      // the fill has reached many of the rows left: go on by scanning them in order
      if (HEAP_FACTOR * heap.size > this.orderEnd - orderIndex[s]) {
        heap.clear();
        return this.eliminateByScan(orderIndex[s] - 1, newDiag);
      }
      const pos = this.posOfRow[s];
      const v = w[pos];
      if (v === 0) continue;
      w[pos] = 0;
      const mu = v / this.diag[s];
      this.rIndex.push(s);
      this.rValue.push(mu);
      newDiag -= mu * spike[s];
      for (let q = rows.start[s], e = q + rows.length[s]; q < e; q++) {
        const to = rows.key[q];
        w[to] -= mu * rows.value[q];
        heap.push(rowOfPos[to], orderIndex);
      }
    }
    return newDiag;
  }

  /** `eliminatePivotRow` by a scan of every row after p in pivot order (the same arithmetic). */
  private eliminatePivotRowByScan(p: number): number {
    const rows = this.uRows;
    const w = this.work2;
    for (let q = rows.start[p], e = q + rows.length[p]; q < e; q++) w[rows.key[q]] = rows.value[q];
    return this.eliminateByScan(this.orderIndex[p], this.spike[p]);
  }

  /** The elimination's rows after pivot index `after`, scanned in order, from the diagonal so far. */
  private eliminateByScan(after: number, diagSoFar: number): number {
    const spike = this.spike;
    const rows = this.uRows;
    const w = this.work2;
    const { order, posOfRow } = this;
    let newDiag = diagSoFar;
    for (let idx = after + 1; idx < this.orderEnd; idx++) {
      const s = order[idx];
      if (s < 0) continue;
      const pos = posOfRow[s];
      const v = w[pos];
      if (v === 0) continue;
      w[pos] = 0;
      const mu = v / this.diag[s];
      this.rIndex.push(s);
      this.rValue.push(mu);
      newDiag -= mu * spike[s];
      for (let q = rows.start[s], e = q + rows.length[s]; q < e; q++) w[rows.key[q]] -= mu * rows.value[q];
    }
    return newDiag;
  }

  /** Old row p and old column r leave U; the spike becomes column r and row p the last pivot row. */
  private replaceColumn(p: number, r: number, newDiag: number): void {
    const m = this.m;
    const rows = this.uRows;
    const cols = this.uCols;
    for (let q = rows.start[p], e = q + rows.length[p]; q < e; q++) cols.remove(rows.key[q], p);
    rows.clear(p);
    for (let q = cols.start[r], e = q + cols.length[r]; q < e; q++) rows.remove(cols.key[q], r);
    cols.clear(r);
    if (this.spikeCount < 0) {
      for (let i = 0; i < m; i++) this.pushSpikeEntry(p, r, i);
    } else {
      const list = this.spikeRows;
      for (let c = 0; c < this.spikeCount; c++) this.pushSpikeEntry(p, r, list[c]);
    }
    this.diag[p] = newDiag;
    if (this.orderEnd === this.order.length) this.compactOrder();
    this.order[this.orderIndex[p]] = -1;
    this.order[this.orderEnd] = p;
    this.orderIndex[p] = this.orderEnd++;
  }

  /** The spike's entry in row i joins U as column r's (unless it is the diagonal's or roundoff). */
  private pushSpikeEntry(p: number, r: number, i: number): void {
    const v = this.spike[i];
    if (i === p || (v < DROP_TOL && v > -DROP_TOL)) return;
    this.uCols.push(r, i, v);
    this.uRows.push(i, r, v);
  }

  /** The pivot order without its holes (more updates than MAX_UPDATES between factorisations). */
  private compactOrder(): void {
    let at = 0;
    for (let idx = 0; idx < this.orderEnd; idx++) {
      const p = this.order[idx];
      if (p < 0) continue;
      this.order[at] = p;
      this.orderIndex[p] = at++;
    }
    this.orderEnd = at;
  }
}
