/**
 * Checks of the certificates behind "infeasible" and "unbounded", done on the unscaled model with
 * the engine's claimed multipliers or ray, in plain floating point. A verdict is reported only when
 * its certificate passes here; tolerances are stated beside each test.
 */
import { maxViolation, type LpModel } from "./model.js";

/** An entry of yᵀA below this fraction of Σ|y_i a_ij| is treated as cancellation (zero). */
const CANCEL_REL = 1e-9;
/** The proved gap must exceed this fraction of the magnitudes involved. */
const GAP_REL = 1e-9;

function range(coef: number, lo: number, up: number): [number, number] {
  if (coef === 0) return [0, 0];
  return coef > 0 ? [coef * lo, coef * up] : [coef * up, coef * lo];
}

/**
 * Farkas certificate for l_r ≤ Ax ≤ u_r, l ≤ x ≤ u: multipliers y with yᵀAx confined by the column
 * box to [cmin, cmax] and by the row bounds to [rmin, rmax]; the system is infeasible when the two
 * intervals are disjoint. Returns the relative gap (> 0 proves infeasibility) or null when the
 * certificate does not prove it.
 */
export function checkFarkas(model: LpModel, y: Float64Array): number | null {
  const direct = farkasGap(model, y);
  if (direct !== null) return direct;
  // Multipliers of rows that are basic (slack) in the final basis are zero in exact arithmetic but
  // carry roundoff; a tiny one on a row with an infinite side spoils the interval. The cleaned vector
  // is a certificate of its own, checked the same way.
  let max = 0;
  for (let i = 0; i < y.length; i++) max = Math.max(max, Math.abs(y[i]));
  for (const rel of [1e-12, 1e-9]) {
    const cleaned = y.map((v) => (Math.abs(v) <= rel * max ? 0 : v));
    const gap = farkasGap(model, cleaned);
    if (gap !== null) return gap;
  }
  return null;
}

function farkasGap(model: LpModel, y: Float64Array): number | null {
  const { a } = model;
  let cmin = 0;
  let cmax = 0;
  let mag = 0;
  for (let j = 0; j < model.cols; j++) {
    let g = 0;
    let size = 0;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const t = y[a.index[k]] * a.value[k];
      g += t;
      size += Math.abs(t);
    }
    if (Math.abs(g) <= CANCEL_REL * size) g = 0;
    const [lo, up] = range(g, model.colLower[j], model.colUpper[j]);
    cmin += lo;
    cmax += up;
    if (Number.isFinite(lo)) mag += Math.abs(lo);
    if (Number.isFinite(up)) mag += Math.abs(up);
  }
  let rmin = 0;
  let rmax = 0;
  for (let i = 0; i < model.rows; i++) {
    const [lo, up] = range(y[i], model.rowLower[i], model.rowUpper[i]);
    rmin += lo;
    rmax += up;
    if (Number.isFinite(lo)) mag += Math.abs(lo);
    if (Number.isFinite(up)) mag += Math.abs(up);
  }
  const gap = Math.max(rmin - cmax, cmin - rmax);
  if (!(gap > GAP_REL * Math.max(1, mag))) return null;
  return gap / Math.max(1, mag);
}

/**
 * Unboundedness: a feasible point x (within `feasTol`, relative) and a ray d with every bound it
 * moves toward infinite, the same for the rows it moves, and cᵀd < 0. The ray is normalised to
 * ‖d‖∞ = 1 and components below `DIR_TOL` are set to zero before the checks; a row moves when |a_iᵀd|
 * exceeds DIR_TOL·Σ|a_ij d_j|.
 */
const DIR_TOL = 1e-9;
export function checkUnboundedRay(model: LpModel, x: Float64Array, ray: Float64Array, feasTol = 1e-6): boolean {
  if (maxViolation(model, x) > feasTol) return false;
  let norm = 0;
  for (let j = 0; j < model.cols; j++) norm = Math.max(norm, Math.abs(ray[j]));
  if (norm === 0) return false;
  const d = ray.map((v) => (Math.abs(v / norm) <= DIR_TOL ? 0 : v / norm));
  let slope = 0;
  let costScale = 0;
  for (let j = 0; j < model.cols; j++) {
    if (d[j] > 0 && model.colUpper[j] < Infinity) return false;
    if (d[j] < 0 && model.colLower[j] > -Infinity) return false;
    slope += model.cost[j] * d[j];
    costScale += Math.abs(model.cost[j] * d[j]);
  }
  const ad = new Float64Array(model.rows);
  const scale = new Float64Array(model.rows);
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      ad[a.index[k]] += a.value[k] * d[j];
      scale[a.index[k]] += Math.abs(a.value[k] * d[j]);
    }
  }
  for (let i = 0; i < model.rows; i++) {
    const tol = DIR_TOL * Math.max(1, scale[i]);
    if (ad[i] > tol && model.rowUpper[i] < Infinity) return false;
    if (ad[i] < -tol && model.rowLower[i] > -Infinity) return false;
  }
  return slope < -1e-9 * Math.max(1, costScale);
}
