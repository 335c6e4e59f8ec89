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
  /** Scratch of `addScaledRow`: a column's position in the row being added to, −1 elsewhere. */
  private rowPosition: Int32Array | undefined;

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
   * Row r += factor·(cols, coefs) over the given columns: `add(r, cols[s], −factor·coefs[s])` for each s
   * in order, with the same list edits in the same order (so the same matrix to the bit), but row r's
   * positions are found once instead of by a scan of the row per entry: free column substitution adds
   * its pivot row into rows that fill-in has made long (pds-20: 594,000 additions scanning 26 million
   * row entries). `colCount[cols[s]]` takes each entry's change; returns the row's net change.
   */
  addScaledRow(r: number, cols: number[], coefs: number[], factor: number, colCount: Int32Array): number {
    const ri = this.rowIdx[r];
    const rv = this.rowVal[r];
    if (this.rowPosition === undefined) this.rowPosition = new Int32Array(this.colIdx.length).fill(-1);
    const pos = this.rowPosition;
    let duplicate = false;
    for (let t = 0; t < ri.length && !duplicate; t++) {
      if (pos[ri[t]] >= 0) duplicate = true;
      else pos[ri[t]] = t;
    }
    let change = 0;
    if (duplicate) {
      // a row listing a column twice (never made by this class): positions are not unique, scan as add does
      for (let t = 0; t < ri.length; t++) pos[ri[t]] = -1;
      for (let s = 0; s < cols.length; s++) {
        const c = this.add(r, cols[s], -factor * coefs[s]);
        change += c;
        colCount[cols[s]] += c;
      }
      return change;
    }
    for (let s = 0; s < cols.length; s++) {
      const j = cols[s];
      const delta = -factor * coefs[s];
      const at = pos[j];
      if (at < 0) {
        pos[j] = ri.length;
        ri.push(j);
        rv.push(delta);
        this.colIdx[j].push(r);
        this.colVal[j].push(delta);
        change++;
        colCount[j]++;
        continue;
      }
      const old = rv[at];
      const value = old + delta;
      const cat = this.colIdx[j].indexOf(r);
      if (Math.abs(value) <= CANCEL * Math.max(Math.abs(old), Math.abs(delta))) {
        // removeAt moves the row's last entry into the freed position
        pos[ri[ri.length - 1]] = at;
        pos[j] = -1;
        removeAt(ri, rv, at);
        removeAt(this.colIdx[j], this.colVal[j], cat);
        change--;
        colCount[j]--;
        continue;
      }
      rv[at] = value;
      this.colVal[j][cat] = value;
    }
    for (let t = 0; t < ri.length; t++) pos[ri[t]] = -1;
    return change;
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
 * Members grouped by a hash key: `shared` lists the groups of two or more, in the order their keys were
 * first added, each with its members in the order added (what a Map from key to member list gives).
 * Typed arrays and one open-addressing table instead of a Map entry per key: most keys are seen once
 * (pds-20: 100k columns), and the Map and its lists were most of what the parallel row and column
 * passes allocated, in every presolve pass.
 */
export class KeyGroups {
  private readonly keys: Int32Array;
  private readonly members: Int32Array;
  private count = 0;

  constructor(capacity: number) {
    this.keys = new Int32Array(capacity);
    this.members = new Int32Array(capacity);
  }

  /** `key` an int32 (a hash made with `| 0`). */
  add(key: number, member: number): void {
    this.keys[this.count] = key;
    this.members[this.count++] = member;
  }

  /** Group g of the shared ones is member[start[g] .. start[g + 1]). */
  shared(): { start: Int32Array; member: Int32Array } {
    const n = this.count;
    let bits = 1;
    while (1 << bits < 2 * n) bits++;
    const mask = (1 << bits) - 1;
    const slotKey = new Int32Array(mask + 1);
    const slotGroup = new Int32Array(mask + 1).fill(-1);
    const groupOf = new Int32Array(n);
    const size = new Int32Array(n);
    let groups = 0;
    for (let t = 0; t < n; t++) {
      const key = this.keys[t];
      let slot = Math.imul(key, 0x9e3779b1) >>> (32 - bits);
      while (slotGroup[slot] >= 0 && slotKey[slot] !== key) slot = (slot + 1) & mask;
      if (slotGroup[slot] < 0) {
        slotGroup[slot] = groups++;
        slotKey[slot] = key;
      }
      groupOf[t] = slotGroup[slot];
      size[groupOf[t]]++;
    }
    // each shared group's next free position, in the order of the groups' ids (first seen)
    const next = new Int32Array(groups).fill(-1);
    let shared = 0;
    let total = 0;
    for (let g = 0; g < groups; g++) {
      if (size[g] < 2) continue;
      next[g] = total;
      total += size[g];
      shared++;
    }
    const start = new Int32Array(shared + 1);
    for (let g = 0, s = 0; g < groups; g++) if (size[g] >= 2) start[++s] = next[g] + size[g];
    const member = new Int32Array(total);
    for (let t = 0; t < n; t++) {
      const g = groupOf[t];
      if (next[g] >= 0) member[next[g]++] = this.members[t];
    }
    return { start, member };
  }
}
