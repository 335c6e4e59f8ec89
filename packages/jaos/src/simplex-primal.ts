/**
 * Primal simplex with a composite phase 1.
 *
 * While some basic variable violates a bound, the method minimises the sum of infeasibilities: the
 * phase-1 cost of a basic variable is −1 below its lower bound, +1 above its upper bound, 0 otherwise,
 * and the ratio test stops at the first breakpoint (a feasible variable reaching a bound, or an
 * infeasible one becoming feasible), so the sum never increases. Once feasible, it continues with the
 * true costs (phase 2). Pricing: Devex reference weights. Ratio test: Harris's two passes; among the
 * blocking variables within the relaxed step the largest |α| leaves.
 *
 * Endings: "optimal"; "unbounded" with the entering column and direction (the driver builds and checks
 * the ray); "infeasible" when phase 1 cannot improve, with y = B⁻ᵀc_B(phase 1) for the driver to check
 * as a Farkas certificate. No verdict is final here.
 */
import { AT_LOWER, AT_UPPER, BASIC, type SimplexState } from "./simplex-state.js";

/** Consecutive degenerate pivots after which Bland's rule takes over. */
const STALL_ITERATIONS = 100;

export type PrimalStatus = "optimal" | "infeasible" | "unbounded" | "iteration_limit" | "time_limit" | "numerical";

export interface PrimalOptions {
  deadline: number;
  iterationLimit: number;
}

export interface PrimalOutcome {
  status: PrimalStatus;
  /** For "unbounded": entering variable, its direction (±1) and B⁻¹a_q by position. */
  ray?: { q: number; dir: number; alphaCol: Float64Array };
  /** For "infeasible": phase-1 multipliers (scaled row space). */
  farkasRow?: Float64Array;
}

/** The leaving row chosen by the ratio test, with its ratio and the bound it leaves at. */
interface LeavingChoice {
  r: number;
  ratio: number;
  toUpper: boolean;
}

export function runPrimal(st: SimplexState, opt: PrimalOptions): PrimalOutcome {
  const { total, x, d, lower, upper, status, basicIndex } = st;
  const alphaCol = st.work[0];
  const rho = st.work[1];
  const phaseCost = st.work[2];
  const devex = new Float64Array(total).fill(1);
  const leaving: LeavingChoice = { r: -1, ratio: 0, toUpper: false };
  const startIter = st.iterations;
  let trouble = 0;
  let wasPhase1 = true;
  // Anti-cycling: after a run of degenerate pivots, Bland's rule (lowest-index entering column,
  // exact minimum ratio with ties to the lowest index) until a step makes progress.
  let degenerate = 0;

  // The vector loops live in small functions so that a cold process optimises them early (see
  // runDual).
  for (;;) {
    if (st.iterations - startIter >= opt.iterationLimit) return { status: "iteration_limit" };
    if ((st.iterations & 15) === 0 && performance.now() > opt.deadline) return { status: "time_limit" };

    // phase: any basic variable outside its bounds?
    const infeasible = phaseCosts(st, phaseCost);
    if (infeasible) {
      // phase-1 reduced costs from scratch: d_j = −(yᵀa_j), y = B⁻ᵀ c_B(phase 1)
      rho.set(phaseCost);
      st.lu.btran(rho);
      phaseOneReducedCosts(st, st.computePivotRow(rho));
      wasPhase1 = true;
    } else if (wasPhase1) {
      st.computeDual();
      wasPhase1 = false;
    }

    const bland = degenerate >= STALL_ITERATIONS;
    const q = chooseEntering(st, devex, bland);
    if (q < 0) {
      if (!infeasible) return { status: "optimal" };
      rho.set(phaseCost);
      st.lu.btran(rho);
      return { status: "infeasible", farkasRow: rho.slice() };
    }
    const dir = d[q] < 0 ? 1 : -1;

    st.ftranColumn(q, alphaCol);
    const thetaMax = harrisBound(st, alphaCol, dir, bland);
    chooseLeaving(st, alphaCol, dir, bland, thetaMax, leaving);
    const r = leaving.r;
    const flipRange = upper[q] - lower[q];
    if (flipRange <= thetaMax && flipRange < Infinity && (r < 0 || flipRange <= leaving.ratio)) {
      // the entering variable reaches its other bound first: bound flip, no basis change
      stepBasics(st, alphaCol, dir * flipRange);
      status[q] = status[q] === AT_LOWER ? AT_UPPER : AT_LOWER;
      x[q] = status[q] === AT_LOWER ? lower[q] : upper[q];
      st.iterations++;
      continue;
    }
    if (r < 0) {
      if (!infeasible) return { status: "unbounded", ray: { q, dir, alphaCol: alphaCol.slice() } };
      return { status: "numerical" };
    }

    // pivot row for the reduced-cost and Devex updates
    rho.fill(0);
    rho[r] = 1;
    st.lu.btran(rho);
    const alphaRow = st.computePivotRow(rho);
    const pivot = alphaCol[r];
    if (Math.abs(pivot - alphaRow[q]) > 1e-7 * (1 + Math.abs(pivot))) {
      if (++trouble > 3) return { status: "numerical" };
      st.refactor();
      st.computePrimal();
      st.computeDual();
      wasPhase1 = true;
      continue;
    }
    trouble = 0;

    const p = basicIndex[r];
    const rToUpper = leaving.toUpper;
    const theta = Math.max(leaving.ratio, 0);
    degenerate = theta * Math.abs(d[q]) > 1e-12 ? 0 : degenerate + 1;
    const step = dir * theta;
    stepBasics(st, alphaCol, step);
    x[q] += step;
    x[p] = rToUpper ? upper[p] : lower[p];

    if (!infeasible) {
      const thetaD = d[q] / alphaRow[q];
      reducedCostStep(st, thetaD);
      d[p] = -thetaD;
    }
    const wq = devex[q];
    const reset = updateDevex(st, devex, q, pivot);
    devex[p] = Math.max(wq / (pivot * pivot), 1);
    if (reset) devex.fill(1);

    const leavingStatus = lower[p] === upper[p] ? AT_LOWER : rToUpper ? AT_UPPER : AT_LOWER;
    if (st.replaceBasic(r, q, leavingStatus, alphaCol)) wasPhase1 = true;
  }
}

/** Phase-1 costs of the basic positions (−1 below, +1 above, 0 within bounds); true when any is infeasible. */
function phaseCosts(st: SimplexState, phaseCost: Float64Array): boolean {
  const { m, x, lower, upper, basicIndex } = st;
  const tolP = st.tol.primal;
  let infeasible = false;
  for (let k = 0; k < m; k++) {
    const j = basicIndex[k];
    const v = x[j];
    phaseCost[k] = v < lower[j] - tolP ? -1 : v > upper[j] + tolP ? 1 : 0;
    if (phaseCost[k] !== 0) infeasible = true;
  }
  return infeasible;
}

function phaseOneReducedCosts(st: SimplexState, row: Float64Array): void {
  const { total, d, status } = st;
  for (let j = 0; j < total; j++) d[j] = status[j] === BASIC ? 0 : -row[j];
}

/** CHUZC: Devex (Bland's lowest index when stalling); −1 when no reduced cost has the wrong sign. */
function chooseEntering(st: SimplexState, devex: Float64Array, bland: boolean): number {
  const { total, d, lower, upper, status } = st;
  const tolD = st.tol.dual;
  let q = -1;
  let best = 0;
  for (let j = 0; j < total; j++) {
    const sj = status[j];
    if (sj === BASIC || lower[j] === upper[j]) continue;
    const dj = d[j];
    if (sj === AT_LOWER ? dj < -tolD : sj === AT_UPPER ? dj > tolD : Math.abs(dj) > tolD) {
      if (bland) return j;
      const score = (dj * dj) / devex[j];
      if (score > best) {
        best = score;
        q = j;
      }
    }
  }
  return q;
}

/** Harris pass 1: the step allowed with every blocking bound relaxed by the primal tolerance. */
function harrisBound(st: SimplexState, alphaCol: Float64Array, dir: number, bland: boolean): number {
  const { m, x, lower, upper, basicIndex } = st;
  const tolP = st.tol.primal;
  const pivotTol = st.tol.pivot;
  let thetaMax = Infinity;
  for (let k = 0; k < m; k++) {
    const ak = alphaCol[k];
    if (Math.abs(ak) < pivotTol) continue;
    const rate = -dir * ak;
    const j = basicIndex[k];
    const v = x[j];
    let room: number;
    if (rate < 0) {
      if (v < lower[j] - tolP) continue;
      room = v > upper[j] + tolP ? v - upper[j] : v - lower[j];
    } else {
      if (v > upper[j] + tolP) continue;
      room = v < lower[j] - tolP ? lower[j] - v : upper[j] - v;
    }
    if (room === Infinity) continue;
    const relaxed = (bland ? Math.max(room, 0) : room + tolP) / Math.abs(rate);
    if (relaxed < thetaMax) thetaMax = relaxed;
  }
  return thetaMax;
}

/** Harris pass 2: the largest |α| among the breakpoints within the relaxed step (Bland: lowest index). */
function chooseLeaving(st: SimplexState, alphaCol: Float64Array, dir: number, bland: boolean, thetaMax: number, out: LeavingChoice): void {
  const { m, x, lower, upper, basicIndex } = st;
  const tolP = st.tol.primal;
  const pivotTol = st.tol.pivot;
  let r = -1;
  let rAbs = 0;
  let rRatio = 0;
  let rToUpper = false;
  for (let k = 0; k < m; k++) {
    const ak = alphaCol[k];
    if (Math.abs(ak) < pivotTol) continue;
    const rate = -dir * ak;
    const j = basicIndex[k];
    const v = x[j];
    let room: number;
    let toUpper: boolean;
    if (rate < 0) {
      if (v < lower[j] - tolP) continue;
      toUpper = v > upper[j] + tolP;
      room = toUpper ? v - upper[j] : v - lower[j];
    } else {
      if (v > upper[j] + tolP) continue;
      toUpper = !(v < lower[j] - tolP);
      room = toUpper ? upper[j] - v : lower[j] - v;
    }
    if (room === Infinity) continue;
    const ratio = room / Math.abs(rate);
    if (bland) {
      if (Math.max(ratio, 0) <= thetaMax && (r < 0 || j < basicIndex[r])) {
        r = k;
        rRatio = ratio;
        rToUpper = toUpper;
      }
      continue;
    }
    if (ratio <= thetaMax && Math.abs(ak) > rAbs) {
      rAbs = Math.abs(ak);
      r = k;
      rRatio = ratio;
      rToUpper = toUpper;
    }
  }
  out.r = r;
  out.ratio = rRatio;
  out.toUpper = rToUpper;
}

function stepBasics(st: SimplexState, alphaCol: Float64Array, step: number): void {
  const { m, x, basicIndex } = st;
  for (let k = 0; k < m; k++) x[basicIndex[k]] -= step * alphaCol[k];
}

function reducedCostStep(st: SimplexState, thetaD: number): void {
  const { d, status, alphaRow } = st;
  const nz = st.rowNz;
  for (let k = 0; k < st.rowNzCount; k++) {
    const j = nz[k];
    if (status[j] !== BASIC) d[j] -= thetaD * alphaRow[j];
  }
}

/** Devex reference weights raised along the pivot row; true when one grew past 1e6 (reset them all). */
function updateDevex(st: SimplexState, devex: Float64Array, q: number, pivot: number): boolean {
  const { status, alphaRow } = st;
  const nz = st.rowNz;
  const wq = devex[q];
  let reset = false;
  for (let k = 0; k < st.rowNzCount; k++) {
    const j = nz[k];
    if (status[j] === BASIC || j === q) continue;
    const ratio = alphaRow[j] / pivot;
    const w = ratio * ratio * wq;
    if (w > devex[j]) {
      devex[j] = w;
      if (w > 1e6) reset = true;
    }
  }
  return reset;
}
