/**
 * A row-wise copy of the constraint matrix whose rows keep the entries of NONBASIC columns first
 * (positions start[i] .. nonbasicEnd[i]), so the row-wise pivot row ρᵀA skips basic columns, whose
 * entries the dual simplex never reads. A basis change moves one column's entries across the split of
 * each of its rows (one swap per entry), the scheme HiGHS's PRICE uses.
 */
import type { CscMatrix } from "./sparse.js";

export class PartitionedRows {
  readonly start: Int32Array;
  readonly index: Int32Array;
  readonly value: Float64Array;
  /** Row i's nonbasic entries are start[i] .. nonbasicEnd[i]-1. */
  readonly nonbasicEnd: Int32Array;
  private readonly a: CscMatrix;
  /** Row-wise position of each column-wise entry, and the inverse. */
  private readonly rowPos: Int32Array;
  private readonly colPos: Int32Array;

  constructor(a: CscMatrix) {
    this.a = a;
    const m = a.rows;
    const nnz = a.start[a.cols];
    this.start = new Int32Array(m + 1);
    for (let p = 0; p < nnz; p++) this.start[a.index[p] + 1]++;
    for (let i = 0; i < m; i++) this.start[i + 1] += this.start[i];
    this.index = new Int32Array(nnz);
    this.value = new Float64Array(nnz);
    this.rowPos = new Int32Array(nnz);
    this.colPos = new Int32Array(nnz);
    const fill = this.start.slice(0, m);
    for (let j = 0; j < a.cols; j++) {
      for (let p = a.start[j]; p < a.start[j + 1]; p++) {
        const q = fill[a.index[p]]++;
        this.index[q] = j;
        this.value[q] = a.value[p];
        this.rowPos[p] = q;
        this.colPos[q] = p;
      }
    }
    this.nonbasicEnd = this.start.slice(1);
  }

  /** Re-partitions every row: column j is basic when status[j] === basic. */
  partition(status: Int8Array, basic: number): void {
    const { start, index, nonbasicEnd } = this;
    for (let i = 0; i < this.a.rows; i++) {
      let end = start[i];
      for (let q = start[i]; q < start[i + 1]; q++) if (status[index[q]] !== basic) this.swap(q, end++);
      nonbasicEnd[i] = end;
    }
  }

  /** Structural column j became basic: its entries move behind each row's split. */
  columnToBasic(j: number): void {
    const { a, rowPos, nonbasicEnd } = this;
    for (let p = a.start[j]; p < a.start[j + 1]; p++) this.swap(rowPos[p], --nonbasicEnd[a.index[p]]);
  }

  /** Structural column j became nonbasic: its entries move in front of each row's split. */
  columnToNonbasic(j: number): void {
    const { a, rowPos, nonbasicEnd } = this;
    for (let p = a.start[j]; p < a.start[j + 1]; p++) this.swap(rowPos[p], nonbasicEnd[a.index[p]]++);
  }

  private swap(q: number, t: number): void {
    if (q === t) return;
    const { index, value, rowPos, colPos } = this;
    const j = index[q];
    index[q] = index[t];
    index[t] = j;
    const v = value[q];
    value[q] = value[t];
    value[t] = v;
    const p = colPos[q];
    colPos[q] = colPos[t];
    colPos[t] = p;
    rowPos[colPos[q]] = q;
    rowPos[p] = t;
  }
}
