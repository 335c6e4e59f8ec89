/**
 * Scaling: a' = R·A·C with R, C diagonal powers of two (so scaling itself adds no rounding error).
 * Factors come from a few passes of geometric scaling (rows then columns, each scaled by
 * 1/sqrt(min·max) of its magnitudes), which reduces the spread of magnitudes, followed by one column
 * equilibration pass (largest entry of each column near 1). Costs and bounds are scaled to match:
 * x' = x / C, c' = C·c, row bounds R·b.
 *
 * The factors are kept only when they improve the matrix by HiGHS's measure (`scalingImprovement`,
 * at least 1, HiGHS's own threshold): where the column equilibration undoes the geometric passes'
 * balance (jendrec1), the geometric factors alone are tried, and where those do not improve it either,
 * the model is solved unscaled. Measured over the wide and scale LPs (docs/bench/jaos.md, lpscale).
 */
import type { LpModel } from "./model.js";

export interface Scaling {
  row: Float64Array;
  col: Float64Array;
}

const PASSES = 6;
/** HiGHS's threshold on the improvement factor (below it, HiGHS abandons its scaling). */
const REQUIRED_IMPROVEMENT = 1;

function powerOfTwo(v: number): number {
  if (!Number.isFinite(v) || v <= 0) return 1;
  return 2 ** Math.round(Math.log2(v));
}

function unitScaling(model: LpModel): Scaling {
  return { row: new Float64Array(model.rows).fill(1), col: new Float64Array(model.cols).fill(1) };
}

export function computeScaling(model: LpModel): Scaling {
  const unscaled = equilibrationStats(model, unitScaling(model));
  for (const equilibrate of [true, false]) {
    const s = factors(model, equilibrate);
    if (improvement(unscaled, equilibrationStats(model, s)) >= REQUIRED_IMPROVEMENT) return s;
  }
  return unitScaling(model);
}

/**
 * How much the scaling improves the matrix, the product of three ratios (original / scaled): the
 * extreme spread of the row and column equilibration factors 1/sqrt(min·max), their geometric mean's
 * distance from 1, and the matrix's max/min magnitude. Below 1 the scaling made it worse on balance.
 */
export function scalingImprovement(model: LpModel, s: Scaling): number {
  return improvement(equilibrationStats(model, unitScaling(model)), equilibrationStats(model, s));
}

function improvement(before: EquilibrationStats, after: EquilibrationStats): number {
  const extreme = (before.colSpread + before.rowSpread) / (after.colSpread + after.rowSpread);
  const mean = Math.sqrt((before.colMean * before.rowMean) / (after.colMean * after.rowMean));
  const values = before.valueRatio / after.valueRatio;
  return extreme * mean * values;
}

interface EquilibrationStats {
  colSpread: number;
  rowSpread: number;
  colMean: number;
  rowMean: number;
  valueRatio: number;
}

function equilibrationStats(model: LpModel, s: Scaling): EquilibrationStats {
  const { rows: m, cols: n, a } = model;
  const rmin = new Float64Array(m).fill(Infinity);
  const rmax = new Float64Array(m);
  const col = { min: Infinity, max: 0, logSum: 0, count: 0 };
  let vmin = Infinity;
  let vmax = 0;
  for (let j = 0; j < n; j++) {
    let cmin = Infinity;
    let cmax = 0;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const v = Math.abs(a.value[k]) * s.row[a.index[k]] * s.col[j];
      if (v === 0) continue;
      const i = a.index[k];
      if (v < cmin) cmin = v;
      if (v > cmax) cmax = v;
      if (v < rmin[i]) rmin[i] = v;
      if (v > rmax[i]) rmax[i] = v;
    }
    if (cmax === 0) continue;
    if (cmin < vmin) vmin = cmin;
    if (cmax > vmax) vmax = cmax;
    accumulate(col, 1 / Math.sqrt(cmin * cmax));
  }
  const row = { min: Infinity, max: 0, logSum: 0, count: 0 };
  for (let i = 0; i < m; i++) if (rmax[i] > 0) accumulate(row, 1 / Math.sqrt(rmin[i] * rmax[i]));
  return {
    colSpread: col.count ? col.max / col.min : 1,
    rowSpread: row.count ? row.max / row.min : 1,
    colMean: distanceFromOne(col),
    rowMean: distanceFromOne(row),
    valueRatio: vmax > 0 ? vmax / vmin : 1,
  };
}

function accumulate(acc: { min: number; max: number; logSum: number; count: number }, e: number): void {
  if (e < acc.min) acc.min = e;
  if (e > acc.max) acc.max = e;
  acc.logSum += Math.log(e);
  acc.count++;
}

function distanceFromOne(acc: { logSum: number; count: number }): number {
  return acc.count ? Math.exp(Math.abs(acc.logSum / acc.count)) : 1;
}

/** Geometric passes, rounded to powers of two; then, if `equilibrate`, each column's largest entry near 1. */
function factors(model: LpModel, equilibrate: boolean): Scaling {
  const { rows: m, cols: n, a } = model;
  const row = new Float64Array(m).fill(1);
  const col = new Float64Array(n).fill(1);
  if (a.start[n] === 0) return { row, col };
  const rmin = new Float64Array(m);
  const rmax = new Float64Array(m);
  // the passes are separate functions so that a cold process optimises them early
  for (let pass = 0; pass < PASSES; pass++) {
    geometricRowPass(model, row, col, rmin, rmax);
    geometricColumnPass(model, row, col);
  }
  for (let i = 0; i < m; i++) row[i] = powerOfTwo(row[i]);
  if (!equilibrate) {
    for (let j = 0; j < n; j++) col[j] = powerOfTwo(col[j]);
    return { row, col };
  }
  for (let j = 0; j < n; j++) {
    let cmax = 0;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) cmax = Math.max(cmax, Math.abs(a.value[k]) * row[a.index[k]]);
    col[j] = cmax > 0 ? powerOfTwo(1 / cmax) : 1;
  }
  return { row, col };
}
/** Each row divided by sqrt(min·max) of its scaled magnitudes. */
function geometricRowPass(model: LpModel, row: Float64Array, col: Float64Array, rmin: Float64Array, rmax: Float64Array): void {
  const { rows: m, cols: n, a } = model;
  rmin.fill(Infinity);
  rmax.fill(0);
  for (let j = 0; j < n; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const i = a.index[k];
      const v = Math.abs(a.value[k]) * row[i] * col[j];
      if (v < rmin[i]) rmin[i] = v;
      if (v > rmax[i]) rmax[i] = v;
    }
  }
  for (let i = 0; i < m; i++) if (rmax[i] > 0) row[i] /= Math.sqrt(rmin[i] * rmax[i]);
}

/** Each column divided by sqrt(min·max) of its scaled magnitudes. */
function geometricColumnPass(model: LpModel, row: Float64Array, col: Float64Array): void {
  const { cols: n, a } = model;
  for (let j = 0; j < n; j++) {
    let cmin = Infinity;
    let cmax = 0;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const v = Math.abs(a.value[k]) * row[a.index[k]] * col[j];
      if (v < cmin) cmin = v;
      if (v > cmax) cmax = v;
    }
    if (cmax > 0) col[j] /= Math.sqrt(cmin * cmax);
  }
}

/** The scaled model (a new object; the input is not modified). */
export function applyScaling(model: LpModel, s: Scaling): LpModel {
  const { rows: m, cols: n, a } = model;
  const value = new Float64Array(a.value.length);
  for (let j = 0; j < n; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) value[k] = a.value[k] * s.row[a.index[k]] * s.col[j];
  }
  const cost = new Float64Array(n);
  const colLower = new Float64Array(n);
  const colUpper = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    cost[j] = model.cost[j] * s.col[j];
    colLower[j] = model.colLower[j] / s.col[j];
    colUpper[j] = model.colUpper[j] / s.col[j];
  }
  const rowLower = new Float64Array(m);
  const rowUpper = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    rowLower[i] = model.rowLower[i] * s.row[i];
    rowUpper[i] = model.rowUpper[i] * s.row[i];
  }
  return { ...model, a: { ...a, value }, cost, colLower, colUpper, rowLower, rowUpper };
}
