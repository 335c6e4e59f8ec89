/**
 * Compressed sparse matrices. The constraint matrix is kept both column-wise (FTRAN of an entering
 * column, primal pricing) and row-wise (the dual simplex pivot row ρᵀA touches only rows where ρ ≠ 0).
 */

/** Column-compressed: column j holds entries start[j] .. start[j+1]-1, `index` holds row numbers. */
export interface CscMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly start: Int32Array;
  readonly index: Int32Array;
  readonly value: Float64Array;
}

/** Row-compressed: row i holds entries start[i] .. start[i+1]-1, `index` holds column numbers. */
export interface CsrMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly start: Int32Array;
  readonly index: Int32Array;
  readonly value: Float64Array;
}

/**
 * Column-wise matrix from triplets (row, col, value). Duplicates are summed and exact zeros dropped;
 * within a column, entries are sorted by row so that the result does not depend on input order.
 */
export function cscFromTriplets(rows: number, cols: number, rowIdx: ArrayLike<number>, colIdx: ArrayLike<number>, value: ArrayLike<number>): CscMatrix {
  const count = new Int32Array(cols + 1);
  for (let k = 0; k < colIdx.length; k++) count[colIdx[k]! + 1]++;
  for (let j = 0; j < cols; j++) count[j + 1] += count[j];
  const index = new Int32Array(colIdx.length);
  const val = new Float64Array(colIdx.length);
  const fill = count.slice(0, cols);
  for (let k = 0; k < colIdx.length; k++) {
    const at = fill[colIdx[k]!]++;
    index[at] = rowIdx[k]!;
    val[at] = value[k]!;
  }
  const start = new Int32Array(cols + 1);
  const outIndex = new Int32Array(colIdx.length);
  const outValue = new Float64Array(colIdx.length);
  const slot = new Int32Array(rows);
  const owner = new Int32Array(rows).fill(-1); // column that last used slot[i]
  let nz = 0;
  for (let j = 0; j < cols; j++) {
    const begin = nz;
    for (let k = count[j]; k < count[j + 1]; k++) {
      const i = index[k];
      if (owner[i] === j) outValue[slot[i]] += val[k];
      else {
        owner[i] = j;
        slot[i] = nz;
        outIndex[nz] = i;
        outValue[nz] = val[k];
        nz++;
      }
    }
    sortByIndex(outIndex, outValue, begin, nz);
    let w = begin;
    for (let k = begin; k < nz; k++) {
      if (outValue[k] !== 0) {
        outIndex[w] = outIndex[k];
        outValue[w] = outValue[k];
        w++;
      }
    }
    nz = w;
    start[j + 1] = nz;
  }
  return { rows, cols, start, index: outIndex.slice(0, nz), value: outValue.slice(0, nz) };
}

/** Insertion sort of one slice by index (slices are matrix columns: short, often already sorted). */
function sortByIndex(index: Int32Array, value: Float64Array, begin: number, end: number): void {
  for (let k = begin + 1; k < end; k++) {
    const i = index[k];
    const v = value[k];
    let p = k - 1;
    while (p >= begin && index[p] > i) {
      index[p + 1] = index[p];
      value[p + 1] = value[p];
      p--;
    }
    index[p + 1] = i;
    value[p + 1] = v;
  }
}

/** The same matrix, row-compressed (entries of a row come out in column order). */
export function toRowWise(a: CscMatrix): CsrMatrix {
  const nnz = a.start[a.cols];
  const start = new Int32Array(a.rows + 1);
  for (let k = 0; k < nnz; k++) start[a.index[k] + 1]++;
  for (let i = 0; i < a.rows; i++) start[i + 1] += start[i];
  const fill = start.slice(0, a.rows);
  const index = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  for (let j = 0; j < a.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const at = fill[a.index[k]]++;
      index[at] = j;
      value[at] = a.value[k];
    }
  }
  return { rows: a.rows, cols: a.cols, start, index, value };
}

/** The same matrix, column-compressed. */
export function toColumnWise(a: CsrMatrix): CscMatrix {
  const t = toRowWise({ rows: a.cols, cols: a.rows, start: a.start, index: a.index, value: a.value });
  return { rows: a.rows, cols: a.cols, start: t.start, index: t.index, value: t.value };
}
