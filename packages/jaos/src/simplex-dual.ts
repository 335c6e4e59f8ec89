/**
 * Dual simplex, phase 2 (the basis must be dual feasible for the working bounds and costs).
 *
 * Pricing: dual steepest edge (leaving row maximises infeasibility² / ‖e_rᵀB⁻¹‖², weights updated by
 * Forrest–Goldfarb, the leaving row's weight recomputed exactly every iteration from ρ_r); the row is
 * found by a list scan or a tournament tree over the scores, whichever counts cheaper (leaving-rows.ts).
 * Ratio test: bound-flipping ("long-step") ratio test with Harris's two passes: boxed variables whose
 * breakpoints are passed while the dual slope stays positive flip to their other bound; among the
 * breakpoints within the Harris-relaxed step, the largest |α_rj| enters (stability). A reduced cost that
 * is slightly infeasible at the chosen step is made exactly zero by shifting its cost (recorded through
 * `costsAltered`, removed by the driver).
 * Checks: the pivot α_rq is computed twice (row and column); disagreement triggers refactorisation.
 *
 * When no entering candidate exists the row r proves primal infeasibility: ρ_r = B⁻ᵀe_r is returned
 * for the driver to verify as a Farkas certificate. No verdict is final here.
 */
import { heapifyByKey, popTop } from "./breakpoint-heap.js";
import { LeavingRows } from "./leaving-rows.js";
import { perturbCosts } from "./perturbation.js";
import { AT_LOWER, AT_UPPER, BASIC, type SimplexState } from "./simplex-state.js";

// Local copies of the imported statuses: V8 reads an imported binding through its module cell at every
// use, also under ESM (a loop of dualStep's shape ran 10 % slower on the import than on a local copy), and
// under a CommonJS load tsx makes each read a getter call (5 % of primagaz's profile in dualStep).
const BASIC_STATUS = BASIC;
const LOWER_STATUS = AT_LOWER;
const UPPER_STATUS = AT_UPPER;

export type DualStatus = "optimal" | "infeasible" | "cutoff" | "iteration_limit" | "time_limit" | "numerical";

export interface DualOptions {
  deadline: number;
  iterationLimit: number;
  /** Stop when the objective (a valid bound only with unaltered costs) exceeds this. */
  cutoff?: number;
}

export interface DualOutcome {
  status: DualStatus;
  /** For "infeasible": ρ = B⁻ᵀe_r of the row without entering candidate (scaled row space). */
  farkasRow?: Float64Array;
}

const MIN_DSE_WEIGHT = 1e-8;
/** Consecutive degenerate iterations after which the costs are perturbed. */
const STALL_ITERATIONS = 100;

export function runDual(st: SimplexState, opt: DualOptions): DualOutcome {
  const { x, d, lower, upper, basicIndex } = st;
  const rho = st.work[0];
  const alphaCol = st.work[1];
  const tau = st.work[2];
  const rhoNz = st.positionLists[0];
  const colNz = st.positionLists[1];
  const tauNz = st.positionLists[4];
  const infeasibility = st.infeasibilitySquared;
  const tolP = st.tol.primal;
  let trouble = 0;
  let degenerate = 0;
  const startIter = st.iterations;
  // ρ is cleared through its nonzero list from here on
  rho.fill(0);
  let rhoCount = 0;
  const unitPosition = new Int32Array(1);
  const infeasible = infeasibleRowsOf(st);
  infeasible.startCall();
  // the flips' right-hand side is cleared through its nonzero list from here on
  st.work[3].fill(0);
  // so are the entering column α and the DSE vector τ (each FTRAN result is zero outside its list)
  alphaCol.fill(0);
  tau.fill(0);
  let colCount = 0;
  let tauCount = 0;
  refreshInfeasibilities(st, infeasible);

  // The loops over vectors live in small functions: a cold process (the service runs one per solve)
  // gets them optimised after a few calls, whereas one large loop body waits for on-stack replacement
  // and falls back to the interpreter (allocating a heap number per arithmetic step) whenever a rare
  // branch deoptimises it.
  for (;;) {
    if (st.iterations - startIter >= opt.iterationLimit) return { status: "iteration_limit" };
    if ((st.iterations & 15) === 0 && performance.now() > opt.deadline) return { status: "time_limit" };
    // the dual objective only rises; checking it every few iterations is enough
    if (opt.cutoff !== undefined && (st.iterations & 3) === 0 && !st.costsAltered && st.objective() > opt.cutoff) return { status: "cutoff" };

    const r = infeasible.choose(st.infeasibilitySquared, st.dseWeight);
    if (r < 0) return { status: "optimal" };
    const p = basicIndex[r];
    const toUpper = x[p] > upper[p];
    const s = toUpper ? 1 : -1;
    const delta = toUpper ? x[p] - upper[p] : lower[p] - x[p];

    clearListed(rho, rhoNz, rhoCount);
    rho[r] = 1;
    unitPosition[0] = r;
    rhoCount = st.lu.btran(rho, rhoNz, unitPosition, 1);
    const wr = squaredNormListed(rho, rhoNz, rhoCount);
    st.dseWeight[r] = wr;
    const alphaRow = st.pivotRowWithCandidates(rho, rhoCount, rhoNz, s);
    const nc = st.candidateCount;
    const q = longStepRatioTest(st, s, delta, nc, st.tol.dual, tolP);
    const nflip = st.flipCount;
    if (q < 0) {
      return { status: "infeasible", farkasRow: rho.slice() };
    }

    // the DSE vector τ = B⁻¹ρ_r rides along with the entering column's FTRAN; both are cleared and
    // τ := ρ set over the nonzero lists (ρ is zero outside its list), not over m
    clearListed(alphaCol, colNz, colCount);
    clearListed(tau, tauNz, tauCount);
    copyListed(tau, rho, rhoNz, rhoCount);
    colCount = st.ftranColumnPair(q, alphaCol, colNz, tau, rhoNz, rhoCount, tauNz);
    tauCount = st.lu.otherCount;
    const pivot = alphaCol[r];
    if (Math.abs(pivot - alphaRow[q]) > 1e-7 * (1 + Math.abs(pivot)) || Math.abs(pivot) < 1e-11) {
      if (++trouble > 3) return { status: "numerical" };
      st.refactor();
      st.computePrimal();
      st.computeDual();
      refreshInfeasibilities(st, infeasible);
      // the same row failing again on fresh factors is passed over until its value changes, instead
      // of ending in "numerical" and a restart from the slack basis (model10: 20,294 iterations lost);
      // CHUZR drops a zero from its list, and the primal step lists the row again when it changes
      if (trouble >= 2) infeasibility[r] = 0;
      continue;
    }
    trouble = 0;

    const flipCount = nflip > 0 ? applyFlips(st, nflip, infeasible) : 0;

    // primal step: the leaving variable goes exactly to its violated bound; the DSE weights are updated
    // in the same pass over α (neither reads what the other writes)
    const target = toUpper ? upper[p] : lower[p];
    const thetaP = (x[p] - target) / pivot;
    primalStepAndDseWeights(st, thetaP, r, pivot, wr, alphaCol, tau, colNz, colCount, infeasible);
    x[q] += thetaP;
    x[p] = target;

    // dual step; a slightly infeasible d_q is shifted to zero instead of stepping backwards
    let thetaD = d[q] / alphaRow[q];
    if (thetaD * s < 0) {
      st.cost[q] -= d[q];
      st.costsAltered = true;
      d[q] = 0;
      thetaD = 0;
    }
    if (thetaD !== 0) dualStep(st, thetaD);
    d[p] = -thetaD;

    const leavingStatus = lower[p] === upper[p] ? LOWER_STATUS : toUpper ? UPPER_STATUS : LOWER_STATUS;
    if (st.replaceBasic(r, q, leavingStatus, alphaCol)) refreshInfeasibilities(st, infeasible);
    else {
      infeasibility[r] = infeasibilitySquared(x[q], lower[q], upper[q], tolP);
      if (infeasibility[r] !== 0) infeasible.note(r);
      infeasible.changed(infeasibility, st.dseWeight, colNz, colCount, st.positionLists[2], flipCount, r);
    }
    // anti-stalling: after a run of degenerate dual steps, perturb the costs (once per call)
    if (Math.abs(thetaD) > 1e-12) degenerate = 0;
    else if (++degenerate === STALL_ITERATIONS && !st.costsAltered) perturbCosts(st);
  }
}

const infeasibleRowsByState = new WeakMap<SimplexState, LeavingRows>();

/** The state's list, kept across calls (branch and bound runs the dual simplex once per node). */
function infeasibleRowsOf(st: SimplexState): LeavingRows {
  let rows = infeasibleRowsByState.get(st);
  if (rows === undefined) {
    rows = new LeavingRows(st.m);
    infeasibleRowsByState.set(st, rows);
  }
  return rows;
}

/**
 * Zeroes v, which is zero outside list[0 .. count). A scattered store per listed entry costs about what
 * `fill` spends on 16 entries (docs/decisions.md "Clearing a listed vector"), so a list longer than a
 * sixteenth of v is cleared by `fill` instead (aircraft's α and τ fill a third and two thirds of m).
 */
function clearListed(v: Float64Array, list: Int32Array, count: number): void {
  if (count > v.length >> 4) v.fill(0);
  else for (let c = 0; c < count; c++) v[list[c]] = 0;
}

function copyListed(to: Float64Array, from: Float64Array, list: Int32Array, count: number): void {
  for (let c = 0; c < count; c++) to[list[c]] = from[list[c]];
}

function squaredNormListed(v: Float64Array, list: Int32Array, count: number): number {
  let s = 0;
  for (let c = 0; c < count; c++) s += v[list[c]] * v[list[c]];
  return s;
}

/** Moves the ratio test's flipped variables to their other bound and the basic ones by B⁻¹ of the change. */
function applyFlips(st: SimplexState, nflip: number, infeasible: LeavingRows): number {
  const { n, x, status, lower, upper, basicIndex, a } = st;
  const flips = st.flipList;
  const flipRhs = st.work[3];
  const flipNz = st.positionLists[2];
  const infeasibility = st.infeasibilitySquared;
  const tolP = st.tol.primal;
  // the rows the flips touch (with repeats) while they fit in m, for a hyper-sparse FTRAN
  const rows = st.positionLists[3];
  let rowCount = 0;
  for (let f = 0; f < nflip; f++) {
    const j = flips[f];
    const from = x[j];
    const toUp = status[j] === LOWER_STATUS;
    status[j] = toUp ? UPPER_STATUS : LOWER_STATUS;
    x[j] = toUp ? upper[j] : lower[j];
    const delta = x[j] - from;
    if (j < n) {
      const b = a.start[j];
      const e = a.start[j + 1];
      for (let k = b; k < e; k++) flipRhs[a.index[k]] += a.value[k] * delta;
      if (rowCount >= 0 && rowCount + e - b <= st.m) for (let k = b; k < e; k++) rows[rowCount++] = a.index[k];
      else rowCount = -1;
    } else {
      flipRhs[j - n] += delta;
      if (rowCount >= 0 && rowCount < st.m) rows[rowCount++] = j - n;
      else rowCount = -1;
    }
  }
  const flipCount = rowCount >= 0 ? st.lu.ftran(flipRhs, false, flipNz, rows, rowCount) : st.lu.ftran(flipRhs, false, flipNz);
  // flipRhs is zero outside its nonzero list at entry; left so for the next call
  for (let c = 0; c < flipCount; c++) {
    const k = flipNz[c];
    const j = basicIndex[k];
    x[j] -= flipRhs[k];
    flipRhs[k] = 0;
    infeasibility[k] = infeasibilitySquared(x[j], lower[j], upper[j], tolP);
    if (infeasibility[k] !== 0) infeasible.note(k);
  }
  return flipCount;
}

/**
 * x_B −= θ_P·α over α's nonzero positions, with their infeasibilities, and the Forrest–Goldfarb update of
 * the DSE weights (old basis' τ = B⁻¹ρ_r) over the same positions: one pass over α instead of two.
 */
function primalStepAndDseWeights(
  st: SimplexState,
  thetaP: number,
  r: number,
  pivot: number,
  wr: number,
  alphaCol: Float64Array,
  tau: Float64Array,
  colNz: Int32Array,
  colCount: number,
  infeasible: LeavingRows,
): void {
  const { x, lower, upper, basicIndex } = st;
  const infeasibility = st.infeasibilitySquared;
  const weight = st.dseWeight;
  const tolP = st.tol.primal;
  for (let c = 0; c < colCount; c++) {
    const k = colNz[c];
    const ak = alphaCol[k];
    const j = basicIndex[k];
    x[j] -= thetaP * ak;
    infeasibility[k] = infeasibilitySquared(x[j], lower[j], upper[j], tolP);
    if (infeasibility[k] !== 0) infeasible.note(k);
    if (k === r || ak === 0) continue;
    const ratio = ak / pivot;
    const w = weight[k] + ratio * (ratio * wr - 2 * tau[k]);
    weight[k] = Math.max(w, MIN_DSE_WEIGHT);
  }
  weight[r] = Math.max(wr / (pivot * pivot), MIN_DSE_WEIGHT);
}

/**
 * d_N −= θ_D·α_r over the pivot row's nonzeros. PRICE lists only nonbasic structural columns (its
 * passes skip the basic ones), so only a listed logical needs the status test: on the osa LPs, whose
 * rows list three quarters of all columns, the test at every entry was most of this loop.
 */
function dualStep(st: SimplexState, thetaD: number): void {
  const { n, d, status, alphaRow } = st;
  const nz = st.rowNz;
  const rowCount = st.rowNzCount;
  for (let k = 0; k < rowCount; k++) {
    const j = nz[k];
    if (j < n || status[j] !== BASIC_STATUS) d[j] -= thetaD * alphaRow[j];
  }
}

/** (Distance beyond the violated bound)², or 0 within the primal tolerance: CHUZR's numerator. */
function infeasibilitySquared(v: number, lo: number, up: number, tolP: number): number {
  let inf: number;
  if (v < lo - tolP) inf = lo - v;
  else if (v > up + tolP) inf = v - up;
  else return 0;
  return inf * inf;
}

/** Every basic position's squared infeasibility, after x changed wholesale (start, refactorisation). */
function refreshInfeasibilities(st: SimplexState, infeasible: LeavingRows): void {
  const { m, x, lower, upper, basicIndex } = st;
  const tolP = st.tol.primal;
  const out = st.infeasibilitySquared;
  infeasible.clear();
  for (let k = 0; k < m; k++) {
    const j = basicIndex[k];
    out[k] = infeasibilitySquared(x[j], lower[j], upper[j], tolP);
    if (out[k] !== 0) infeasible.note(k);
  }
}

/**
 * The bound-flipping ratio test over the candidates cand[0 .. nc): groups of breakpoints are passed
 * (their variables flip, listed in st.flipList, count in st.flipCount) while the dual slope stays
 * positive; in the group where it ends, the largest |α| enters. Each group is the breakpoints within
 * the Harris-relaxed minimum ratio of those left. Returns the entering variable, or −1 when passing
 * every group leaves a clearly positive slope (the row proves infeasibility).
 *
 * The breakpoints are stored by candidate slot (written and read in list order, not scattered by
 * column). The first group comes from one scan: a slot whose breakpoint is within the relaxed minimum
 * so far is noted, and the group is the noted slots within the final minimum (the minimum only falls,
 * so none is missed) — the same members in the same order as a second scan over the whole list. When
 * the first group is passed, the rest come off heaps by breakpoint, so many groups cost
 * O(nc log nc) rather than O(nc · groups) (fit2d: thousands of boxed columns passed per iteration).
 */
function longStepRatioTest(st: SimplexState, s: number, delta: number, nc: number, tolD: number, tolP: number): number {
  const { d, lower, upper, alphaRow } = st;
  const cand = st.candidates;
  const flips = st.flipList;
  const t = st.breakpoint;
  const tr = st.breakpointRelaxed;
  // the first group's possible members, by slot (the heap's scratch, free until the heaps are built)
  const noted = st.ratioHeapT;
  let noteCount = 0;
  let thetaMax = Infinity;
  // The relaxed breakpoint is never below the exact one (d ± tolD rounds monotonically), so a
  // candidate whose exact breakpoint is beyond the relaxed minimum so far can neither lower that
  // minimum nor join the first group: its relaxed breakpoint (a second division) is left as NaN
  // and computed only if the heaps below need it.
  for (let c = 0; c < nc; c++) {
    const j = cand[c];
    const a = s * alphaRow[j];
    const tc = d[j] / a;
    t[c] = tc;
    if (tc > thetaMax) {
      tr[c] = Number.NaN;
      continue;
    }
    const trc = a > 0 ? (d[j] + tolD) / a : (d[j] - tolD) / a;
    tr[c] = trc;
    if (trc < thetaMax) thetaMax = trc;
    if (!(tc > thetaMax)) noted[noteCount++] = c;
  }
  let slope = delta;
  let nflip = 0;
  st.flipCount = 0;
  if (nc === 0) return -1;
  // first group, in list order
  let groupSlope = 0;
  let bestAbs = 0;
  let bestJ = -1;
  let groupSize = 0;
  for (let k = 0; k < noteCount; k++) {
    const c = noted[k];
    if (t[c] > thetaMax) continue;
    const j = cand[c];
    const a = Math.abs(alphaRow[j]);
    groupSize++;
    groupSlope += a * (upper[j] - lower[j]);
    if (a > bestAbs) {
      bestAbs = a;
      bestJ = j;
    }
  }
  // Passing the last group leaves no entering variable: that is the infeasibility claim, made only
  // when the slope left is clearly positive (not roundoff of a degenerate row).
  if (!(groupSlope < slope && !(groupSize === nc && slope - groupSlope <= tolP))) return bestJ;
  if (groupSize === nc) return -1;
  slope -= groupSlope;
  let w = 0;
  for (let c = 0; c < nc; c++) {
    const j = cand[c];
    if (t[c] <= thetaMax) flips[nflip++] = j;
    else {
      let trc = tr[c];
      if (Number.isNaN(trc)) {
        const a = s * alphaRow[j];
        trc = a > 0 ? (d[j] + tolD) / a : (d[j] - tolD) / a;
      }
      cand[w] = j;
      t[w] = t[c];
      tr[w] = trc;
      w++;
    }
  }
  nc = w;
  // the rest in increasing breakpoint order (ties by list position), taken from a heap group by group:
  // a group is every remaining breakpoint up to the smallest relaxed one left
  const byT = st.ratioHeapT;
  const byTr = st.ratioHeapTr;
  const taken = st.ratioTaken;
  taken.fill(0, 0, nc);
  heapifyByKey(byT, nc, t);
  heapifyByKey(byTr, nc, tr);
  let sizeT = nc;
  let sizeTr = nc;
  let q = -1;
  while (sizeT > 0) {
    while (taken[byTr[0]]) sizeTr = popTop(byTr, sizeTr, tr);
    const limit = tr[byTr[0]];
    const groupStart = nflip;
    groupSlope = 0;
    bestAbs = 0;
    bestJ = -1;
    while (sizeT > 0 && t[byT[0]] <= limit) {
      const c = byT[0];
      sizeT = popTop(byT, sizeT, t);
      taken[c] = 1;
      const j = cand[c];
      const a = Math.abs(alphaRow[j]);
      groupSlope += a * (upper[j] - lower[j]);
      if (a > bestAbs) {
        bestAbs = a;
        bestJ = j;
      }
      flips[nflip++] = j;
    }
    const last = sizeT === 0;
    if (groupSlope < slope && !(last && slope - groupSlope <= tolP)) {
      slope -= groupSlope;
      continue;
    }
    nflip = groupStart;
    q = bestJ;
    break;
  }
  st.flipCount = nflip;
  return q;
}
