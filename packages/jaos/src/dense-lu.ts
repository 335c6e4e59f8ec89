/**
 * Dense kernel for the last part of the basis LU: once the active submatrix of the Markowitz elimination
 * is dense enough, its sparse bookkeeping (patterns, count buckets, fill-in moves) costs more than the
 * arithmetic it saves, so the remaining block is copied into a row-major Float64Array and eliminated
 * there with the same rules: Markowitz cost over the few sparsest columns (nonzero counts kept through
 * the elimination), threshold 0.1 on the column maximum. Partial pivoting alone (largest entry, columns
 * in a fixed order) was faster per step but added a quarter more fill on pilot87's bases, which every
 * FTRAN and BTRAN then pays. Each pivot row's nonzeros are gathered once, so a row update touches
 * only those columns, and rows with a zero multiplier are skipped.
 */
import type { GrowableF64, GrowableI32 } from "./growable.js";

/** Columns searched per pivot. */
const DENSE_SEARCH = 4;

/** Where elimination steps go: the same arrays the sparse phase fills (see markowitz.ts). */
export interface FactorOutput {
  pivotRow: Int32Array;
  pivotCol: Int32Array;
  pivotValue: Float64Array;
  lStart: Int32Array;
  lIndex: GrowableI32;
  lValue: GrowableF64;
  uStart: Int32Array;
  uIndex: GrowableI32;
  uValue: GrowableF64;
}

/**
 * Eliminates the dense block `a` (rows × cols, row-major; block row r is row rowId[r] of B, block
 * column c is basis position colId[c]) into `out` from elimination step `step` on. Columns whose
 * remaining entries are all at most `pivotAbsTol` are appended to `deficient`; entries at most `dropTol`
 * are not stored. Returns the next step.
 */
export function eliminateDense(
  a: Float64Array,
  rows: number,
  cols: number,
  rowId: Int32Array,
  colId: Int32Array,
  out: FactorOutput,
  step: number,
  deficient: number[],
  threshold: number,
  pivotAbsTol: number,
  dropTol: number,
): number {
  // nonzero counts (upper bounds: an entry that cancels to zero is still counted)
  const rowCount = new Int32Array(rows);
  const colCount = new Int32Array(cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0, b = r * cols; c < cols; c++) {
      if (a[b + c] !== 0) {
        rowCount[r]++;
        colCount[c]++;
      }
    }
  }
  const rowDone = new Uint8Array(rows);
  const colDone = new Uint8Array(cols);
  const nzCol = new Int32Array(cols);
  const nzVal = new Float64Array(cols);
  const candidates = new Int32Array(DENSE_SEARCH);
  const gatherRow = new Int32Array(DENSE_SEARCH * rows);
  const gatherAbs = new Float64Array(DENSE_SEARCH * rows);
  const gatherLen = new Int32Array(DENSE_SEARCH);
  let remaining = cols;
  while (remaining > 0) {
    // Markowitz on dense storage: among the DENSE_SEARCH sparsest columns, the entry within the
    // threshold whose row is sparsest, by (row count − 1)·(column count − 1)
    let found = 0;
    for (let j = 0; j < cols; j++) {
      if (colDone[j]) continue;
      if (found === DENSE_SEARCH) {
        if (colCount[j] >= colCount[candidates[found - 1]]) continue;
        found--;
      }
      let at = found++;
      while (at > 0 && colCount[candidates[at - 1]] > colCount[j]) {
        candidates[at] = candidates[at - 1];
        at--;
      }
      candidates[at] = j;
    }
    let c = -1;
    let p = -1;
    let cAt = -1;
    let bestCost = Infinity;
    let bestAbs = 0;
    for (let t = 0; t < found; t++) {
      const j = candidates[t];
      // one strided pass gathers the column's nonzeros; the threshold pass and, for the chosen
      // column, the elimination read the compact copy
      const base = t * rows;
      let len = 0;
      let cmax = 0;
      for (let r = 0; r < rows; r++) {
        if (rowDone[r]) continue;
        const v = a[r * cols + j];
        if (v === 0) continue;
        const av = Math.abs(v);
        gatherRow[base + len] = r;
        gatherAbs[base + len++] = av;
        if (av > cmax) cmax = av;
      }
      gatherLen[t] = len;
      if (cmax <= pivotAbsTol) {
        colDone[j] = 1;
        deficient.push(colId[j]);
        remaining--;
        continue;
      }
      const floor = Math.max(threshold * cmax, pivotAbsTol);
      for (let k = base; k < base + len; k++) {
        const v = gatherAbs[k];
        if (v < floor) continue;
        const r = gatherRow[k];
        const cost = (rowCount[r] - 1) * (colCount[j] - 1);
        if (cost < bestCost || (cost === bestCost && v > bestAbs)) {
          c = j;
          cAt = t;
          p = r;
          bestCost = cost;
          bestAbs = v;
        }
      }
    }
    if (c < 0) continue;
    colDone[c] = 1;
    remaining--;
    rowDone[p] = 1;
    const pb = p * cols;
    const piv = a[pb + c];
    out.pivotRow[step] = rowId[p];
    out.pivotCol[step] = colId[c];
    out.pivotValue[step] = piv;
    let nz = 0;
    for (let j = 0; j < cols; j++) {
      const v = a[pb + j];
      if (colDone[j] || v === 0) continue;
      colCount[j]--;
      if (v > dropTol || v < -dropTol) {
        nzCol[nz] = j;
        nzVal[nz++] = v;
        out.uIndex.push(colId[j]);
        out.uValue.push(v);
      }
    }
    out.uStart[step + 1] = out.uIndex.length;
    for (let k = cAt * rows, e = k + gatherLen[cAt]; k < e; k++) {
      const r = gatherRow[k];
      if (r === p) continue;
      const ib = r * cols;
      const v = a[ib + c];
      rowCount[r]--;
      if (v <= dropTol && v >= -dropTol) continue;
      const l = v / piv;
      out.lIndex.push(rowId[r]);
      out.lValue.push(l);
      let fill = 0;
      for (let k = 0; k < nz; k++) {
        const j = nzCol[k];
        const before = a[ib + j];
        if (before === 0) {
          fill++;
          colCount[j]++;
        }
        a[ib + j] = before - l * nzVal[k];
      }
      rowCount[r] += fill;
    }
    out.lStart[step + 1] = out.lIndex.length;
    step++;
  }
  return step;
}
