/**
 * Markowitz elimination for the basis LU (see lu.ts for the conventions). The active submatrix keeps
 * values row-wise in a pool where each row has a capacity; a row that outgrows it moves to the end of
 * the pool, and a full pool is compacted. Columns live in a second pool managed the same way, with
 * their values too (kept equal to the row-wise ones), so a column's maximum for the threshold test is
 * one scan rather than a row lookup per entry. Each entry knows its place in the other pool, so removing
 * it from its column (or row) is one swap with that column's last entry, not a search: on bases with
 * long columns (jendrec1) those searches were most of a factorisation. Rows and columns sit in doubly
 * linked lists by active count, so the search visits the sparsest first.
 */
import { eliminateDense, type FactorOutput } from "./dense-lu.js";
import { GrowableF64, GrowableI32 } from "./growable.js";

const THRESHOLD = 0.1;
const PIVOT_ABS_TOL = 1e-10;
const DROP_TOL = 1e-14;
const SEARCH_LIMIT = 4;
/** The active submatrix goes to the dense kernel once its nonzeros reach this fraction of its size… */
const DENSE_FRACTION = 0.2;
/** …and it has at least this many rows (below, the sparse steps are cheap anyway). */
const DENSE_MIN_ROWS = 32;

export interface EliminationOptions {
  denseFraction?: number;
  denseMinRows?: number;
  /** Find a row's entries by scanning the row only (tests compare it with the default choice of the shorter way). */
  rowScanOnly?: boolean;
}

export interface EliminationResult extends FactorOutput {
  /** The step at which the dense kernel took over (m when it did not). */
  denseFrom: number;
  deficientPositions: number[];
  replacementRows: number[];
}

export class Elimination {
  private readonly m: number;
  // rows: values
  private rowBeg: Int32Array;
  private rowLen: Int32Array;
  private rowCap: Int32Array;
  private rIdx: Int32Array;
  private rVal: Float64Array;
  /** For each row-pool entry, the position of the same entry in the column pool. */
  private rPartner: Int32Array;
  private rEnd = 0;
  // columns: pattern and values
  private colBeg: Int32Array;
  private colLen: Int32Array;
  private colCap: Int32Array;
  private cIdx: Int32Array;
  private cVal: Float64Array;
  /** For each column-pool entry, the position of the same entry in the row pool. */
  private cPartner: Int32Array;
  private cEnd = 0;
  // count buckets (doubly linked lists by active count), -1 terminated
  private rowHead: Int32Array;
  private rowNext: Int32Array;
  private rowPrev: Int32Array;
  private colHead: Int32Array;
  private colNext: Int32Array;
  private colPrev: Int32Array;
  private rowDone: Uint8Array;
  private colDone: Uint8Array;
  // Cached column maxima for the threshold test. While valid, colMax is an upper bound on the column's
  // largest magnitude (entries that shrink or leave do not lower it), exact where colMaxExact is set;
  // the threshold test recomputes an inexact bound only for an entry the bound would reject.
  private colMax: Float64Array;
  private colMaxValid: Uint8Array;
  private colMaxExact: Uint8Array;
  /** The values of the column being searched, by position in its pattern. */
  private colValues: Float64Array;
  // scatter work
  private wVal: Float64Array;
  private wMark: Int32Array;
  /** Multiplier of each row eliminated in the current step. */
  private lOfRow: Float64Array;
  private seen: Int32Array;
  private stamp = 0;
  /** Row-pool positions of the entries that cancel in one row update (`updateThroughColumns`). */
  private cancelAt: Int32Array;
  /** Nonzeros in the active submatrix. */
  private activeNnz = 0;
  private denseFraction = DENSE_FRACTION;
  private denseMinRows = DENSE_MIN_ROWS;
  private rowScanOnly = false;
  // the result's arrays and the dense block, kept for the next `load` (see `run`)
  private readonly pivotRow: Int32Array;
  private readonly pivotCol: Int32Array;
  private readonly pivotValue: Float64Array;
  private readonly lStart: Int32Array;
  private readonly lIndex = new GrowableI32();
  private readonly lValue = new GrowableF64();
  private readonly uStart: Int32Array;
  private readonly uIndex = new GrowableI32();
  private readonly uValue = new GrowableF64();
  private readonly gatherRow = new GrowableI32();
  private readonly blockCol: Int32Array;
  private block = new Float64Array(0);

  /**
   * The workspaces for bases of order m, loaded with the basis given column-wise. A refactorisation
   * `load`s the next basis into the same workspaces: the simplex factorises every 100 updates, and
   * allocating (and collecting) some thirty m-arrays and the pools each time was a visible share of
   * it on the Kennington LPs.
   */
  constructor(m: number, colStart: Int32Array, colIndex: Int32Array, colValue: Float64Array, options: EliminationOptions = {}) {
    this.m = m;
    this.rowBeg = new Int32Array(m);
    this.rowLen = new Int32Array(m);
    this.rowCap = new Int32Array(m);
    this.colBeg = new Int32Array(m);
    this.colLen = new Int32Array(m);
    this.colCap = new Int32Array(m);
    this.rIdx = new Int32Array(0);
    this.rVal = new Float64Array(0);
    this.rPartner = new Int32Array(0);
    this.cIdx = new Int32Array(0);
    this.cVal = new Float64Array(0);
    this.cPartner = new Int32Array(0);
    this.rowHead = new Int32Array(m + 1);
    this.rowNext = new Int32Array(m);
    this.rowPrev = new Int32Array(m);
    this.colHead = new Int32Array(m + 1);
    this.colNext = new Int32Array(m);
    this.colPrev = new Int32Array(m);
    this.rowDone = new Uint8Array(m);
    this.colDone = new Uint8Array(m);
    this.colMax = new Float64Array(m);
    this.colMaxValid = new Uint8Array(m);
    this.colMaxExact = new Uint8Array(m);
    this.colValues = new Float64Array(m);
    this.wVal = new Float64Array(m);
    this.wMark = new Int32Array(m);
    this.lOfRow = new Float64Array(m);
    this.seen = new Int32Array(m);
    this.cancelAt = new Int32Array(m);
    this.pivotRow = new Int32Array(m);
    this.pivotCol = new Int32Array(m);
    this.pivotValue = new Float64Array(m);
    this.lStart = new Int32Array(m + 1);
    this.uStart = new Int32Array(m + 1);
    this.blockCol = new Int32Array(m);
    this.load(colStart, colIndex, colValue, options);
  }

  /**
   * Loads a basis of the same order (column k = basis position k) for the next `run`, which then
   * computes what a new Elimination would, to the bit. The arrays of the previous result are reused:
   * that result must no longer be needed.
   */
  load(colStart: Int32Array, colIndex: Int32Array, colValue: Float64Array, options: EliminationOptions = {}): this {
    const m = this.m;
    this.denseFraction = options.denseFraction ?? DENSE_FRACTION;
    this.denseMinRows = options.denseMinRows ?? DENSE_MIN_ROWS;
    this.rowScanOnly = options.rowScanOnly ?? false;
    const nnz = colStart[m];
    this.rowLen.fill(0);
    this.colLen.fill(0);
    this.rEnd = 0;
    this.cEnd = 0;
    this.activeNnz = 0;
    this.stamp = 0;
    for (let k = 0; k < nnz; k++) this.rowLen[colIndex[k]]++;
    // a pool grown by an earlier factorisation stays grown: entries move the same way in a larger pool
    const poolSize = 2 * nnz + 4 * m + 16;
    if (this.rIdx.length < poolSize) {
      this.rIdx = new Int32Array(poolSize);
      this.rVal = new Float64Array(poolSize);
      this.rPartner = new Int32Array(poolSize);
    }
    if (this.cIdx.length < poolSize) {
      this.cIdx = new Int32Array(poolSize);
      this.cVal = new Float64Array(poolSize);
      this.cPartner = new Int32Array(poolSize);
    }
    for (let i = 0; i < m; i++) {
      const cap = this.rowLen[i] + 4;
      this.rowBeg[i] = this.rEnd;
      this.rowCap[i] = cap;
      this.rEnd += cap;
      this.rowLen[i] = 0;
    }
    for (let j = 0; j < m; j++) {
      const len = colStart[j + 1] - colStart[j];
      const cap = len + 4;
      this.colBeg[j] = this.cEnd;
      this.colCap[j] = cap;
      this.cEnd += cap;
      for (let k = colStart[j]; k < colStart[j + 1]; k++) {
        const i = colIndex[k];
        const v = colValue[k];
        if (v === 0) continue;
        const rp = this.rowBeg[i] + this.rowLen[i];
        const cp = this.colBeg[j] + this.colLen[j];
        this.rIdx[rp] = j;
        this.rVal[rp] = v;
        this.rPartner[rp] = cp;
        this.rowLen[i]++;
        this.cIdx[cp] = i;
        this.cVal[cp] = v;
        this.cPartner[cp] = rp;
        this.colLen[j]++;
        this.activeNnz++;
      }
    }
    this.rowHead.fill(-1);
    this.colHead.fill(-1);
    this.rowDone.fill(0);
    this.colDone.fill(0);
    // insert in descending order so that each bucket lists indices ascending (determinism, readability)
    for (let i = m - 1; i >= 0; i--) this.linkRow(i);
    for (let j = m - 1; j >= 0; j--) this.linkCol(j);
    this.colMaxValid.fill(0);
    this.colMaxExact.fill(0);
    this.wMark.fill(-1);
    this.seen.fill(-1);
    return this;
  }

  private linkRow(i: number): void {
    const c = this.rowLen[i];
    const h = this.rowHead[c];
    this.rowPrev[i] = -1;
    this.rowNext[i] = h;
    if (h >= 0) this.rowPrev[h] = i;
    this.rowHead[c] = i;
  }
  private unlinkRow(i: number, count: number): void {
    const p = this.rowPrev[i];
    const n = this.rowNext[i];
    if (p >= 0) this.rowNext[p] = n;
    else this.rowHead[count] = n;
    if (n >= 0) this.rowPrev[n] = p;
  }
  private linkCol(j: number): void {
    const c = this.colLen[j];
    const h = this.colHead[c];
    this.colPrev[j] = -1;
    this.colNext[j] = h;
    if (h >= 0) this.colPrev[h] = j;
    this.colHead[c] = j;
  }
  private unlinkCol(j: number, count: number): void {
    const p = this.colPrev[j];
    const n = this.colNext[j];
    if (p >= 0) this.colNext[p] = n;
    else this.colHead[count] = n;
    if (n >= 0) this.colPrev[n] = p;
  }

  /** An upper bound on column j's largest magnitude (exact when first computed). */
  private columnMax(j: number): number {
    if (this.colMaxValid[j]) return this.colMax[j];
    return this.exactColumnMax(j);
  }

  /** Whether |a_ij| = av passes the threshold test in column j. */
  private passesThreshold(av: number, j: number): boolean {
    if (av >= THRESHOLD * this.columnMax(j)) return true;
    return !this.colMaxExact[j] && av >= THRESHOLD * this.exactColumnMax(j);
  }

  /** Entry (·, j) changed from magnitude `before` to `after` (0 = absent): keeps the bound valid. */
  private columnEntryChanged(j: number, before: number, after: number): void {
    if (!this.colMaxValid[j]) return;
    const mx = this.colMax[j];
    if (after > mx) this.colMax[j] = after;
    else if (before >= mx) this.colMaxExact[j] = 0;
  }

  private exactColumnMax(j: number): number {
    let mx = 0;
    const b = this.colBeg[j];
    for (let k = b; k < b + this.colLen[j]; k++) {
      const v = Math.abs(this.cVal[k]);
      if (v > mx) mx = v;
    }
    this.colMax[j] = mx;
    this.colMaxValid[j] = 1;
    this.colMaxExact[j] = 1;
    return mx;
  }

  /** Eliminates the loaded basis. The result's arrays are this elimination's own, reused by the next `load`. */
  run(): EliminationResult {
    const m = this.m;
    const { pivotRow, pivotCol, pivotValue, lStart, lIndex, lValue, uStart, uIndex, uValue, gatherRow } = this;
    lIndex.clear();
    lValue.clear();
    uIndex.clear();
    uValue.clear();
    const deficient: number[] = [];
    const out: FactorOutput = { pivotRow, pivotCol, pivotValue, lStart, lIndex, lValue, uStart, uIndex, uValue };
    let step = 0;
    let denseFrom = m;

    while (step < m) {
      const left = m - step;
      if (left >= this.denseMinRows && this.activeNnz >= this.denseFraction * left * left) {
        denseFrom = step;
        step = this.finishDense(out, step, deficient);
        break;
      }
      if (!this.choosePivot(deficient)) break;
      const prow = this.pickedRow;
      const q = this.pickedCol;
      const piv = this.pickedValue;
      // take row p and column q out of the active structure
      this.unlinkRow(prow, this.rowLen[prow]);
      this.rowDone[prow] = 1;
      this.unlinkCol(q, this.colLen[q]);
      this.colDone[q] = 1;
      this.activeNnz -= this.rowLen[prow] + this.colLen[q] - 1;
      // gather column q from the other rows, removing entry (i, q) from each
      gatherRow.clear();
      const cb = this.colBeg[q];
      for (let k = cb; k < cb + this.colLen[q]; k++) {
        const i = this.cIdx[k];
        if (i === prow) continue;
        this.unlinkRow(i, this.rowLen[i]);
        gatherRow.push(i);
        this.lOfRow[i] = this.removeRowEntryAt(i, this.cPartner[k]) / piv;
      }
      this.colLen[q] = 0;
      // pivot row -> U (its entries also serve as the scatter list below, since the pool may be
      // compacted while rows fill in); remove row p from the patterns of its other columns (the
      // entries of the rows eliminated below are updated in both pools by eliminateRow)
      const pb = this.rowBeg[prow];
      const pe = pb + this.rowLen[prow];
      const rowStamp = step;
      for (let k = pb; k < pe; k++) {
        const j = this.rIdx[k];
        if (j === q) continue;
        uIndex.push(j);
        uValue.push(this.rVal[k]);
        this.wVal[j] = this.rVal[k];
        this.wMark[j] = rowStamp;
        this.unlinkCol(j, this.colLen[j]);
        this.removeColEntryAt(j, this.rPartner[k]);
        this.columnEntryChanged(j, Math.abs(this.rVal[k]), 0);
      }
      uStart[step + 1] = uIndex.length;
      // eliminate column q from the gathered rows
      for (let g = 0; g < gatherRow.length; g++) {
        const i = gatherRow.data[g];
        const l = this.lOfRow[i];
        lIndex.push(i);
        lValue.push(l);
        // a pivot row without other entries (row singleton) changes nothing in row i
        if (uStart[step + 1] > uStart[step]) this.eliminateRow(i, l, uIndex.data, uStart[step], uStart[step + 1], rowStamp);
        this.linkRow(i);
      }
      lStart[step + 1] = lIndex.length;
      for (let k = uStart[step]; k < uStart[step + 1]; k++) this.linkCol(uIndex.data[k]);
      pivotRow[step] = prow;
      pivotCol[step] = q;
      pivotValue[step] = piv;
      step++;
    }

    // Dependent columns: pair each with an unpivoted row, factor as that row's unit column.
    const replacementRows: number[] = [];
    if (step < m) {
      for (let j = 0; j < m; j++) if (!this.colDone[j] && !deficient.includes(j)) deficient.push(j);
      deficient.sort((a, b) => a - b);
      let row = 0;
      for (const k of deficient) {
        while (this.rowDone[row]) row++;
        this.rowDone[row] = 1;
        replacementRows.push(row);
        pivotRow[step] = row;
        pivotCol[step] = k;
        pivotValue[step] = 1;
        lStart[step + 1] = lIndex.length;
        uStart[step + 1] = uIndex.length;
        step++;
      }
    }
    return { pivotRow, pivotCol, pivotValue, lStart, lIndex, lValue, uStart, uIndex, uValue, denseFrom, deficientPositions: deficient, replacementRows };
  }

  private pickedRow = -1;
  private pickedCol = -1;
  private pickedValue = 0;

  /**
   * Markowitz search. Returns true with the pick in picked*, or false when every remaining column is
   * numerically zero (those are appended to `deficient`).
   */
  private choosePivot(deficient: number[]): boolean {
    const m = this.m;
    let bestCost = Infinity;
    let found = 0;
    for (let count = 1; count <= m; count++) {
      // columns with `count` entries
      let j = this.colHead[count];
      while (j >= 0) {
        const next = this.colNext[j];
        // the column's values, looked up once (each lookup scans a row), give its exact maximum too
        const b = this.colBeg[j];
        const len = this.colLen[j];
        const values = this.colValues;
        let cmax = 0;
        for (let k = 0; k < len; k++) {
          const v = this.cVal[b + k];
          values[k] = v;
          if (Math.abs(v) > cmax) cmax = Math.abs(v);
        }
        this.colMax[j] = cmax;
        this.colMaxValid[j] = 1;
        this.colMaxExact[j] = 1;
        if (cmax <= PIVOT_ABS_TOL) {
          // numerically zero column: drop its entries, it is dependent
          this.unlinkCol(j, count);
          this.dropColumn(j);
          this.colDone[j] = 1;
          deficient.push(j);
          j = next;
          continue;
        }
        for (let k = 0; k < len; k++) {
          const i = this.cIdx[b + k];
          const v = values[k];
          const av = Math.abs(v);
          if (av < THRESHOLD * cmax || av <= PIVOT_ABS_TOL) continue;
          const cost = (this.rowLen[i] - 1) * (count - 1);
          if (cost < bestCost || (cost === bestCost && av > Math.abs(this.pickedValue))) {
            bestCost = cost;
            this.pickedRow = i;
            this.pickedCol = j;
            this.pickedValue = v;
          }
        }
        found++;
        if (bestCost === 0 || (found >= SEARCH_LIMIT && bestCost < Infinity)) return true;
        j = next;
      }
      // rows with `count` entries
      let i = this.rowHead[count];
      while (i >= 0) {
        const b = this.rowBeg[i];
        for (let k = b; k < b + this.rowLen[i]; k++) {
          const jj = this.rIdx[k];
          const v = this.rVal[k];
          const av = Math.abs(v);
          const cost = (count - 1) * (this.colLen[jj] - 1);
          // A row singleton needs no threshold test: eliminating with it leaves the other rows
          // unchanged (its large multipliers only enter L), so it cannot cause growth.
          if (cost > bestCost || av <= PIVOT_ABS_TOL) continue;
          // a tie only wins by a larger magnitude: compare before the threshold test
          if (cost === bestCost && av <= Math.abs(this.pickedValue)) continue;
          if (count > 1 && !this.passesThreshold(av, jj)) continue;
          bestCost = cost;
          this.pickedRow = i;
          this.pickedCol = jj;
          this.pickedValue = v;
        }
        found++;
        if (bestCost === 0 || (found >= SEARCH_LIMIT && bestCost < Infinity)) return true;
        i = this.rowNext[i];
      }
      if (bestCost <= count * count) return true;
    }
    return bestCost < Infinity;
  }

  /**
   * Removes row i's entry at row-pool position k and returns its value: the row's last entry takes its
   * place (the order a search-and-swap left, so the elimination's choices are unchanged).
   */
  private removeRowEntryAt(i: number, k: number): number {
    const { rIdx, rVal, rPartner } = this;
    const v = rVal[k];
    const last = this.rowBeg[i] + this.rowLen[i] - 1;
    // the last entry itself: nothing moves (its partner may already be gone, and its slot reused)
    if (k !== last) {
      rIdx[k] = rIdx[last];
      rVal[k] = rVal[last];
      const moved = rPartner[last];
      rPartner[k] = moved;
      this.cPartner[moved] = k;
    }
    this.rowLen[i]--;
    return v;
  }

  /** Removes column j's entry at column-pool position k; the column's last entry takes its place. */
  private removeColEntryAt(j: number, k: number): void {
    const { cIdx, cVal, cPartner } = this;
    const last = this.colBeg[j] + this.colLen[j] - 1;
    if (k !== last) {
      cIdx[k] = cIdx[last];
      cVal[k] = cVal[last];
      const moved = cPartner[last];
      cPartner[k] = moved;
      this.rPartner[moved] = k;
    }
    this.colLen[j]--;
  }

  /**
   * Hands the active submatrix to the dense kernel and returns the next step. Its columns go in
   * sparsest first (the kernel's tie-break order). Rows the kernel leaves unpivoted (dependent
   * columns) stay active for the basis repair.
   */
  private finishDense(out: FactorOutput, step: number, deficient: number[]): number {
    const m = this.m;
    const rowId: number[] = [];
    for (let i = 0; i < m; i++) if (!this.rowDone[i]) rowId.push(i);
    const colId: number[] = [];
    for (let j = 0; j < m; j++) if (!this.colDone[j]) colId.push(j);
    colId.sort((x, y) => this.colLen[x] - this.colLen[y] || x - y);
    const blockCol = this.blockCol;
    for (let c = 0; c < colId.length; c++) {
      blockCol[colId[c]] = c;
      this.colDone[colId[c]] = 1;
    }
    const rows = rowId.length;
    const cols = colId.length;
    if (this.block.length < rows * cols) this.block = new Float64Array(rows * cols);
    const block = this.block.subarray(0, rows * cols);
    block.fill(0);
    for (let r = 0; r < rows; r++) {
      const i = rowId[r];
      const b = this.rowBeg[i];
      for (let k = b; k < b + this.rowLen[i]; k++) block[r * cols + blockCol[this.rIdx[k]]] = this.rVal[k];
    }
    const first = step;
    const next = eliminateDense(block, rows, cols, Int32Array.from(rowId), Int32Array.from(colId), out, step, deficient, THRESHOLD, PIVOT_ABS_TOL, DROP_TOL);
    for (let t = first; t < next; t++) this.rowDone[out.pivotRow[t]] = 1;
    return next;
  }

  /** Removes all entries of column j (numerically zero) from their rows. */
  private dropColumn(j: number): void {
    this.activeNnz -= this.colLen[j];
    const b = this.colBeg[j];
    for (let k = b; k < b + this.colLen[j]; k++) {
      const i = this.cIdx[k];
      this.unlinkRow(i, this.rowLen[i]);
      this.removeRowEntryAt(i, this.cPartner[k]);
      this.linkRow(i);
    }
    this.colLen[j] = 0;
  }

  /** row_i -= l · row_p (row p scattered in wVal/wMark with `rowStamp`, its columns listed in
   * pivotCols[from..to)), with fill-in. */
  private eliminateRow(i: number, l: number, pivotCols: Int32Array, from: number, to: number, rowStamp: number): void {
    const seenStamp = ++this.stamp;
    // Row i's entries in the pivot row's columns are found through those columns' patterns where they
    // are shorter than row i: a long row met by short pivot rows was scanned whole each time (pcb3000's
    // optimal basis: 2.4 million entries scanned for 11,795 updates, rows up to 2,669 long).
    let colWork = 0;
    for (let k = from; k < to && colWork < this.rowLen[i]; k++) colWork += this.colLen[pivotCols[k]];
    if (colWork < this.rowLen[i] && !this.rowScanOnly) this.updateThroughColumns(i, l, pivotCols, from, to, rowStamp, seenStamp);
    else this.updateThroughRow(i, l, rowStamp, seenStamp);
    for (let k = from; k < to; k++) {
      const j = pivotCols[k];
      if (this.seen[j] === seenStamp) continue;
      const v = -l * this.wVal[j];
      if (Math.abs(v) <= DROP_TOL) continue;
      if (this.rowLen[i] >= this.rowCap[i]) this.growRow(i);
      if (this.colLen[j] >= this.colCap[j]) this.growCol(j);
      const rp = this.rowBeg[i] + this.rowLen[i];
      const cp = this.colBeg[j] + this.colLen[j];
      this.rIdx[rp] = j;
      this.rVal[rp] = v;
      this.rPartner[rp] = cp;
      this.rowLen[i]++;
      this.cIdx[cp] = i;
      this.cVal[cp] = v;
      this.cPartner[cp] = rp;
      this.colLen[j]++;
      this.activeNnz++;
      this.columnEntryChanged(j, 0, Math.abs(v));
    }
  }

  /** eliminateRow's update of row i's existing entries by a scan of row i. */
  private updateThroughRow(i: number, l: number, rowStamp: number, seenStamp: number): void {
    const b = this.rowBeg[i];
    let len = this.rowLen[i];
    for (let k = b; k < b + len; k++) {
      const j = this.rIdx[k];
      if (this.wMark[j] !== rowStamp) continue;
      this.seen[j] = seenStamp;
      const before = Math.abs(this.rVal[k]);
      const v = this.rVal[k] - l * this.wVal[j];
      this.rVal[k] = v;
      // the column's copy: the same operands (its value equals the row's, l_i, a_pj), so the same bits
      this.cVal[this.rPartner[k]] = v;
      this.columnEntryChanged(j, before, Math.abs(v) <= DROP_TOL ? 0 : Math.abs(v));
      if (Math.abs(v) <= DROP_TOL) {
        // cancellation: remove the entry from column j and row i
        this.removeColEntryAt(j, this.rPartner[k]);
        this.rowLen[i] = len;
        this.removeRowEntryAt(i, k);
        len--;
        k--;
        this.activeNnz--;
      }
    }
    this.rowLen[i] = len;
  }

  /**
   * The same update, row i's entries found in the patterns of the pivot row's columns. Each value is
   * computed from the same operands as by the row scan. The entries that cancel are then removed by
   * a scan of row i in the row scan's order (each moved-in entry examined again), so both pools end
   * with the entries in the very positions the row scan leaves: the next pivot searches, whose ties
   * follow those positions, choose alike.
   */
  private updateThroughColumns(i: number, l: number, pivotCols: Int32Array, from: number, to: number, rowStamp: number, seenStamp: number): void {
    const cancelAt = this.cancelAt;
    let cancelled = 0;
    for (let t = from; t < to; t++) {
      const j = pivotCols[t];
      const cb = this.colBeg[j];
      const ce = cb + this.colLen[j];
      for (let c = cb; c < ce; c++) {
        if (this.cIdx[c] !== i) continue;
        const k = this.cPartner[c];
        this.seen[j] = seenStamp;
        const before = Math.abs(this.rVal[k]);
        const v = this.rVal[k] - l * this.wVal[j];
        this.rVal[k] = v;
        this.cVal[c] = v;
        this.columnEntryChanged(j, before, Math.abs(v) <= DROP_TOL ? 0 : Math.abs(v));
        if (Math.abs(v) <= DROP_TOL) cancelAt[cancelled++] = k;
        break;
      }
    }
    if (cancelled === 0) return;
    // The row scan's removals replayed at the cancelled positions alone, in ascending order: between
    // them it only skips entries that stay; at a removal the row's last entry moves in and is examined
    // again (removed too if it cancelled). A later position the row has shrunk past is not reached.
    cancelAt.subarray(0, cancelled).sort();
    const b = this.rowBeg[i];
    for (let t = 0; t < cancelled; t++) {
      const k = cancelAt[t];
      while (k < b + this.rowLen[i]) {
        const j = this.rIdx[k];
        if (this.wMark[j] !== rowStamp || Math.abs(this.rVal[k]) > DROP_TOL) break;
        this.removeColEntryAt(j, this.rPartner[k]);
        this.removeRowEntryAt(i, k);
        this.activeNnz--;
      }
    }
  }

  private growRow(i: number): void {
    const need = Math.max(8, 2 * this.rowLen[i]);
    if (this.rEnd + need > this.rIdx.length) this.compactRows(need);
    const from = this.rowBeg[i];
    this.rIdx.copyWithin(this.rEnd, from, from + this.rowLen[i]);
    this.rVal.copyWithin(this.rEnd, from, from + this.rowLen[i]);
    this.rPartner.copyWithin(this.rEnd, from, from + this.rowLen[i]);
    for (let t = this.rEnd; t < this.rEnd + this.rowLen[i]; t++) this.cPartner[this.rPartner[t]] = t;
    this.rowBeg[i] = this.rEnd;
    this.rowCap[i] = need;
    this.rEnd += need;
  }

  private compactRows(extra: number): void {
    let used = 0;
    for (let i = 0; i < this.m; i++) if (!this.rowDone[i]) used += this.rowLen[i] + 4;
    const size = Math.max(this.rIdx.length, 2 * (used + extra));
    const idx = new Int32Array(size);
    const val = new Float64Array(size);
    const partner = new Int32Array(size);
    let end = 0;
    for (let i = 0; i < this.m; i++) {
      if (this.rowDone[i]) continue;
      const b = this.rowBeg[i];
      idx.set(this.rIdx.subarray(b, b + this.rowLen[i]), end);
      val.set(this.rVal.subarray(b, b + this.rowLen[i]), end);
      partner.set(this.rPartner.subarray(b, b + this.rowLen[i]), end);
      for (let t = end; t < end + this.rowLen[i]; t++) this.cPartner[partner[t]] = t;
      this.rowBeg[i] = end;
      this.rowCap[i] = this.rowLen[i] + 4;
      end += this.rowCap[i];
    }
    this.rIdx = idx;
    this.rVal = val;
    this.rPartner = partner;
    this.rEnd = end;
  }

  private growCol(j: number): void {
    const need = Math.max(8, 2 * this.colLen[j]);
    if (this.cEnd + need > this.cIdx.length) this.compactCols(need);
    const from = this.colBeg[j];
    this.cIdx.copyWithin(this.cEnd, from, from + this.colLen[j]);
    this.cVal.copyWithin(this.cEnd, from, from + this.colLen[j]);
    this.cPartner.copyWithin(this.cEnd, from, from + this.colLen[j]);
    for (let t = this.cEnd; t < this.cEnd + this.colLen[j]; t++) this.rPartner[this.cPartner[t]] = t;
    this.colBeg[j] = this.cEnd;
    this.colCap[j] = need;
    this.cEnd += need;
  }

  private compactCols(extra: number): void {
    let used = 0;
    for (let j = 0; j < this.m; j++) if (!this.colDone[j]) used += this.colLen[j] + 4;
    const size = Math.max(this.cIdx.length, 2 * (used + extra));
    const idx = new Int32Array(size);
    const val = new Float64Array(size);
    const partner = new Int32Array(size);
    let end = 0;
    for (let j = 0; j < this.m; j++) {
      if (this.colDone[j]) continue;
      const b = this.colBeg[j];
      idx.set(this.cIdx.subarray(b, b + this.colLen[j]), end);
      val.set(this.cVal.subarray(b, b + this.colLen[j]), end);
      partner.set(this.cPartner.subarray(b, b + this.colLen[j]), end);
      for (let t = end; t < end + this.colLen[j]; t++) this.rPartner[partner[t]] = t;
      this.colBeg[j] = end;
      this.colCap[j] = this.colLen[j] + 4;
      end += this.colCap[j];
    }
    this.cIdx = idx;
    this.cVal = val;
    this.cPartner = partner;
    this.cEnd = end;
  }
}
