/**
 * Gomory mixed-integer (GMI) cuts from the optimal root tableau.
 *
 * For a basic integer column with fractional value β, its tableau row in the nonbasic distances
 * t_j ≥ 0 from their bounds (t_j = x_j − l_j at a lower bound, u_j − x_j at an upper one) reads
 * x_B + Σ ā_j t_j = β. With f0 = frac(β) and f_j = frac(ā_j), every point with x_B and the integer t_j
 * integral satisfies
 *
 *     Σ_{j int, f_j ≤ f0} f_j/f0 · t_j + Σ_{j int, f_j > f0} (1−f_j)/(1−f0) · t_j
 *       + Σ_{j cont, ā_j > 0} ā_j/f0 · t_j + Σ_{j cont, ā_j < 0} −ā_j/(1−f0) · t_j ≥ 1,
 *
 * which the LP point (all t_j = 0) violates. The cut is mapped back to the structural columns (a row's
 * logical is −its activity). Logicals count as continuous; a free nonbasic column voids the row.
 *
 * Numerical safeguards (a wrong cut would cut off the optimum): rows with a very fractional basic value
 * only (f0 ∈ [0.01, 0.99]); no row with |ā_j| > 1e6; coefficients below 1e-12·max are cancellation
 * residue of substituting the logicals and count as zero; those below 1e-9·max are removed by relaxing
 * the right-hand side over the column's bounds (a cut needing an infinite bound is discarded); dynamism
 * at most 1e6;
 * the right-hand side is relaxed by 1e-9 relative; a cut must be violated with efficacy ≥ 1e-5 and not
 * nearly parallel (cosine ≥ 0.98) to a better one. Cuts with more than max(100, 0.2·n) nonzeros are
 * left out: they make every node LP's factors dense.
 */
import type { LpEngine } from "./lp.js";
import { rowActivities, type LpModel } from "./model.js";
import { AT_LOWER, AT_UPPER, BASIC } from "./simplex-state.js";
import { type CsrMatrix, cscFromTriplets, toRowWise } from "./sparse.js";

/** Σ value_k · x[index_k] ≥ lower. */
export interface Cut {
  index: Int32Array;
  value: Float64Array;
  lower: number;
}

const MIN_FRAC = 0.01;
const ROUNDOFF = 1e-12;
const MAX_TABLEAU = 1e6;
const MAX_DYNAMISM = 1e6;
const MIN_EFFICACY = 1e-5;
const MAX_COSINE = 0.98;

/** `rows`: the model's matrix row-wise, when the caller has it (the root loop shares c-MIR's). */
export function gomoryCuts(engine: LpEngine, model: LpModel, x: Float64Array, maxCuts: number, rows: CsrMatrix = toRowWise(model.a)): Cut[] {
  const st = engine.state;
  const n = model.cols;
  const activity = rowActivities(model, x);
  const value = (j: number) => (j < n ? x[j] : -activity[j - n]);
  const lowerOf = (j: number) => (j < n ? model.colLower[j] : -model.rowUpper[j - n]);
  const upperOf = (j: number) => (j < n ? model.colUpper[j] : -model.rowLower[j - n]);

  const sources: { r: number; score: number }[] = [];
  for (let r = 0; r < st.m; r++) {
    const j = st.basicIndex[r];
    if (j >= n || !model.integer[j]) continue;
    const f = x[j] - Math.floor(x[j]);
    if (f < MIN_FRAC || f > 1 - MIN_FRAC) continue;
    sources.push({ r, score: Math.min(f, 1 - f) });
  }
  sources.sort((a, b) => b.score - a.score || a.r - b.r);

  const found: { cut: Cut; efficacy: number; norm: number }[] = [];
  const dense = new Float64Array(n);
  // one tableau-row array for every source row (tableauRow writes its listed entries, all that is read)
  const alpha = new Float64Array(st.total);
  for (const { r } of sources.slice(0, 3 * maxCuts)) {
    const row = engine.tableauRow(r, alpha);
    const beta = x[row.basic];
    const f0 = beta - Math.floor(beta);
    dense.fill(0);
    let rhs = 1;
    let ok = true;
    for (const j of row.nonzeros) {
      const a = row.alpha[j];
      if (a === 0 || st.status[j] === BASIC) continue;
      if (Math.abs(a) > MAX_TABLEAU) {
        ok = false;
        break;
      }
      const lo = lowerOf(j);
      const up = upperOf(j);
      if (lo === up) continue; // t_j ≡ 0
      const s = st.status[j];
      if (s !== AT_LOWER && s !== AT_UPPER) {
        ok = false; // free nonbasic: no t_j ≥ 0
        break;
      }
      const atLower = s === AT_LOWER;
      const abar = atLower ? a : -a;
      const integral = j < n && model.integer[j] === 1;
      let g: number;
      if (integral) {
        const fj = abar - Math.floor(abar);
        g = fj <= f0 ? fj / f0 : (1 - fj) / (1 - f0);
      } else g = abar >= 0 ? abar / f0 : -abar / (1 - f0);
      if (g === 0) continue;
      // g·t_j with t_j = x_j − lo or up − x_j
      const coef = atLower ? g : -g;
      rhs += atLower ? g * lo : -g * up;
      if (j < n) dense[j] += coef;
      else {
        const i = j - n; // x_{n+i} = −a_iᵀx
        for (let k = rows.start[i]; k < rows.start[i + 1]; k++) dense[rows.index[k]] -= coef * rows.value[k];
      }
    }
    if (!ok) continue;
    const cut = finishCut(dense, rhs, model);
    if (!cut) continue;
    let lhs = 0;
    let norm = 0;
    for (let k = 0; k < cut.index.length; k++) {
      lhs += cut.value[k] * value(cut.index[k]);
      norm += cut.value[k] * cut.value[k];
    }
    norm = Math.sqrt(norm);
    const efficacy = (cut.lower - lhs) / norm;
    if (efficacy >= MIN_EFFICACY) found.push({ cut, efficacy, norm });
  }

  found.sort((a, b) => b.efficacy - a.efficacy);
  const accepted: typeof found = [];
  for (const c of found) {
    if (accepted.length >= maxCuts) break;
    if (accepted.every((o) => cosine(c, o) < MAX_COSINE)) accepted.push(c);
  }
  return accepted.map((c) => c.cut);
}

/** Sparse cut from dense coefficients: tiny ones moved into the right-hand side, checks applied. */
function finishCut(dense: Float64Array, rhs: number, model: LpModel): Cut | null {
  const index: number[] = [];
  const value: number[] = [];
  for (let k = 0; k < dense.length; k++) {
    if (dense[k] === 0) continue;
    index.push(k);
    value.push(dense[k]);
  }
  return finishSparseCut(index, value, rhs, model);
}

/** How far the point lies beyond the cut (Σ a·x ≥ lower), per unit of the cut's norm: > 0 when the cut is violated. */
export function cutEfficacy(cut: Cut, x: ArrayLike<number>): number {
  let lhs = 0;
  let norm = 0;
  for (let k = 0; k < cut.index.length; k++) {
    lhs += cut.value[k]! * x[cut.index[k]!]!;
    norm += cut.value[k]! * cut.value[k]!;
  }
  return (cut.lower - lhs) / Math.sqrt(norm);
}

/**
 * The cut Σ value_k·x[index_k] ≥ rhs (index ascending) with tiny coefficients moved into the
 * right-hand side and the safeguards applied; null when it fails them.
 */
export function finishSparseCut(indexIn: ArrayLike<number>, valueIn: ArrayLike<number>, rhsIn: number, model: LpModel): Cut | null {
  let rhs = rhsIn;
  let max = 0;
  for (let k = 0; k < valueIn.length; k++) max = Math.max(max, Math.abs(valueIn[k]!));
  if (max === 0) return null;
  if (cutIndex.length < valueIn.length) {
    cutIndex = new Int32Array(2 * valueIn.length);
    cutValue = new Float64Array(2 * valueIn.length);
  }
  const index = cutIndex;
  const value = cutValue;
  // dense cuts fill the basis factors of every node LP: at most max(100, 20 % of the columns)
  const maxCount = Math.max(100, 0.2 * model.cols);
  let count = 0;
  let min = Infinity;
  for (let p = 0; p < valueIn.length; p++) {
    const c = valueIn[p]!;
    const k = indexIn[p]!;
    // below 1e-12·max: cancellation residue of the logical substitution (exact zeros in exact
    // arithmetic, observed around 1e-18 relative); treated as zero
    if (Math.abs(c) <= ROUNDOFF * max) continue;
    if (Math.abs(c) < 1e-9 * max) {
      // drop c·x_k from a ≥ row: rhs −= max over the bounds of c·x_k
      const worst = c > 0 ? c * model.colUpper[k] : c * model.colLower[k];
      if (!Number.isFinite(worst)) return null;
      rhs -= worst;
      continue;
    }
    if (count >= maxCount) return null; // one more is too dense: no need to read on
    index[count] = k;
    value[count++] = c;
    min = Math.min(min, Math.abs(c));
  }
  if (count === 0 || max / min > MAX_DYNAMISM || !Number.isFinite(rhs)) return null;
  rhs -= 1e-9 * Math.max(1, Math.abs(rhs));
  return { index: index.slice(0, count), value: value.slice(0, count), lower: rhs };
}

// finishSparseCut's scratch, grown as needed (the separators call it for every candidate cut)
let cutIndex = new Int32Array(64);
let cutValue = new Float64Array(64);

function cosine(a: { cut: Cut; norm: number }, b: { cut: Cut; norm: number }): number {
  let dot = 0;
  let p = 0;
  let q = 0;
  const ai = a.cut.index;
  const bi = b.cut.index;
  while (p < ai.length && q < bi.length) {
    if (ai[p] === bi[q]) dot += a.cut.value[p++] * b.cut.value[q++];
    else if (ai[p] < bi[q]) p++;
    else q++;
  }
  return dot / (a.norm * b.norm);
}

/** The model with the cuts appended as rows (lower = cut bound, upper = +∞). */
export function withRows(model: LpModel, cuts: Cut[]): LpModel {
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      ri.push(a.index[k]);
      ci.push(j);
      vv.push(a.value[k]);
    }
  }
  cuts.forEach((cut, c) => {
    for (let k = 0; k < cut.index.length; k++) {
      ri.push(model.rows + c);
      ci.push(cut.index[k]);
      vv.push(cut.value[k]);
    }
  });
  const rows = model.rows + cuts.length;
  const rowLower = new Float64Array(rows);
  const rowUpper = new Float64Array(rows);
  rowLower.set(model.rowLower);
  rowUpper.set(model.rowUpper);
  cuts.forEach((cut, c) => {
    rowLower[model.rows + c] = cut.lower;
    rowUpper[model.rows + c] = Infinity;
  });
  return { ...model, rows, a: cscFromTriplets(rows, model.cols, ri, ci, vv), rowLower, rowUpper };
}

/** The model keeping only rows with keep[i]. */
export function keepRows(model: LpModel, keep: Uint8Array): LpModel {
  const newRow = new Int32Array(model.rows).fill(-1);
  let count = 0;
  for (let i = 0; i < model.rows; i++) if (keep[i]) newRow[i] = count++;
  const ri: number[] = [];
  const ci: number[] = [];
  const vv: number[] = [];
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      if (newRow[a.index[k]] < 0) continue;
      ri.push(newRow[a.index[k]]);
      ci.push(j);
      vv.push(a.value[k]);
    }
  }
  const rowLower = new Float64Array(count);
  const rowUpper = new Float64Array(count);
  for (let i = 0; i < model.rows; i++) {
    if (newRow[i] < 0) continue;
    rowLower[newRow[i]] = model.rowLower[i];
    rowUpper[newRow[i]] = model.rowUpper[i];
  }
  return { ...model, rows: count, a: cscFromTriplets(count, model.cols, ri, ci, vv), rowLower, rowUpper };
}
