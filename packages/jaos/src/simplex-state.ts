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
import { AT_LOWER, AT_UPPER, BASIC, nonbasicStatusOf } from "./basis-status.js";
import { LuFactor, MAX_UPDATES } from "./lu.js";
import type { LpModel } from "./model.js";
import { PivotRow } from "./pivot-row.js";
import { Rng } from "./rng.js";
import type { CscMatrix } from "./sparse.js";
import { PartitionedRows } from "./sparse-partitioned.js";

export interface Tolerances {
  primal: number;
  dual: number;
  /** Smallest |α| accepted as a ratio-test candidate. */
  pivot: number;
}

export { AT_LOWER, AT_UPPER, AT_ZERO, BASIC } from "./basis-status.js";

export const DEFAULT_TOLERANCES: Tolerances = { primal: 1e-7, dual: 1e-7, pivot: 1e-9 };

export class SimplexState {
  readonly m: number;
  readonly n: number;
  readonly total: number;
  readonly model: LpModel;
  readonly a: CscMatrix;
  /** Row-wise A with each row's nonbasic columns first (for the row-wise pivot row). */
  readonly rowWise: PartitionedRows;
  /** False when the basic set changed outside `replaceBasic`; PRICE redoes the partition before use. */
  partitionValid = false;
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
  /** PRICE (pivot-row.ts): the pivot row, its nonzero columns and the ratio-test candidates. */
  readonly pivotRow: PivotRow;
  /** The last pivot row ρᵀ[A I] (`pivotRow.row`); exact zeros outside `rowNz`. Entries of basic columns are not used. */
  readonly alphaRow: Float64Array;
  /** Columns with a (possibly) nonzero entry in the last pivot row: rowNz[0 .. rowNzCount) (`pivotRow.list`). */
  readonly rowNz: Int32Array;
  /** Work vectors of length m shared by the simplex loops (never live across a call). */
  readonly work: Float64Array[];
  /** Position lists of length m for the nonzeros of the work vectors (never live across a call). */
  readonly positionLists: Int32Array[];
  /** Squared primal infeasibility beyond the tolerance by basis position (kept by the dual simplex). */
  readonly infeasibilitySquared: Float64Array;
  /** Work lists of length m + n for ratio-test candidates (`pivotRow.candidates`) and bound flips. */
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
    this.lower = new Float64Array(this.total);
    this.upper = new Float64Array(this.total);
    this.cost = new Float64Array(this.total);
    this.x = new Float64Array(this.total);
    this.d = new Float64Array(this.total);
    this.status = new Int8Array(this.total);
    this.basicIndex = new Int32Array(this.m);
    this.lu = new LuFactor(this.m);
    this.dseWeight = new Float64Array(this.m).fill(1);
    this.pivotRow = new PivotRow(this);
    this.alphaRow = this.pivotRow.row;
    this.rowNz = this.pivotRow.list;
    this.work = Array.from({ length: 6 }, () => new Float64Array(this.m));
    this.positionLists = Array.from({ length: 5 }, () => new Int32Array(this.m));
    this.infeasibilitySquared = new Float64Array(this.m);
    this.candidates = this.pivotRow.candidates;
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
    return nonbasicStatusOf(this.lower[j], this.upper[j], preferred);
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

  /**
   * y = B⁻ᵀc_B alone (scaled row space), the reduced costs left as they are: for readers of the duals
   * between solves (every solve prices d afresh before it reads it). The same y as `computeDual`'s.
   */
  computeRowDuals(): Float64Array {
    const y = new Float64Array(this.m);
    for (let k = 0; k < this.m; k++) y[k] = this.cost[this.basicIndex[k]];
    this.lu.btran(y);
    return y;
  }

  /** y = B⁻ᵀc_B and d_j = c_j − a_jᵀy for nonbasic j (0 for basic). Returns y (scaled row space). */
  computeDual(): Float64Array {
    const { m, n, a, d } = this;
    const y = this.computeRowDuals();
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
   * hyper-sparse one after the other: `other`'s nonzero rows are otherRows[0 .. otherCount)). `out`
   * must be zero on entry (the dual simplex clears it through the last result's nonzero list instead
   * of a pass over m). The positions of other's result nonzeros go to `otherNonzeros`, their count to
   * `lu.otherCount`.
   */
  ftranColumnPair(
    j: number,
    out: Float64Array,
    nonzeros: Int32Array,
    other: Float64Array,
    otherRows: Int32Array,
    otherCount: number,
    otherNonzeros: Int32Array,
  ): number {
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
    return this.lu.ftranPair(out, nonzeros, other, rows, count, otherRows, otherCount, otherNonzeros);
  }

  /**
   * alphaRow := ρᵀ[A I] (ρ by row) and the list of its nonzero columns (`PivotRow.compute`). Callers
   * that know ρ's nonzero rows (in increasing order, as BTRAN lists them) pass them to skip the scan of ρ.
   */
  computePivotRow(rho: Float64Array, rhoCount = -1, rhoNonzeros?: Int32Array): Float64Array {
    return this.pivotRow.compute(rho, rhoCount, rhoNonzeros, 0);
  }

  /**
   * `computePivotRow` for the dual simplex's ratio test with the leaving direction s (±1), which also
   * lists the candidates in `candidates` (in the row list's order).
   */
  pivotRowWithCandidates(rho: Float64Array, rhoCount: number, rhoNonzeros: Int32Array, s: number): Float64Array {
    return this.pivotRow.compute(rho, rhoCount, rhoNonzeros, s);
  }

  /** Length of the last pivot row's list `rowNz`. */
  get rowNzCount(): number {
    return this.pivotRow.count;
  }

  /** Number of ratio-test candidates of the last `pivotRowWithCandidates`: candidates[0 .. candidateCount). */
  get candidateCount(): number {
    return this.pivotRow.candidateCount;
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
