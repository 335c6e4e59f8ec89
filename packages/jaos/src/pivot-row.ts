/**
 * PRICE: the pivot row ρᵀ[A I] of the dual simplex (ρ = e_rᵀB⁻¹ from BTRAN, by row), the list of its
 * nonzero columns and, for the dual ratio test, the candidates among them. One iteration's most
 * expensive step after the FTRANs on LPs with many more columns than rows, so three passes, chosen
 * by ρ's density, each cheapest in its range:
 *
 * - row-wise (`pivotRowByRows`, ρ sparse: under 0.4 m nonzeros): only ρ's rows of the row-wise copy
 *   are read, and in them only the nonbasic columns' entries; columns listed in first-touch order.
 * - dense by rows (`pivotRowDense`, ρ dense, A's columns stored by increasing row and ρ's rows listed
 *   increasing): ρ's rows are added into the dense row without a list, then one scan in column order
 *   lists it; the same products in the same order as the column-wise pass, so the same values, list
 *   and candidates bit for bit, at a scatter's cost per entry of ρ's rows instead of a gather's per
 *   nonbasic entry.
 * - column-wise (`pivotRowByColumns`, ρ dense otherwise): one dot product per nonbasic column.
 * - dense result (`pivotRowDenseResult`, ρ sparse, the dual's ratio test only): when ρ's rows hold
 *   more than DENSE_RESULT_TOUCHES·n nonbasic entries the row is dense (osa-14: ~46k of 52k columns
 *   listed), and tracking first touches, then reading the list in that scattered order (the
 *   candidates, the dual step), costs more than one scan of n. Same sums, same candidates in the same
 *   order as the row-wise pass (so the same path); only the list is in column order.
 *
 * The row-wise passes read the partitioned copy (sparse-partitioned.ts), re-partitioned here when
 * the simplex state marks it stale. The hot loops read the arrays and the status values through
 * locals (an imported constant is a load at each use: a per-column loop comparing with imported
 * statuses ran about 30 % slower in isolation) and admit candidates without branches on data the
 * CPU cannot predict.
 */
import { AT_LOWER, AT_UPPER, BASIC } from "./basis-status.js";
import type { CscMatrix } from "./sparse.js";
import type { PartitionedRows } from "./sparse-partitioned.js";

/**
 * Row-wise touches, as a fraction of n, above which the dual's pivot row is accumulated without a list
 * and listed by a scan (docs/decisions.md, lpbig): the scan reads every column's status and bounds and
 * the candidates take a second pass, so it pays only once the touches exceed n (at 0.5, cre-b, cre-d,
 * model7 and nemspmm2 ran 3-5 % slower; at 0.1, HiGHS's own switch density, cre-d 7 %).
 */
const DENSE_RESULT_TOUCHES = 1;

/** Index of a float64's high (sign and exponent) 32-bit word in an Int32Array view of its bytes. */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** What the passes read from the simplex state (SimplexState is one). */
export interface PricingSource {
  readonly m: number;
  readonly n: number;
  readonly total: number;
  readonly a: CscMatrix;
  /** Row-wise A with each row's nonbasic columns first. */
  readonly rowWise: PartitionedRows;
  readonly status: Int8Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** Read at each call (the simplex may change it). */
  readonly tol: { readonly pivot: number };
  /** False when `rowWise`'s partition no longer matches `status`; the row-wise passes redo it first. */
  partitionValid: boolean;
}

export class PivotRow {
  /** The last pivot row ρᵀ[A I]; exact zeros outside `list`. Entries of basic columns are not used. */
  readonly row: Float64Array;
  /** Columns with a (possibly) nonzero entry in the last pivot row: list[0 .. count). */
  readonly list: Int32Array;
  count = 0;
  /** Ratio-test candidates of the last call with s ≠ 0: candidates[0 .. candidateCount). */
  readonly candidates: Int32Array;
  candidateCount = 0;
  private readonly source: PricingSource;
  private readonly m: number;
  private readonly n: number;
  private readonly total: number;
  private readonly a: CscMatrix;
  private readonly status: Int8Array;
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly tol: { readonly pivot: number };
  /** row's 32-bit words (the row-wise pass reads a zero's sign bit there). */
  private readonly rowWords: Int32Array;
  /** Columns whose row-wise sum cancelled to 0 in the last pass (with repeats). */
  private readonly cancelled: Int32Array;
  /** ρ's nonzero rows when the caller does not supply them. */
  private readonly rhoRows: Int32Array;
  /** Columns admitted by the dense-result scan, not yet listed in first-touch order (all 0 between calls). */
  private readonly admitted: Uint8Array;
  /** True when every column of A lists its rows in increasing order (the dense row-wise pass needs it). */
  private readonly columnsSorted: boolean;

  constructor(source: PricingSource) {
    this.source = source;
    this.m = source.m;
    this.n = source.n;
    this.total = source.total;
    this.a = source.a;
    this.status = source.status;
    this.lower = source.lower;
    this.upper = source.upper;
    this.tol = source.tol;
    this.columnsSorted = columnsInRowOrder(source.a);
    this.row = new Float64Array(this.total);
    // the row-wise pass writes a slot at every touch, also once every column is listed
    this.list = new Int32Array(this.total + 1);
    this.rowWords = new Int32Array(this.row.buffer);
    this.cancelled = new Int32Array(this.total);
    this.rhoRows = new Int32Array(this.m);
    this.admitted = new Uint8Array(this.n);
    this.candidates = new Int32Array(this.total);
  }

  /**
   * row := ρᵀ[A I] (ρ by row) and the list of its nonzero columns; with the leaving direction s (±1)
   * also the ratio-test candidates (nonbasic, not fixed, α_j of the sign that lets d_j reach zero) in
   * list order; s = 0: none. Row-wise (list in first-touch order) when ρ is sparse, else in column
   * order. Callers that know ρ's nonzero rows (in increasing order, as BTRAN lists them) pass them
   * (rhoCount ≥ 0) to skip the scan of ρ. The column-wise passes list candidates as they go, the
   * row-wise one after the row is complete.
   */
  compute(rho: Float64Array, rhoCount: number, rhoNonzeros: Int32Array | undefined, s: number): Float64Array {
    const out = this.row;
    const list = this.list;
    // the last row is cleared through its list, or wholesale (one sequential pass) when it was dense
    if (this.count > this.total >> 3) out.fill(0);
    else for (let k = 0; k < this.count; k++) out[list[k]] = 0;
    let rows = rhoNonzeros;
    let nnz = rhoCount;
    if (rows === undefined || nnz < 0) {
      rows = this.rhoRows;
      nnz = 0;
      for (let i = 0; i < this.m; i++) if (rho[i] !== 0) rows[nnz++] = i;
    }
    if (nnz < 0.4 * this.m) {
      // a dense result: the row-wise pass's sums, listed by one scan in column order (see the header)
      if (s !== 0 && this.touchesOfRows(nnz, rows) > DENSE_RESULT_TOUCHES * this.n) this.count = this.pivotRowDenseResult(rho, nnz, rows, s);
      else {
        this.count = this.pivotRowByRows(rho, nnz, rows);
        if (s !== 0) this.candidateCount = this.collectCandidates(s);
      }
    } else if (this.columnsSorted && increasing(rows, nnz)) this.count = this.pivotRowDense(rho, nnz, rows, s);
    else this.count = this.pivotRowByColumns(rho, nnz, rows, s);
    return out;
  }

  /** Entries of the nonbasic columns in ρ's rows: the row-wise passes' touches. */
  private touchesOfRows(rhoCount: number, rhoRows: Int32Array): number {
    const { start, nonbasicEnd } = this.partitionedRows();
    let touches = 0;
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      touches += nonbasicEnd[i] - start[i];
    }
    return touches;
  }

  /** The row-wise copy, re-partitioned first when the basic set changed outside its updates. */
  private partitionedRows(): PartitionedRows {
    const source = this.source;
    const ar = source.rowWise;
    if (!source.partitionValid) {
      ar.partition(this.status, BASIC);
      source.partitionValid = true;
    }
    return ar;
  }

  /**
   * ρᵀA through the row-wise matrix, touching only the rows listed and in them only the nonbasic
   * columns (basic columns' entries are never read); returns the list length. A column is listed at
   * its first touch (the ratio test breaks ties by this order). The entry's own value tells a first
   * touch: out[j] is +0 until then. The list slot is written at every touch and kept (count += 1)
   * only at a +0, without a branch: on a dense row about half the touches are first touches in no
   * pattern the CPU can predict, and the mispredicted branch was most of the pass's time. A sum that
   * cancels to exactly 0 is stored as −0 (x + −0 = x, so later sums are unchanged, and −0 is not
   * +0, so its next touch does not list it again; the sign bit is read through the integer view of
   * the row) and set back to +0 after the pass.
   */
  private pivotRowByRows(rho: Float64Array, rhoCount: number, rhoRows: Int32Array): number {
    const n = this.n;
    const ar = this.partitionedRows();
    const nonbasicEnd = ar.nonbasicEnd;
    const out = this.row;
    const outWords = this.rowWords;
    const list = this.list;
    const cancelled = this.cancelled;
    const capacity = cancelled.length;
    let cancelCount = 0;
    let count = 0;
    const { start, index, value } = ar;
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      const r = rho[i];
      const e = nonbasicEnd[i];
      for (let p = start[i]; p < e; p++) {
        const j = index[p];
        const old = out[j];
        list[count] = j;
        // +0 ⇔ equal to 0 with the sign bit (the high word's) clear
        count += +(old === 0) & +(outWords[2 * j + HIGH_WORD] >= 0);
        const v = old + r * value[p];
        if (v === 0) {
          out[j] = -0;
          if (cancelCount < capacity) cancelled[cancelCount] = j;
          cancelCount++;
        } else out[j] = v;
      }
      out[n + i] = r;
      list[count++] = n + i;
    }
    if (cancelCount > capacity) for (let k = 0; k < count; k++) out[list[k]] += 0;
    else for (let k = 0; k < cancelCount; k++) out[cancelled[k]] += 0;
    return count;
  }

  /**
   * `pivotRowByColumns` computed through the row-wise matrix: ρ's rows are added into the dense row
   * without a list, then one scan in column order lists the nonzero columns and the candidates. Each
   * column's sum takes the same products in the same order as its column-wise dot product (ρ's rows
   * increasing, each column's entries by increasing row: the caller checks both), so the values, the
   * list and the candidates are the column-wise pass's, bit for bit; the work is the entries of ρ's
   * rows (on the rail LPs 55–60 % of the nonbasic entries) at a scatter's cost plus a sequential scan
   * of n, against every nonbasic entry at a gather's. The scan admits a candidate by its sign without
   * a branch: a > tol unless at the upper bound, a < −tol unless at the lower (free: either; basic: α
   * is 0 and fails both) — the same test as the side-then-ternary form, whose branches on the status
   * and the sign the CPU mispredicts where statuses mix (the scan is ~10 % of nemspmm2's and model7's
   * solve; this form ran them 2–3 % faster, docs/bench/jaos.md lpprice6).
   */
  private pivotRowDense(rho: Float64Array, rhoCount: number, rhoRows: Int32Array, s: number): number {
    const { n, status, lower, upper } = this;
    const out = this.row;
    const list = this.list;
    const cand = this.candidates;
    const tol = this.tol.pivot;
    const atLower = AT_LOWER;
    const atUpper = AT_UPPER;
    this.addRhoRows(rho, rhoCount, rhoRows);
    // basic columns were not touched (0): neither listed nor admitted
    let count = 0;
    let nc = 0;
    for (let j = 0; j < n; j++) {
      const v = out[j];
      list[count] = j;
      count += +(v !== 0);
      const a = s * v;
      const sj = status[j];
      // the sign test without a branch (see the method's comment)
      cand[nc] = j;
      nc += ((+(a > tol) & +(sj !== atUpper)) | (+(a < -tol) & +(sj !== atLower))) & +(lower[j] !== upper[j]);
    }
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      out[n + i] = rho[i];
      list[count++] = n + i;
      if (s !== 0 && this.admitsRatio(n + i, s * rho[i])) cand[nc++] = n + i;
    }
    this.candidateCount = nc;
    return count;
  }

  /**
   * ρ's rows added into the row (their nonbasic entries, ρ's rows in the given order), without a list:
   * the dense passes' shared scatter. Unrolled by four (V8 does not unroll): each entry still its own
   * load, multiply, add and store in index order, so the sums are the rolled loop's bit for bit.
   */
  private addRhoRows(rho: Float64Array, rhoCount: number, rhoRows: Int32Array): void {
    const { start, index, value, nonbasicEnd } = this.partitionedRows();
    const out = this.row;
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      const r = rho[i];
      const e = nonbasicEnd[i];
      let p = start[i];
      for (const e4 = e - 3; p < e4; p += 4) {
        const j0 = index[p];
        out[j0] += r * value[p];
        const j1 = index[p + 1];
        out[j1] += r * value[p + 1];
        const j2 = index[p + 2];
        out[j2] += r * value[p + 2];
        const j3 = index[p + 3];
        out[j3] += r * value[p + 3];
      }
      for (; p < e; p++) out[index[p]] += r * value[p];
    }
  }

  /**
   * A sparse ρ whose pivot row is dense: `pivotRowByRows`'s sums (ρ's rows added in the given order,
   * without first-touch tracking), the list by one scan in column order, and the candidates in
   * `pivotRowByRows`'s first-touch order — the order the ratio test breaks its ties by — so the dual's
   * path is the row-wise pass's: the scan marks the admitted columns and a second pass over ρ's rows'
   * column indices lists each mark at its first touch, each row's logical after the row's entries. The
   * list's order differs, which only the dual step reads (one update per entry, any order).
   */
  private pivotRowDenseResult(rho: Float64Array, rhoCount: number, rhoRows: Int32Array, s: number): number {
    const { n, status, lower, upper } = this;
    const out = this.row;
    const list = this.list;
    const cand = this.candidates;
    const admitted = this.admitted;
    const tol = this.tol.pivot;
    const atLower = AT_LOWER;
    const atUpper = AT_UPPER;
    this.addRhoRows(rho, rhoCount, rhoRows);
    const { start, index, nonbasicEnd } = this.partitionedRows();
    let count = 0;
    for (let j = 0; j < n; j++) {
      const v = out[j];
      list[count] = j;
      count += +(v !== 0);
      const signedAlpha = s * v;
      const sj = status[j];
      const side = sj === atLower ? 1 : sj === atUpper ? -1 : 0;
      const signOk = side !== 0 ? side * signedAlpha > tol : Math.abs(signedAlpha) > tol;
      admitted[j] = +signOk & +(lower[j] !== upper[j]);
    }
    let nc = 0;
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      const e = nonbasicEnd[i];
      for (let p = start[i]; p < e; p++) {
        const j = index[p];
        if (admitted[j] !== 0) {
          admitted[j] = 0;
          cand[nc++] = j;
        }
      }
      out[n + i] = rho[i];
      list[count++] = n + i;
      if (this.admitsRatio(n + i, s * rho[i])) cand[nc++] = n + i;
    }
    this.candidateCount = nc;
    return count;
  }

  /**
   * ρᵀa_j column by column for the nonbasic columns (ρ dense); returns the list length. With s ≠ 0
   * the ratio-test candidates are listed in the same pass.
   */
  private pivotRowByColumns(rho: Float64Array, rhoCount: number, rhoRows: Int32Array, s: number): number {
    const { n, a, status, lower, upper } = this;
    const { start, index, value } = a;
    const out = this.row;
    const list = this.list;
    const cand = this.candidates;
    const tol = this.tol.pivot;
    const basic = BASIC;
    const atLower = AT_LOWER;
    const atUpper = AT_UPPER;
    let count = 0;
    let nc = 0;
    for (let j = 0; j < n; j++) {
      const sj = status[j];
      if (sj === basic) continue;
      let v = 0;
      const e = start[j + 1];
      for (let p = start[j]; p < e; p++) v += value[p] * rho[index[p]];
      if (v !== 0) {
        out[j] = v;
        list[count++] = j;
        // admitsRatio without a branch on α's sign (on the rail LPs about half the listed columns
        // pass, in no pattern a branch predictor follows): the slot is written, kept when admitted
        const signedAlpha = s * v;
        const side = sj === atLower ? 1 : sj === atUpper ? -1 : 0;
        const signOk = side !== 0 ? side * signedAlpha > tol : Math.abs(signedAlpha) > tol;
        cand[nc] = j;
        nc += +signOk & +(lower[j] !== upper[j]);
      }
    }
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      out[n + i] = rho[i];
      list[count++] = n + i;
      if (s !== 0 && this.admitsRatio(n + i, s * rho[i])) cand[nc++] = n + i;
    }
    this.candidateCount = nc;
    return count;
  }

  /** Ratio-test candidates among the listed columns of the row just computed (in list order): `admitsRatio` inlined. */
  private collectCandidates(s: number): number {
    const { status, lower, upper } = this;
    const out = this.row;
    const list = this.list;
    const cand = this.candidates;
    const count = this.count;
    const tol = this.tol.pivot;
    const basic = BASIC;
    const atLower = AT_LOWER;
    const atUpper = AT_UPPER;
    let nc = 0;
    for (let k = 0; k < count; k++) {
      const j = list[k];
      const sj = status[j];
      if (sj === basic) continue;
      const a = s * out[j];
      if (!(sj === atLower ? a > tol : sj === atUpper ? a < -tol : Math.abs(a) > tol)) continue;
      if (lower[j] !== upper[j]) cand[nc++] = j;
    }
    return nc;
  }

  /** Nonbasic j (not fixed) whose d_j − t·a_j (a = s·α_j) reaches zero for some t ≥ 0, |a| above the pivot tolerance. */
  private admitsRatio(j: number, a: number): boolean {
    const sj = this.status[j];
    if (sj === BASIC) return false;
    const tol = this.tol.pivot;
    // the sign test first: most entries fail it, and then the bounds are not read
    if (!(sj === AT_LOWER ? a > tol : sj === AT_UPPER ? a < -tol : Math.abs(a) > tol)) return false;
    return this.lower[j] !== this.upper[j];
  }
}

/** list[0 .. count) strictly increasing. */
function increasing(list: Int32Array, count: number): boolean {
  for (let c = 1; c < count; c++) if (list[c] <= list[c - 1]) return false;
  return true;
}

/** Every column's row indices strictly increasing. */
function columnsInRowOrder(a: CscMatrix): boolean {
  for (let j = 0; j < a.cols; j++) for (let p = a.start[j] + 1; p < a.start[j + 1]; p++) if (a.index[p] <= a.index[p - 1]) return false;
  return true;
}
