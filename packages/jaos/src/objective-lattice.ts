/**
 * The objective's lattice: when the best point of every node has objective offset + k·step (k integer),
 * a node whose bound exceeds incumbent − step holds nothing better and bounds round up to the lattice
 * (incumbent.ts). Three things make a lattice visible beyond "integer columns with integer costs":
 *
 * - **Rational costs.** Costs that are integer multiples of a common fraction (0.25, 0.5, 1.25:
 *   vpm2; cents: rout) have step = gcd(c·L)/L with L the least common multiple of their denominators. Each
 *   cost is read as p/q by continued fractions (q ≤ MAX_DENOMINATOR) and accepted only when p/q equals it
 *   within 1e-9, so a cost such as 1/3 printed to 16 digits counts, 0.1234567 does not.
 * - **Implied integer columns.** A continuous column x_j of an equality row a_j·x_j + Σ a_k·x_k = b whose
 *   other columns are all integral (integer or themselves implied), with every a_k/a_j and b/a_j an
 *   integer, takes an integer value at every point whose integer columns are integral: x_j =
 *   b/a_j − Σ (a_k/a_j)·x_k. Found by repeated passes until none is added.
 * - **Columns pushed by their cost.** A continuous column with cost c > 0 (minimisation) whose lower bound
 *   is integral (or absent), in rows where every side it moves towards when decreasing (the lower side
 *   for a positive coefficient, the upper for a negative one) has integral ratios as above over
 *   integral columns, can be lowered at every point to max(bound, those rows' limits): an integral
 *   value, no row broken (the other sides only get slack), the objective no higher. Likewise upwards
 *   for c < 0. Such a column is integral at the best point of every node (branching and reduced-cost
 *   fixing only bound integer columns, and cuts hold at the lowered point as at every point of the
 *   model), not at every point: an incumbent may lie off the lattice, which incumbent.ts allows for.
 *   wedding_16's table happiness columns (h ≥ Σ pairs − k) are of this kind.
 *
 * A wrong lattice would prune the optimum, so every test is exact up to 1e-9 (relative for ratios and
 * sides, at most 1e-6) and anything else (an infinite or huge cost, a denominator beyond the limit)
 * gives no lattice.
 */
import type { LpModel } from "./model.js";
import { type CsrMatrix, toRowWise } from "./sparse.js";

/** Largest denominator a cost is read with (1/1000: costs in thousandths). */
const MAX_DENOMINATOR = 1000;
/** Largest common denominator: beyond it the scaled costs lose the precision the test needs. */
const MAX_COMMON_DENOMINATOR = 1e6;
const RELATIVE = 1e-9;
/** Absolute limit of the integrality slack of a ratio or a side (see isIntegral). */
const MAX_SLACK = 1e-6;
/** Absolute tolerance of a cost read as a fraction, as the integer-cost test had. */
const COST_SLACK = 1e-9;
const MAX_COST = 1e9;

/** Step of the objective's lattice (offset + k·step at the best point of every node), or Infinity. */
export function objectiveLatticeStep(model: LpModel): number {
  const integral = integralColumns(model);
  let common = 1;
  const fractions: [number, number][] = [];
  for (let j = 0; j < model.cols; j++) {
    const c = model.cost[j];
    if (c === 0) continue;
    if (!integral[j] || !(Math.abs(c) <= MAX_COST)) return Infinity;
    const f = asFraction(Math.abs(c));
    if (!f) return Infinity;
    fractions.push(f);
    common = lcm(common, f[1]);
    if (common > MAX_COMMON_DENOMINATOR) return Infinity;
  }
  if (fractions.length === 0) return Infinity;
  let g = 0;
  for (const [p, q] of fractions) {
    const scaled = p * (common / q);
    if (scaled > Number.MAX_SAFE_INTEGER) return Infinity;
    g = gcd(g, scaled);
  }
  return g > 0 ? g / common : Infinity;
}

/**
 * 1 for the integer columns and the continuous ones that equality rows imply integral; then, for the
 * objective only, 1 for the continuous columns that can be moved to an integral value at no loss (see
 * the file's comment).
 */
export function integralColumns(model: LpModel): Uint8Array {
  const integral = model.integer.slice();
  const rows = toRowWise(model.a);
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < model.rows; i++) {
      if (model.rowLower[i] !== model.rowUpper[i] || !Number.isFinite(model.rowLower[i])) continue;
      // the row implies its only non-integral column when all ratios to that column's coefficient are integral
      let open = -1;
      let several = false;
      for (let k = rows.start[i]; k < rows.start[i + 1]; k++) {
        if (integral[rows.index[k]] || rows.value[k] === 0) continue;
        if (open >= 0) several = true;
        open = k;
      }
      if (open < 0 || several || !integralRatios(rows, i, open, model.rowLower[i])) continue;
      integral[rows.index[open]] = 1;
      changed = true;
    }
  }
  // pushed by its cost: only from columns integral at every point, so each moves on its own
  const primal = integral.slice();
  const columnRows = model.a;
  for (let j = 0; j < model.cols; j++) {
    const c = model.cost[j];
    if (primal[j] || c === 0) continue;
    // minimisation: the column wants to go down (c > 0) or up (c < 0) until a row or its bound stops it
    const down = c > 0;
    const bound = down ? model.colLower[j] : model.colUpper[j];
    if (Number.isFinite(bound) && !isIntegral(bound)) continue;
    let ok = true;
    for (let p = columnRows.start[j]; p < columnRows.start[j + 1] && ok; p++) {
      const i = columnRows.index[p];
      const a = columnRows.value[p];
      if (a === 0) continue;
      // moving the column changes the row's activity by a·Δ: the side it moves towards must be integral
      const towardsLower = a > 0 === down;
      const side = towardsLower ? model.rowLower[i] : model.rowUpper[i];
      if (!Number.isFinite(side)) continue;
      const k = rowPosition(rows, i, j);
      ok = k >= 0 && integralRatios(rows, i, k, side, primal);
    }
    if (ok) integral[j] = 1;
  }
  return integral;
}

/** Whether every other column of row i is integral with an integral ratio to entry k, and side/entry k is integral. */
function integralRatios(rows: CsrMatrix, i: number, k: number, side: number, integral?: Uint8Array): boolean {
  const pivot = rows.value[k];
  if (!isIntegral(side / pivot)) return false;
  for (let q = rows.start[i]; q < rows.start[i + 1]; q++) {
    if (q === k || rows.value[q] === 0) continue;
    if (integral && !integral[rows.index[q]]) return false;
    if (!isIntegral(rows.value[q] / pivot)) return false;
  }
  return true;
}

function rowPosition(rows: CsrMatrix, i: number, j: number): number {
  for (let q = rows.start[i]; q < rows.start[i + 1]; q++) if (rows.index[q] === j) return q;
  return -1;
}

/** Within 1e-9 relative, but never looser than 1e-6: a ratio of 1e9 + 0.5 is not an integer. */
function isIntegral(v: number): boolean {
  return Number.isFinite(v) && Math.abs(v - Math.round(v)) <= Math.min(MAX_SLACK, RELATIVE * Math.max(1, Math.abs(v)));
}

/** c > 0 as p/q (q ≤ MAX_DENOMINATOR) by continued fractions when p/q equals c within 1e-9; else null. */
export function asFraction(c: number): [number, number] | null {
  // convergents h/k of c's continued fraction
  let [h0, h1] = [0, 1];
  let [k0, k1] = [1, 0];
  let rest = c;
  for (let step = 0; step < 64; step++) {
    const a = Math.floor(rest);
    [h0, h1] = [h1, a * h1 + h0];
    [k0, k1] = [k1, a * k1 + k0];
    if (k1 > MAX_DENOMINATOR) return null;
    if (Math.abs(h1 / k1 - c) <= COST_SLACK) return [h1, k1];
    const f = rest - a;
    if (f === 0) return null;
    rest = 1 / f;
  }
  return null;
}

function gcd(a: number, b: number): number {
  let [x, y] = [a, b];
  while (y) [x, y] = [y, x % y];
  return x;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}
