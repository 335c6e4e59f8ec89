/**
 * The factorisation behind `checkBasis` (verify.ts): a basis of the unscaled model installed,
 * factorised (dependent columns swapped for logicals), its primal point and row duals computed — and
 * nothing else. The check once built a whole `SimplexState` for this, whose row-wise copy of A, PRICE
 * buffers and ratio-test lists (O(nnz + n + m) of allocation and copying) it never used: on cre-d that
 * construction cost more than the factorisation itself. The arithmetic here is `SimplexState`'s, step
 * for step (`setBasis` on a fresh state, `refactor`, `computePrimal`, `computeRowDuals`), so the
 * verdicts are the same to the bit; the unit test "the lean check factorises as the simplex state
 * does" compares both on random bases.
 */
import { AT_LOWER, AT_UPPER, BASIC, nonbasicStatusOf } from "./basis-status.js";
import { LuFactor } from "./lu.js";
import type { LpModel } from "./model.js";

export interface FactoredBasis {
  /** Statuses of the n columns then the m logicals, after the factorisation's repairs. */
  status: Int8Array;
  /** Column values x_N at their bounds, x_B = −B⁻¹ N x_N (structural columns only). */
  x: Float64Array;
  /** Row duals y = B⁻ᵀ c_B. */
  y: Float64Array;
  /** Columns the factorisation replaced by logicals because the basis was singular. */
  replaced: number;
}

/** Statuses, primal point and duals of `status` factorised on `model`; null when it does not have m basic variables. */
export function factoredBasis(model: LpModel, given: Int8Array): FactoredBasis | null {
  const { rows: m, cols: n, a } = model;
  const total = n + m;
  let basicCount = 0;
  for (let j = 0; j < total; j++) if (given[j] === BASIC) basicCount++;
  if (basicCount !== m) return null;

  // logical n+i is −(row i activity): bounds [−rowUpper, −rowLower]
  const lower = (j: number) => (j < n ? model.colLower[j]! : -model.rowUpper[j - n]!);
  const upper = (j: number) => (j < n ? model.colUpper[j]! : -model.rowLower[j - n]!);
  const nonbasicStatus = (j: number, preferred: number) => nonbasicStatusOf(lower(j), upper(j), preferred);

  const status = new Int8Array(total);
  const basicIndex = new Int32Array(m);
  let nz = 0;
  for (let j = 0, k = 0; j < total; j++) {
    if (given[j] === BASIC) {
      status[j] = BASIC;
      basicIndex[k++] = j;
      nz += j < n ? a.start[j + 1]! - a.start[j]! : 1;
    } else status[j] = nonbasicStatus(j, given[j]!);
  }

  const colStart = new Int32Array(m + 1);
  const colIndex = new Int32Array(nz);
  const colValue = new Float64Array(nz);
  nz = 0;
  for (let k = 0; k < m; k++) {
    const j = basicIndex[k]!;
    colStart[k] = nz;
    if (j < n) {
      for (let p = a.start[j]!; p < a.start[j + 1]!; p++) {
        colIndex[nz] = a.index[p]!;
        colValue[nz++] = a.value[p]!;
      }
    } else {
      colIndex[nz] = j - n;
      colValue[nz++] = 1;
    }
  }
  colStart[m] = nz;
  const lu = new LuFactor(m);
  const stats = lu.factorize(colStart, colIndex, colValue);
  const replaced = stats.deficientPositions.length;
  for (let t = 0; t < replaced; t++) {
    const k = stats.deficientPositions[t]!;
    const out = basicIndex[k]!;
    // the state's x is still 0 here: the bound nearer to 0 is preferred
    status[out] = nonbasicStatus(out, Math.abs(lower(out)) <= Math.abs(upper(out)) ? AT_LOWER : AT_UPPER);
    basicIndex[k] = n + stats.replacementRows[t]!;
    status[n + stats.replacementRows[t]!] = BASIC;
  }

  // SimplexState.computePrimal: x_N at their bounds, x_B = −B⁻¹ N x_N
  const rhs = new Float64Array(m);
  const x = new Float64Array(n);
  for (let j = 0; j < total; j++) {
    const s = status[j];
    if (s === BASIC) continue;
    const v = s === AT_LOWER ? lower(j) : s === AT_UPPER ? upper(j) : 0;
    if (j < n) x[j] = v;
    if (v === 0) continue;
    if (j < n) for (let p = a.start[j]!; p < a.start[j + 1]!; p++) rhs[a.index[p]!] -= a.value[p]! * v;
    else rhs[j - n] -= v;
  }
  lu.ftran(rhs);
  for (let k = 0; k < m; k++) if (basicIndex[k]! < n) x[basicIndex[k]!] = rhs[k]!;

  // SimplexState.computeRowDuals: y = B⁻ᵀ c_B (a logical costs 0)
  const y = new Float64Array(m);
  for (let k = 0; k < m; k++) y[k] = basicIndex[k]! < n ? model.cost[basicIndex[k]!]! : 0;
  lu.btran(y);
  return { status, x, y, replaced };
}
