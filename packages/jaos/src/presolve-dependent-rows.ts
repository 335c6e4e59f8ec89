/**
 * Linearly dependent equations (LPs only; presolve.ts runs it once the other reductions have nothing
 * left). The active equality rows are eliminated one after the other against the pivot rows found so
 * far (a sparse row-by-row LU: each new independent row gives a pivot row, normalised on its pivot
 * column, reduced only against the pivots older than itself). A row that reduces to nothing is a
 * combination Σ λ_k·row_k of earlier equations: with its right-hand side reduced to 0 as well it says
 * nothing they do not, and it goes; with a right-hand side left over, the equations contradict each
 * other (Σ λ_k·row_k − row_i is 0·x = β ≠ 0, a Farkas certificate), and presolve reports infeasibility,
 * which solve.ts re-derives on the model without presolve, as for every LP verdict presolve reaches.
 *
 * Postsolve: the removed row's logical is basic and its dual 0. That is a dual solution of the original
 * LP: with y_i = 0 every reduced cost c_j − Σ_k a_kj·y_k is what the reduced LP computed, the equation
 * takes a dual of either sign, and the row holds at any x satisfying the rows it depends on (so every
 * slackness condition holds). Any other choice y_i = t is the same solution seen otherwise: t·row_i =
 * Σ t·λ_k·row_k, so moving t·λ_k onto the kept rows' duals and 0 onto row i gives back the same reduced
 * costs; the dual of a dependent row can always be folded into the rows it depends on.
 *
 * The work is bounded (`ELIMINATION_BUDGET` multiply-adds, a count, so the outcome does not depend on
 * the machine's speed): past it the rows not yet reached are kept, the dependencies found stand.
 */
import { IndexHeap } from "./index-heap.js";
import type { Presolver } from "./presolve.js";

/** Multiply-adds the elimination may spend, in all, on one presolve. */
export const ELIMINATION_BUDGET = 4_000_000;
/** A reduced row whose entries all lie below this (relative to the terms that made them) is a dependency. */
const DEPENDENT = 1e-9;
/** Entries of a pivot row below this (relative) are roundoff of a cancellation, not kept. */
const ROUNDOFF = 1e-14;
/** The pivot: of the entries within this factor of the row's largest, the column with fewest entries. */
const PIVOT_THRESHOLD = 0.1;

interface PivotRow {
  idx: Int32Array;
  /** entries divided by the pivot entry (the pivot column's own 1 left out) */
  val: Float64Array;
  rhs: number;
}

/** Removes the dependent equations (or finds two that contradict); returns the count removed. */
export function dependentEquations(p: Presolver, budget = ELIMINATION_BUDGET): number {
  const rows: number[] = [];
  for (let i = 0; i < p.m; i++) {
    if (p.rowActive[i] && p.rowCount[i] > 0 && p.rowLower[i] === p.rowUpper[i] && Number.isFinite(p.rowLower[i])) rows.push(i);
  }
  if (rows.length < 2) return 0;
  // sparse rows first: their pivot rows carry little fill into the rows after them
  rows.sort((a, b) => p.rowCount[a] - p.rowCount[b] || a - b);
  // pivotAge[j]: the order in which column j became a pivot (key of the heap), −1 for none
  const pivotAge = new Int32Array(p.n).fill(-1);
  const pivotRows: PivotRow[] = [];
  const work = new Float64Array(p.n);
  const inWork = new Uint8Array(p.n);
  const touched: number[] = [];
  const queue = new IndexHeap(p.n);
  let spent = 0;
  let removed = 0;
  for (const i of rows) {
    if (spent >= budget) break;
    let scale = 0;
    const ri = p.mat.rowIdx[i];
    const rv = p.mat.rowVal[i];
    for (let t = 0; t < ri.length; t++) {
      const j = ri[t];
      if (!p.colActive[j]) continue;
      work[j] = rv[t];
      inWork[j] = 1;
      touched.push(j);
      scale = Math.max(scale, Math.abs(rv[t]));
      if (pivotAge[j] >= 0) queue.push(j, pivotAge);
    }
    let rhs = p.rowLower[i];
    let rhsScale = Math.abs(rhs);
    // eliminate the pivot columns oldest first: a pivot row holds only younger pivots, so each is met once
    while (queue.size > 0) {
      const c = queue.pop(pivotAge);
      const f = work[c];
      work[c] = 0;
      if (f === 0) continue;
      const pivot = pivotRows[pivotAge[c]];
      const { idx, val } = pivot;
      for (let t = 0; t < idx.length; t++) {
        const j = idx[t];
        const term = f * val[t];
        if (!inWork[j]) {
          inWork[j] = 1;
          touched.push(j);
          work[j] = 0;
        }
        work[j] -= term;
        const size = Math.abs(term);
        if (size > scale) scale = size;
        if (pivotAge[j] >= 0) queue.push(j, pivotAge);
      }
      spent += idx.length + 1;
      const moved = f * pivot.rhs;
      rhs -= moved;
      rhsScale = Math.max(rhsScale, Math.abs(moved));
    }
    let largest = 0;
    for (const j of touched) if (pivotAge[j] < 0) largest = Math.max(largest, Math.abs(work[j]));
    if (largest <= DEPENDENT * scale) {
      if (Math.abs(rhs) <= DEPENDENT * Math.max(1, rhsScale)) {
        p.stack.push({ kind: "dependent", row: i });
        p.removeRow(i);
        removed++;
      } else {
        p.infeasible = `row ${i} is a linear combination of other equations with a right-hand side ${rhs} off theirs`;
      }
    } else pivotRows.push(pivotRow(p, work, touched, pivotAge, largest, scale, rhs, pivotRows.length));
    for (const j of touched) {
      work[j] = 0;
      inWork[j] = 0;
    }
    touched.length = 0;
    if (p.infeasible) break;
  }
  return removed;
}

/** The new pivot row from the reduced row in `work`; its column's age set to `age`. */
function pivotRow(
  p: Presolver,
  work: Float64Array,
  touched: number[],
  pivotAge: Int32Array,
  largest: number,
  scale: number,
  rhs: number,
  age: number,
): PivotRow {
  let col = -1;
  for (const j of touched) {
    if (pivotAge[j] >= 0 || Math.abs(work[j]) < PIVOT_THRESHOLD * largest) continue;
    if (col < 0 || p.colCount[j] < p.colCount[col] || (p.colCount[j] === p.colCount[col] && j < col)) col = j;
  }
  const a = work[col];
  const idx: number[] = [];
  const val: number[] = [];
  for (const j of touched) {
    if (j === col || pivotAge[j] >= 0 || Math.abs(work[j]) <= ROUNDOFF * scale) continue;
    idx.push(j);
    val.push(work[j] / a);
  }
  pivotAge[col] = age;
  return { idx: Int32Array.from(idx), val: Float64Array.from(val), rhs: rhs / a };
}
