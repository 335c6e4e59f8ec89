/**
 * Scaling: a' = R·A·C with R, C diagonal powers of two (so scaling itself adds no rounding error).
 * Factors come from a few passes of geometric scaling (rows then columns, each scaled by
 * 1/sqrt(min·max) of its magnitudes), which reduces the spread of magnitudes, followed by one column
 * equilibration pass (largest entry of each column near 1). Costs and bounds are scaled to match:
 * x' = x / C, c' = C·c, row bounds R·b.
 */
import type { LpModel } from "./model.js";

export interface Scaling {
  row: Float64Array;
  col: Float64Array;
}

const PASSES = 6;

function powerOfTwo(v: number): number {
  if (!Number.isFinite(v) || v <= 0) return 1;
  return 2 ** Math.round(Math.log2(v));
}

export function computeScaling(model: LpModel): Scaling {
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
