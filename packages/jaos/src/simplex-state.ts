/**
 * The state both simplex methods work on: the scaled LP in computational form
 *
 *     minimise cᵀx  subject to  [A I] x = 0,  lower ≤ x ≤ upper,
 *
 * with n structural columns followed by m logical columns (logical n+i = −(row i activity), bounds
 * [−rowUpper, −rowLower], the convention HiGHS uses), a basis, its LU factors, primal values x for
 * every variable and reduced costs d (zero on basic variables).
 *
 * `lower`, `upper` and `cost` are working copies: the algorithms change them (phase-1 boxes, cost
 * perturbation and shifts, branching bounds) and restore them from the model.
 */
import { LuFactor, MAX_UPDATES } from "./lu.js";
import type { LpModel } from "./model.js";
import { Rng } from "./rng.js";
import type { CscMatrix } from "./sparse.js";
import { PartitionedRows } from "./sparse-partitioned.js";

export const BASIC = 0;
export const AT_LOWER = 1;
export const AT_UPPER = 2;
/** A free nonbasic variable, held at zero. */
export const AT_ZERO = 3;

export interface Tolerances {
  primal: number;
  dual: number;
  /** Smallest |α| accepted as a ratio-test candidate. */
  pivot: number;
}

/** Index of a float64's high (sign and exponent) 32-bit word in an Int32Array view of its bytes. */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

export const DEFAULT_TOLERANCES: Tolerances = { primal: 1e-7, dual: 1e-7, pivot: 1e-9 };

export class SimplexState {
  readonly m: number;
  readonly n: number;
  readonly total: number;
  readonly model: LpModel;
  readonly a: CscMatrix;
  /** Row-wise A with each row's nonbasic columns first (for the row-wise pivot row). */
  readonly rowWise: PartitionedRows;
  /** False when the basic set changed outside `replaceBasic`; the partition is redone before use. */
  private partitionValid = false;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly cost: Float64Array;
  readonly x: Float64Array;
  readonly d: Float64Array;
  readonly status: Int8Array;
  readonly basicIndex: Int32Array;
  readonly lu: LuFactor;
  /** Dual steepest-edge weights ‖e_rᵀB⁻¹‖² by basis position (maintained by the dual simplex). */
  readonly dseWeight: Float64Array;
  readonly tol: Tolerances = { ...DEFAULT_TOLERANCES };
  iterations = 0;
  /** Seeded generator for perturbations (determinism). */
  readonly rng = new Rng(0x6a616f73);
  /** True while working costs differ from the model's (perturbation or shifts). */
  costsAltered = false;
  /** True while `lu` factors the current basis (possibly with updates). */
  factorValid = false;
  // scratch vectors
  /** The last pivot row ρᵀ[A I]; exact zeros outside `rowNz`. Entries of basic columns are not used. */
  readonly alphaRow: Float64Array;
  /** Columns with a (possibly) nonzero entry in the last pivot row: rowNz[0 .. rowNzCount). */
  readonly rowNz: Int32Array;
  rowNzCount = 0;
  /** alphaRow's 32-bit words (the row-wise pass reads a zero's sign bit there). */
  private readonly alphaRowWords: Int32Array;
  /** Columns whose row-wise sum cancelled to 0 in the last pass (with repeats). */
  private readonly cancelledColumns: Int32Array;
  /** ρ's nonzero rows when the caller does not supply them. */
  private readonly rhoRows: Int32Array;
  /** True when every column of A lists its rows in increasing order (the dense row-wise PRICE needs it). */
  private readonly columnsSorted: boolean;
  /** Work vectors of length m shared by the simplex loops (never live across a call). */
  readonly work: Float64Array[];
  /** Position lists of length m for the nonzeros of the work vectors (never live across a call). */
  readonly positionLists: Int32Array[];
  /** Squared primal infeasibility beyond the tolerance by basis position (kept by the dual simplex). */
  readonly infeasibilitySquared: Float64Array;
  /** Work lists of length m + n for ratio-test candidates and bound flips. */
  readonly candidates: Int32Array;
  readonly flipList: Int32Array;
  /** Ratio-test breakpoints by candidate slot (exact and Harris-relaxed). */
  readonly breakpoint: Float64Array;
  readonly breakpointRelaxed: Float64Array;
  /** Scratch of the dual ratio test's breakpoint heaps (breakpoint-heap.ts). */
  readonly ratioHeapT: Int32Array;
  readonly ratioHeapTr: Int32Array;
  readonly ratioTaken: Uint8Array;
  /** Number of variables in flipList after the last ratio test. */
  flipCount = 0;
  /** Ratio-test candidates of the last `pivotRowWithCandidates`: candidates[0 .. candidateCount). */
  candidateCount = 0;
  private readonly buildStart: Int32Array;
  private buildIndex: Int32Array;
  private buildValue: Float64Array;

  constructor(model: LpModel) {
    this.model = model;
    this.m = model.rows;
    this.n = model.cols;
    this.total = this.m + this.n;
    this.a = model.a;
    this.rowWise = new PartitionedRows(model.a);
    this.columnsSorted = columnsInRowOrder(model.a);
    this.lower = new Float64Array(this.total);
    this.upper = new Float64Array(this.total);
    this.cost = new Float64Array(this.total);
    this.x = new Float64Array(this.total);
    this.d = new Float64Array(this.total);
    this.status = new Int8Array(this.total);
    this.basicIndex = new Int32Array(this.m);
    this.lu = new LuFactor(this.m);
    this.dseWeight = new Float64Array(this.m).fill(1);
    this.alphaRow = new Float64Array(this.total);
    // the row-wise pass writes a slot at every touch, also once every column is listed
    this.rowNz = new Int32Array(this.total + 1);
    this.alphaRowWords = new Int32Array(this.alphaRow.buffer);
    this.cancelledColumns = new Int32Array(this.total);
    this.rhoRows = new Int32Array(this.m);
    this.work = Array.from({ length: 6 }, () => new Float64Array(this.m));
    this.positionLists = Array.from({ length: 4 }, () => new Int32Array(this.m));
    this.infeasibilitySquared = new Float64Array(this.m);
    this.candidates = new Int32Array(this.total);
    this.flipList = new Int32Array(this.total);
    this.breakpoint = new Float64Array(this.total);
    this.breakpointRelaxed = new Float64Array(this.total);
    this.ratioHeapT = new Int32Array(this.total);
    this.ratioHeapTr = new Int32Array(this.total);
    this.ratioTaken = new Uint8Array(this.total);
    this.buildStart = new Int32Array(this.m + 1);
    this.buildIndex = new Int32Array(model.a.index.length + this.m);
    this.buildValue = new Float64Array(model.a.index.length + this.m);
    this.restoreBounds();
    this.restoreCosts();
  }

  /** Working bounds := the model's (structural) and the rows' (logical). */
  restoreBounds(): void {
    const { n, m, model } = this;
    for (let j = 0; j < n; j++) {
      this.lower[j] = model.colLower[j];
      this.upper[j] = model.colUpper[j];
    }
    for (let i = 0; i < m; i++) {
      this.lower[n + i] = -model.rowUpper[i];
      this.upper[n + i] = -model.rowLower[i];
    }
  }

  restoreCosts(): void {
    this.cost.fill(0);
    this.cost.set(this.model.cost);
    this.costsAltered = false;
  }

  /** The value a nonbasic variable sits at, given its status. */
  nonbasicValue(j: number): number {
    const s = this.status[j];
    return s === AT_LOWER ? this.lower[j] : s === AT_UPPER ? this.upper[j] : 0;
  }

  /** A nonbasic status consistent with the bounds, preferring `preferred` when it is finite. */
  nonbasicStatusFor(j: number, preferred: number): number {
    const lo = this.lower[j];
    const up = this.upper[j];
    if (preferred === AT_UPPER && up < Infinity) return AT_UPPER;
    if (preferred === AT_LOWER && lo > -Infinity) return AT_LOWER;
    if (lo > -Infinity) return AT_LOWER;
    if (up < Infinity) return AT_UPPER;
    return AT_ZERO;
  }

  /** All logicals basic, structurals at a finite bound (the lower one first) or zero. */
  setSlackBasis(): void {
    const { n, m } = this;
    for (let j = 0; j < n; j++) this.status[j] = this.nonbasicStatusFor(j, AT_LOWER);
    for (let i = 0; i < m; i++) {
      this.basicIndex[i] = n + i;
      this.status[n + i] = BASIC;
    }
    this.dseWeight.fill(1);
    this.factorValid = false;
    this.partitionValid = false;
  }

  /**
   * Installs a basis from statuses (BASIC or a nonbasic status per variable). Returns false when the
   * number of basic variables is not m; the caller then starts from the slack basis.
   */
  setBasis(status: Int8Array): boolean {
    let k = 0;
    let same = this.factorValid;
    for (let j = 0; j < this.total; j++) {
      if (status[j] === BASIC) k++;
      if ((status[j] === BASIC) !== (this.status[j] === BASIC)) same = false;
    }
    if (k !== this.m) return false;
    if (same) {
      // the same basic set: keep the factors (and weights); only nonbasic sides may differ
      for (let j = 0; j < this.total; j++) if (status[j] !== BASIC) this.status[j] = this.nonbasicStatusFor(j, status[j]);
      return true;
    }
    this.factorValid = false;
    this.partitionValid = false;
    k = 0;
    for (let j = 0; j < this.total; j++) {
      if (status[j] === BASIC) {
        this.status[j] = BASIC;
        this.basicIndex[k++] = j;
      } else this.status[j] = this.nonbasicStatusFor(j, status[j]);
    }
    this.dseWeight.fill(1);
    return true;
  }

  /**
   * When every dual infeasibility sits on a boxed nonbasic variable, moves each such variable to its
   * other bound, which makes the basis dual feasible (the dual simplex and its bound-flipping ratio
   * test then start at once instead of the primal simplex or dual phase 1). Returns the number of
   * flips; 0 (and nothing changed) when some dual infeasible variable is not boxed. Primal values must
   * be recomputed after flips.
   */
  flipBoxedToDualFeasibility(): number {
    const tol = this.tol.dual;
    let flips = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let j = 0; j < this.total; j++) {
        const s = this.status[j];
        if (s === BASIC || this.lower[j] === this.upper[j]) continue;
        const dj = this.d[j];
        const wrong = s === AT_LOWER ? dj < -tol : s === AT_UPPER ? dj > tol : Math.abs(dj) > tol;
        if (!wrong) continue;
        const boxed = this.lower[j] > -Infinity && this.upper[j] < Infinity;
        if (pass === 0) {
          if (!boxed) return 0;
          continue;
        }
        this.status[j] = s === AT_LOWER ? AT_UPPER : AT_LOWER;
        flips++;
      }
    }
    return flips;
  }

  /** Re-derives nonbasic statuses after bounds changed (a status whose bound vanished is moved). */
  fixNonbasicStatuses(): void {
    for (let j = 0; j < this.total; j++) {
      const s = this.status[j];
      if (s !== BASIC) this.status[j] = this.nonbasicStatusFor(j, s);
    }
  }

  /**
   * Factorises the current basis. Dependent columns are swapped for the logicals of the rows the
   * factorisation left unpivoted (the repaired basis is always nonsingular). Returns the number of
   * columns replaced. Primal values and reduced costs must be recomputed afterwards.
   */
  refactor(): number {
    const { m, n, a } = this;
    let nz = 0;
    for (let k = 0; k < m; k++) {
      const j = this.basicIndex[k];
      this.buildStart[k] = nz;
      if (j < n) {
        for (let p = a.start[j]; p < a.start[j + 1]; p++) {
          this.buildIndex[nz] = a.index[p];
          this.buildValue[nz++] = a.value[p];
        }
      } else {
        this.buildIndex[nz] = j - n;
        this.buildValue[nz++] = 1;
      }
    }
    this.buildStart[m] = nz;
    const stats = this.lu.factorize(this.buildStart, this.buildIndex, this.buildValue);
    this.factorValid = true;
    const replaced = stats.deficientPositions.length;
    for (let t = 0; t < replaced; t++) {
      const k = stats.deficientPositions[t];
      const out = this.basicIndex[k];
      const logical = n + stats.replacementRows[t];
      this.status[out] = this.nonbasicStatusFor(out, Math.abs(this.x[out] - this.lower[out]) <= Math.abs(this.x[out] - this.upper[out]) ? AT_LOWER : AT_UPPER);
      this.basicIndex[k] = logical;
      this.status[logical] = BASIC;
      this.dseWeight[k] = 1;
    }
    if (replaced > 0) this.partitionValid = false;
    return replaced;
  }

  /** x_N at their bounds, x_B = −B⁻¹ N x_N. */
  computePrimal(): void {
    const { m, n, a, x } = this;
    const rhs = this.work[5];
    rhs.fill(0);
    for (let j = 0; j < this.total; j++) {
      if (this.status[j] === BASIC) continue;
      const v = this.nonbasicValue(j);
      x[j] = v;
      if (v === 0) continue;
      if (j < n) for (let p = a.start[j]; p < a.start[j + 1]; p++) rhs[a.index[p]] -= a.value[p] * v;
      else rhs[j - n] -= v;
    }
    this.lu.ftran(rhs);
    for (let k = 0; k < m; k++) x[this.basicIndex[k]] = rhs[k];
  }

  /** y = B⁻ᵀc_B and d_j = c_j − a_jᵀy for nonbasic j (0 for basic). Returns y (scaled row space). */
  computeDual(): Float64Array {
    const { m, n, a, d } = this;
    const y = new Float64Array(m);
    for (let k = 0; k < m; k++) y[k] = this.cost[this.basicIndex[k]];
    this.lu.btran(y);
    for (let j = 0; j < n; j++) {
      if (this.status[j] === BASIC) {
        d[j] = 0;
        continue;
      }
      let s = this.cost[j];
      for (let p = a.start[j]; p < a.start[j + 1]; p++) s -= a.value[p] * y[a.index[p]];
      d[j] = s;
    }
    for (let i = 0; i < m; i++) d[n + i] = this.status[n + i] === BASIC ? 0 : this.cost[n + i] - y[i];
    return y;
  }

  /**
   * out := B⁻¹ a_j (by basis position); the factor keeps the spike for the update if j enters. The
   * positions of out's nonzeros go to `nonzeros` (when given); returns their count.
   */
  ftranColumn(j: number, out: Float64Array, nonzeros?: Int32Array): number {
    out.fill(0);
    if (j < this.n) {
      const a = this.a;
      for (let p = a.start[j]; p < a.start[j + 1]; p++) out[a.index[p]] = a.value[p];
    } else out[j - this.n] = 1;
    return this.lu.ftran(out, true, nonzeros);
  }

  /**
   * `ftranColumn(j, out, nonzeros)` and `other` := B⁻¹ other, both in one pass over the factors (or
   * hyper-sparse one after the other: `other`'s nonzero rows are otherRows[0 .. otherCount)).
   */
  ftranColumnPair(j: number, out: Float64Array, nonzeros: Int32Array, other: Float64Array, otherRows: Int32Array, otherCount: number): number {
    out.fill(0);
    const rows = this.positionLists[3];
    let count = 0;
    if (j < this.n) {
      const a = this.a;
      for (let p = a.start[j]; p < a.start[j + 1]; p++) {
        out[a.index[p]] = a.value[p];
        rows[count++] = a.index[p];
      }
    } else {
      out[j - this.n] = 1;
      rows[count++] = j - this.n;
    }
    return this.lu.ftranPair(out, nonzeros, other, rows, count, otherRows, otherCount);
  }

  /**
   * alphaRow := ρᵀ[A I] (ρ by row) and the list of its nonzero columns. Row-wise (touching only rows
   * with ρ_i ≠ 0, list in first-touch order) when ρ is sparse, else in column order (the nonbasic
   * columns' dot products, or the same sums accumulated row-wise, `pivotRowDense`). Callers that
   * know ρ's nonzero rows (in increasing order, as BTRAN lists them) pass them to skip the scan of ρ.
   */
  computePivotRow(rho: Float64Array, rhoCount = -1, rhoNonzeros?: Int32Array): Float64Array {
    return this.price(rho, rhoCount, rhoNonzeros, 0);
  }

  /**
   * `computePivotRow` for the dual simplex's ratio test with the leaving direction s (±1), which also
   * lists the candidates (nonbasic, not fixed, α_j of the sign that lets d_j reach zero) in
   * `candidates`. The column-wise pass lists them as it goes (no second pass over the row); the
   * row-wise one after the row is complete. The candidates keep the row list's order either way.
   */
  pivotRowWithCandidates(rho: Float64Array, rhoCount: number, rhoNonzeros: Int32Array, s: number): Float64Array {
    return this.price(rho, rhoCount, rhoNonzeros, s);
  }

  /** s = 0: no candidates. */
  private price(rho: Float64Array, rhoCount: number, rhoNonzeros: Int32Array | undefined, s: number): Float64Array {
    const out = this.alphaRow;
    const list = this.rowNz;
    // the last row is cleared through its list, or wholesale (one sequential pass) when it was dense
    if (this.rowNzCount > this.total >> 3) out.fill(0);
    else for (let k = 0; k < this.rowNzCount; k++) out[list[k]] = 0;
    let rows = rhoNonzeros;
    let nnz = rhoCount;
    if (rows === undefined || nnz < 0) {
      rows = this.rhoRows;
      nnz = 0;
      for (let i = 0; i < this.m; i++) if (rho[i] !== 0) rows[nnz++] = i;
    }
    if (nnz < 0.4 * this.m) {
      this.rowNzCount = this.pivotRowByRows(rho, nnz, rows);
      if (s !== 0) this.candidateCount = this.collectCandidates(s);
    } else if (this.columnsSorted && increasing(rows, nnz)) this.rowNzCount = this.pivotRowDense(rho, nnz, rows, s);
    else this.rowNzCount = this.pivotRowByColumns(rho, nnz, rows, s);
    return out;
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
    const ar = this.rowWise;
    if (!this.partitionValid) {
      ar.partition(this.status, BASIC);
      this.partitionValid = true;
    }
    const nonbasicEnd = ar.nonbasicEnd;
    const out = this.alphaRow;
    const outWords = this.alphaRowWords;
    const list = this.rowNz;
    const cancelled = this.cancelledColumns;
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
   * of n, against every nonbasic entry at a gather's.
   */
  private pivotRowDense(rho: Float64Array, rhoCount: number, rhoRows: Int32Array, s: number): number {
    const { n, status, lower, upper } = this;
    const ar = this.rowWise;
    if (!this.partitionValid) {
      ar.partition(this.status, BASIC);
      this.partitionValid = true;
    }
    const { start, index, value, nonbasicEnd } = ar;
    const out = this.alphaRow;
    const list = this.rowNz;
    const cand = this.candidates;
    const tol = this.tol.pivot;
    for (let c = 0; c < rhoCount; c++) {
      const i = rhoRows[c];
      const r = rho[i];
      const e = nonbasicEnd[i];
      for (let p = start[i]; p < e; p++) out[index[p]] += r * value[p];
    }
    // basic columns were not touched (0): neither listed nor admitted
    let count = 0;
    let nc = 0;
    for (let j = 0; j < n; j++) {
      const v = out[j];
      list[count] = j;
      count += +(v !== 0);
      const signedAlpha = s * v;
      const sj = status[j];
      const side = sj === AT_LOWER ? 1 : sj === AT_UPPER ? -1 : 0;
      const signOk = side !== 0 ? side * signedAlpha > tol : Math.abs(signedAlpha) > tol;
      cand[nc] = j;
      nc += +signOk & +(lower[j] !== upper[j]);
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
   * ρᵀa_j column by column for the nonbasic columns (ρ dense); returns the list length. With s ≠ 0
   * the ratio-test candidates are listed in the same pass.
   */
  private pivotRowByColumns(rho: Float64Array, rhoCount: number, rhoRows: Int32Array, s: number): number {
    const { n, a, status, lower, upper } = this;
    const { start, index, value } = a;
    const out = this.alphaRow;
    const list = this.rowNz;
    const cand = this.candidates;
    const tol = this.tol.pivot;
    let count = 0;
    let nc = 0;
    for (let j = 0; j < n; j++) {
      const sj = status[j];
      if (sj === BASIC) continue;
      let v = 0;
      const e = start[j + 1];
      for (let p = start[j]; p < e; p++) v += value[p] * rho[index[p]];
      if (v !== 0) {
        out[j] = v;
        list[count++] = j;
        // admitsRatio without a branch on α's sign (on the rail LPs about half the listed columns
        // pass, in no pattern a branch predictor follows): the slot is written, kept when admitted
        const signedAlpha = s * v;
        const side = sj === AT_LOWER ? 1 : sj === AT_UPPER ? -1 : 0;
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

  /** Ratio-test candidates among the listed columns of the row just computed (in list order). */
  private collectCandidates(s: number): number {
    const out = this.alphaRow;
    const list = this.rowNz;
    const cand = this.candidates;
    let nc = 0;
    for (let k = 0; k < this.rowNzCount; k++) {
      const j = list[k];
      if (this.admitsRatio(j, s * out[j])) cand[nc++] = j;
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

  /**
   * Basis change: q enters at position r, the variable there leaves with status `leaving`.
   * `alphaCol` = B⁻¹a_q (old basis, from `ftranColumn(q)`, which kept the spike). Refactorises instead
   * of updating after MAX_UPDATES updates, when the factors have grown, or when the Forrest–Tomlin
   * update is refused; returns true then (primal values and reduced costs have been recomputed).
   */
  replaceBasic(r: number, q: number, leavingStatus: number, alphaCol: Float64Array): boolean {
    const p = this.basicIndex[r];
    this.basicIndex[r] = q;
    this.status[q] = BASIC;
    this.status[p] = leavingStatus;
    if (this.partitionValid) {
      if (q < this.n) this.rowWise.columnToBasic(q);
      if (p < this.n) this.rowWise.columnToNonbasic(p);
    }
    this.d[q] = 0;
    this.iterations++;
    if (this.lu.updateCount + 1 >= MAX_UPDATES || this.lu.growth > 4 * this.a.index.length + 10 * this.m || !this.lu.update(alphaCol, r)) {
      this.refactor();
      this.computePrimal();
      this.computeDual();
      return true;
    }
    return false;
  }

  /** cᵀx with the working costs. */
  objective(): number {
    let s = 0;
    for (let j = 0; j < this.total; j++) if (this.cost[j] !== 0) s += this.cost[j] * this.x[j];
    return s;
  }

  /** Sum of basic primal infeasibilities beyond the tolerance. */
  primalInfeasibility(): { count: number; sum: number; max: number } {
    let count = 0;
    let sum = 0;
    let max = 0;
    const tol = this.tol.primal;
    for (let k = 0; k < this.m; k++) {
      const j = this.basicIndex[k];
      const v = this.x[j];
      const inf = v < this.lower[j] - tol ? this.lower[j] - v : v > this.upper[j] + tol ? v - this.upper[j] : 0;
      if (inf > 0) {
        count++;
        sum += inf;
        if (inf > max) max = inf;
      }
    }
    return { count, sum, max };
  }

  /** Reduced costs of the wrong sign for the nonbasic statuses, beyond the tolerance. */
  dualInfeasibility(): { count: number; sum: number; max: number } {
    let count = 0;
    let sum = 0;
    let max = 0;
    const tol = this.tol.dual;
    for (let j = 0; j < this.total; j++) {
      const s = this.status[j];
      if (s === BASIC || this.lower[j] === this.upper[j]) continue;
      const dj = this.d[j];
      let inf = 0;
      if (s === AT_LOWER) inf = -dj;
      else if (s === AT_UPPER) inf = dj;
      else inf = Math.abs(dj);
      if (inf > tol) {
        count++;
        sum += inf;
        if (inf > max) max = inf;
      }
    }
    return { count, sum, max };
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
