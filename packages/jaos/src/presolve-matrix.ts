/**
 * The constraint matrix as presolve edits it: every row and every column a growable list of
 * (index, value), kept in step both ways. Substituting a column out of a doubleton equation changes
 * coefficients and adds new ones (fill-in), which the compressed forms of sparse.ts cannot hold.
 * Rows and columns that presolve removes stay in the lists; the presolver skips them by its own flags.
 */
import type { CscMatrix } from "./sparse.js";

/** A coefficient that cancels to below this (relative to the terms that made it) is an exact zero. */
const CANCEL = 1e-12;

export class PresolveMatrix {
  readonly rowIdx: number[][];
  readonly rowVal: number[][];
  readonly colIdx: number[][];
  readonly colVal: number[][];

  constructor(rows: number, a: CscMatrix) {
    // Every list is made at its exact length: a list grown by push from empty gets room for 17 or
    // more entries, and there are four lists per row and column (cre-b: 40 MB, mostly slack, copied
    // by each scavenge that promotes it).
    const rowLength = new Int32Array(rows);
    for (let k = 0; k < a.start[a.cols]; k++) rowLength[a.index[k]]++;
    this.rowIdx = new Array(rows);
    this.rowVal = new Array(rows);
    for (let i = 0; i < rows; i++) {
      this.rowIdx[i] = sizedList(rowLength[i]);
      this.rowVal[i] = sizedList(rowLength[i]);
    }
    const rowFilled = rowLength.fill(0);
    this.colIdx = new Array(a.cols);
    this.colVal = new Array(a.cols);
    for (let j = 0; j < a.cols; j++) {
      const first = a.start[j];
      const idx = sizedList(a.start[j + 1] - first);
      const val = sizedList(a.start[j + 1] - first);
      for (let k = first; k < a.start[j + 1]; k++) {
        const i = a.index[k];
        idx[k - first] = i;
        val[k - first] = a.value[k];
        const at = rowFilled[i]++;
        this.rowIdx[i][at] = j;
        this.rowVal[i][at] = a.value[k];
      }
      this.colIdx[j] = idx;
      this.colVal[j] = val;
    }
  }

  /** The coefficient of column j in row i (0 when absent). */
  get(i: number, j: number): number {
    const at = this.rowIdx[i].indexOf(j);
    return at < 0 ? 0 : this.rowVal[i][at];
  }

  /**
   * Adds delta to entry (i, j). Returns +1 when the entry is new, −1 when it cancelled (and was
   * removed from both lists), 0 when it only changed.
   */
  add(i: number, j: number, delta: number): -1 | 0 | 1 {
    const ri = this.rowIdx[i];
    const at = ri.indexOf(j);
    if (at < 0) {
      ri.push(j);
      this.rowVal[i].push(delta);
      this.colIdx[j].push(i);
      this.colVal[j].push(delta);
      return 1;
    }
    const old = this.rowVal[i][at];
    const value = old + delta;
    const cat = this.colIdx[j].indexOf(i);
    if (Math.abs(value) <= CANCEL * Math.max(Math.abs(old), Math.abs(delta))) {
      removeAt(ri, this.rowVal[i], at);
      removeAt(this.colIdx[j], this.colVal[j], cat);
      return -1;
    }
    this.rowVal[i][at] = value;
    this.colVal[j][cat] = value;
    return 0;
  }

  /**
   * The kept columns (in the order of `cols`) over the kept rows (`rowIndex` maps a row to its new
   * number, −1 if removed), column-compressed with rows ascending in each column.
   */
  compressed(cols: ArrayLike<number>, rowIndex: Int32Array, rows: number): CscMatrix {
    const start = new Int32Array(cols.length + 1);
    for (let c = 0; c < cols.length; c++) {
      const idx = this.colIdx[cols[c]];
      let count = 0;
      for (let t = 0; t < idx.length; t++) if (rowIndex[idx[t]] >= 0) count++;
      start[c + 1] = start[c] + count;
    }
    const index = new Int32Array(start[cols.length]);
    const value = new Float64Array(start[cols.length]);
    for (let c = 0; c < cols.length; c++) {
      const idx = this.colIdx[cols[c]];
      const val = this.colVal[cols[c]];
      const first = start[c];
      let end = first;
      for (let t = 0; t < idx.length; t++) {
        const r = rowIndex[idx[t]];
        if (r < 0) continue;
        // insertion keeps rows ascending (fill-in is appended out of order)
        let at = end++;
        while (at > first && index[at - 1] > r) {
          index[at] = index[at - 1];
          value[at] = value[at - 1];
          at--;
        }
        index[at] = r;
        value[at] = val[t];
      }
    }
    return { rows, cols: cols.length, start, index, value };
  }
}

/** Longest list made at its exact length; a longer `new Array(n)` would start in dictionary mode. */
const SIZED_LIST_MAX = 32768;

/** An array of n entries (holes until written) with room for exactly n when n is small enough. */
function sizedList(n: number): number[] {
  if (n <= SIZED_LIST_MAX) return new Array<number>(n);
  const list: number[] = [];
  for (let k = 0; k < n; k++) list.push(0);
  return list;
}

function removeAt(idx: number[], val: number[], at: number): void {
  const last = idx.length - 1;
  idx[at] = idx[last];
  val[at] = val[last];
  idx.pop();
  val.pop();
}

/**
 * Members grouped by a hash key, groups in the order their keys were first seen. A key seen once holds
 * its member bare: most keys are (pds-20: 100k columns), and an array per key was most of what the
 * parallel row and column passes allocated.
 */
export type KeyGroups = Map<number, number | number[]>;

export function addToGroup(groups: KeyGroups, key: number, member: number): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, member);
  else if (typeof group === "number") groups.set(key, [group, member]);
  else group.push(member);
}
