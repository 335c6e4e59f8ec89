/**
 * Rows made redundant by the bounds other rows imply on their columns.
 *
 * A row whose activity range over the columns' own bounds lies within its sides is removed by the
 * local pass already. Many rows are redundant only through bounds the columns do not carry but other
 * rows imply: a column x ≥ 0 of a row Σ a·x ≤ u with positive coefficients cannot exceed u/a there, and
 * a dense row over such columns may then never bind (osa-07: 34 rows holding 24k of its 144k
 * nonzeros; HiGHS's "redundant row" takes them). Each candidate row is tested with, per column, the
 * tighter of its own bound and the best bound implied by another active row; the rows are removed one
 * at a time, each implied by the rows still active when it goes, so the feasible set is unchanged
 * (a row removed later was itself implied by the rows left after it). The implied bounds stay
 * implicit: no column bound is changed, so the LP's basis is not made more degenerate.
 */
import type { Presolver } from "./presolve.js";

const TOL = 1e-9;

/** Loosened by a relative margin, so roundoff in the activity sums never makes a binding row look redundant. */
function loosenUp(v: number): number {
  return v + TOL * Math.max(1, Math.abs(v));
}

function loosenDown(v: number): number {
  return v - TOL * Math.max(1, Math.abs(v));
}

/** Removes the rows implied redundant by the other rows' implied column bounds; returns how many. */
export function impliedRedundantRows(p: Presolver): number {
  const { m, n, mat, colLower, colUpper, rowLower, rowUpper, rowActive, colActive, rowCount } = p;
  const minAct = new Float64Array(m);
  const maxAct = new Float64Array(m);
  const minInf = new Int32Array(m);
  const maxInf = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    if (!rowActive[i]) continue;
    const act = p.activity(i);
    minAct[i] = act.min;
    maxAct[i] = act.max;
    minInf[i] = act.minInf;
    maxInf[i] = act.maxInf;
  }
  // per column: the best and second-best implied bound on each side and their source rows
  const up1 = new Float64Array(n).fill(Infinity);
  const up2 = new Float64Array(n).fill(Infinity);
  const upSrc = new Int32Array(n).fill(-1);
  const up2Src = new Int32Array(n).fill(-1);
  const lo1 = new Float64Array(n).fill(-Infinity);
  const lo2 = new Float64Array(n).fill(-Infinity);
  const loSrc = new Int32Array(n).fill(-1);
  const lo2Src = new Int32Array(n).fill(-1);

  const offerUp = (j: number, v: number, k: number) => {
    if (v < up1[j]) {
      up2[j] = up1[j];
      up2Src[j] = upSrc[j];
      up1[j] = v;
      upSrc[j] = k;
    } else if (v < up2[j]) {
      up2[j] = v;
      up2Src[j] = k;
    }
  };
  const offerLo = (j: number, v: number, k: number) => {
    if (v > lo1[j]) {
      lo2[j] = lo1[j];
      lo2Src[j] = loSrc[j];
      lo1[j] = v;
      loSrc[j] = k;
    } else if (v > lo2[j]) {
      lo2[j] = v;
      lo2Src[j] = k;
    }
  };
  /** Column j's implied bounds from the active rows. */
  const refresh = (j: number) => {
    up1[j] = up2[j] = Infinity;
    lo1[j] = lo2[j] = -Infinity;
    upSrc[j] = loSrc[j] = up2Src[j] = lo2Src[j] = -1;
    const ci = mat.colIdx[j];
    const cv = mat.colVal[j];
    const l = colLower[j];
    const u = colUpper[j];
    for (let t = 0; t < ci.length; t++) {
      const k = ci[t];
      if (!rowActive[k]) continue;
      const a = cv[t];
      if (a === 0) continue;
      const side = rowUpper[k];
      if (Number.isFinite(side)) {
        // Σ a·x ≤ side: a·x_j ≤ side − (least activity of the rest)
        const own = a > 0 ? l : u;
        const ownFinite = Number.isFinite(own);
        if (minInf[k] === 0 || (minInf[k] === 1 && !ownFinite)) {
          const rest = minAct[k] - (ownFinite ? a * own : 0);
          const v = (side - rest) / a;
          if (a > 0) offerUp(j, loosenUp(v), k);
          else offerLo(j, loosenDown(v), k);
        }
      }
      const sideLo = rowLower[k];
      if (Number.isFinite(sideLo)) {
        // Σ a·x ≥ sideLo: a·x_j ≥ sideLo − (greatest activity of the rest)
        const own = a > 0 ? u : l;
        const ownFinite = Number.isFinite(own);
        if (maxInf[k] === 0 || (maxInf[k] === 1 && !ownFinite)) {
          const rest = maxAct[k] - (ownFinite ? a * own : 0);
          const v = (sideLo - rest) / a;
          if (a > 0) offerLo(j, loosenDown(v), k);
          else offerUp(j, loosenUp(v), k);
        }
      }
    }
  };
  for (let j = 0; j < n; j++) if (colActive[j]) refresh(j);

  let removed = 0;
  for (let i = 0; i < m; i++) {
    if (!rowActive[i] || rowCount[i] < 2) continue;
    const lo = rowLower[i];
    const up = rowUpper[i];
    const needMax = Number.isFinite(up);
    const needMin = Number.isFinite(lo);
    // redundant by the columns' own bounds: the local pass's case
    if ((!needMax || (maxInf[i] === 0 && maxAct[i] <= up)) && (!needMin || (minInf[i] === 0 && minAct[i] >= lo))) continue;
    const ri = mat.rowIdx[i];
    const rv = mat.rowVal[i];
    let max = 0;
    let min = 0;
    for (let k = 0; k < ri.length && (Number.isFinite(max) || Number.isFinite(min)); k++) {
      const j = ri[k];
      if (!colActive[j]) continue;
      const a = rv[k];
      const u = Math.min(colUpper[j], upSrc[j] === i ? up2[j] : up1[j]);
      const l = Math.max(colLower[j], loSrc[j] === i ? lo2[j] : lo1[j]);
      max += a > 0 ? a * u : a * l;
      min += a > 0 ? a * l : a * u;
    }
    const tolUp = TOL * Math.max(1, Math.abs(up));
    const tolLo = TOL * Math.max(1, Math.abs(lo));
    const upOk = !needMax || max <= up + tolUp;
    const loOk = !needMin || min >= lo - tolLo;
    if (!upOk || !loOk || Number.isNaN(max) || Number.isNaN(min)) continue;
    p.removeRow(i);
    removed++;
    // bounds row i implied are gone with it
    for (let k = 0; k < ri.length; k++) {
      const j = ri[k];
      if (colActive[j] && (upSrc[j] === i || loSrc[j] === i || up2Src[j] === i || lo2Src[j] === i)) refresh(j);
    }
  }
  return removed;
}
