/**
 * Probing on the binary columns of a presolved MILP, once before its root LP (`probeRoot`, from mip.ts's `solveMip`). Each
 * binary in turn is fixed at 0 and its consequences propagated through the rows' activity bounds
 * (activity-domain.ts), undone, then fixed at 1 and propagated, undone:
 *
 * - a side whose propagation breaks a row holds no feasible point, so the column is fixed at the other
 *   side (and that fixing propagated, for good: later probes start from it);
 * - an integer column that both sides tighten can take, in any feasible point, only values inside the
 *   union of the two boxes: its bounds become the weaker of the two sides' (x = 0 ⇒ y ≤ 2 and
 *   x = 1 ⇒ y ≤ 3 give y ≤ 3 globally).
 *
 * Soundness: every conclusion rests on propagation alone (a row broken beyond the domain's tolerance,
 * bounds a row's activity forces), never on the objective, so no feasible point is lost; a probe cut
 * short by the work budget (`exhausted`) concludes nothing. Only integer columns' bounds are returned
 * (a continuous bound implied by propagation is kept implicit, as the LP would rediscover it).
 *
 * Why: HiGHS probes binaries in presolve and closes mitre, p2756 and qnet1_o at the root partly on its
 * fixings and implications; jaos had no probing. The probes run on the presolved model (presolve has
 * already removed what it decides alone), and the caller presolves the probed model again, as a root
 * restart does (root-restart.ts), so the fixed columns leave the model.
 */
import { ActivityDomain } from "./activity-domain.js";
import type { MipOptions, MipStats } from "./mip-types.js";
import type { LpModel } from "./model.js";
import { presolve, type Presolved } from "./presolve.js";
import { chainPostsolve, type ColumnPostsolve, withColumnBounds } from "./root-restart.js";

export interface ProbingOptions {
  /** Propagation work (matrix entries visited) over all probes at most, as a multiple of the nonzeros. */
  workFactor: number;
  /** Probing stops after this much work (a multiple of the nonzeros) without a fixing or tightening. */
  staleFactor: number;
  /**
   * Probing stops after this much work (a multiple of the nonzeros) when neither the rows' own propagation
   * nor any probe has found anything yet; absent: only the other budgets apply.
   */
  firstSliceFactor?: number;
  /** Probing stops at this time (performance.now()), whatever its work budget. */
  deadline: number;
}

export interface ProbingResult {
  /** The model's binaries (before probing). */
  binaries: number;
  /** Binaries probed (both sides). */
  probed: number;
  /** Integer columns fixed (by a failed side, or by propagating such a fixing). */
  fixed: number;
  /** Integer columns whose bounds were tightened without being fixed. */
  tightened: number;
  /** Propagation work done, in matrix entries visited. */
  work: number;
  /** True when the fixings together broke a row: the model is infeasible (the caller may ignore it). */
  infeasible: boolean;
  /** The integer columns' bounds after probing (continuous columns' as given). */
  lower: Float64Array;
  upper: Float64Array;
}

/**
 * The default budgets. Probing pays where it finds (mitre: 3,867 of 10,724 binaries fixed for about 350
 * passes over the nonzeros) and must cost little where it finds nothing (air03: 173 probes over long
 * partitioning rows cost 1,000 passes): the total is large, the work allowed since the last finding small.
 */
export const PROBING_WORK_FACTOR = 500;
export const PROBING_STALE_FACTOR = 20;
/**
 * Probing's result is used only when it fixes a large share of the binaries (PROBING_FIXED_SHARE, 3 of the
 * 46 wide + scale MILPs), and there the findings come at once: gen and bell3a from the rows' propagation
 * before any probe, mitre from its first pass over the nonzeros (then cap6000 at 1.7, p2756 at 3.9 passes,
 * both unused). A model whose first 5 passes found nothing was probing for nothing (air03, l152lav, atm_5_10_1,
 * 10teams, qnet1_o: 21-25 passes each before the stale budget stopped them).
 */
export const PROBING_FIRST_SLICE_FACTOR = 5;
/**
 * The share of the binaries probing must fix for its bounds to be used (mip.ts). A few fixings change the
 * search's path more than its size: over the 46 wide + scale MILPs the models where probing fixed under 2 %
 * of the binaries (mod010 1 → 71 nodes, p2756 185 → 296, p0201 918 → 1,231) lost, while mitre (36 %)
 * closed at the root; like the root restarts' share (root-restart.ts), a reduction must be large to pay.
 */
export const PROBING_FIXED_SHARE = 0.1;
/** Work allowed below this many nonzeros in any case (small models probe every binary). */
const MIN_WORK = 20_000;

/** The binaries of the model, those in the most rows first (their probes reach furthest). */
function probeOrder(model: LpModel): number[] {
  const { start } = model.a;
  const order: number[] = [];
  for (let j = 0; j < model.cols; j++) {
    if (model.integer[j] && model.colLower[j] === 0 && model.colUpper[j] === 1) order.push(j);
  }
  return order.sort((p, q) => start[q + 1] - start[q] - (start[p + 1] - start[p]) || p - q);
}

interface Side {
  feasible: boolean;
  /** Per column changed by the side's propagation: its bounds under it. */
  bounds: Map<number, [number, number]>;
}

export function probeBinaries(model: LpModel, opt: ProbingOptions): ProbingResult {
  const nnz = model.a.start[model.cols];
  const domain = new ActivityDomain(model, model.colLower, model.colUpper, Math.max(MIN_WORK, opt.workFactor * nnz));
  const order = probeOrder(model);
  const result: ProbingResult = {
    binaries: order.length,
    probed: 0,
    fixed: 0,
    tightened: 0,
    work: 0,
    infeasible: false,
    lower: model.colLower.slice(),
    upper: model.colUpper.slice(),
  };
  // the bounds the rows imply before any probe hold as they are: start from them
  if (!domain.propagateAll()) {
    if (!domain.exhausted()) result.infeasible = true;
    return finish(model, domain, result);
  }
  const stale = Math.max(MIN_WORK, opt.staleFactor * nnz);
  const begun = domain.workDone();
  let lastFind = begun;
  const firstSlice = opt.firstSliceFactor === undefined ? Infinity : Math.max(MIN_WORK, opt.firstSliceFactor * nnz);
  let found = integerBoundsMoved(model, domain);
  /** Narrows column j to [lo, up] for good; false when that breaks a row (or the budget ran out). */
  const settle = (j: number, lo: number, up: number): boolean => {
    lastFind = domain.workDone();
    found = true;
    if (domain.restrict(j, lo, up)) return true;
    if (!domain.exhausted()) result.infeasible = true;
    return false;
  };
  const probe = (j: number, v: number): Side | null => {
    const mark = domain.mark();
    const feasible = domain.fix(j, v);
    if (!feasible && domain.exhausted()) {
      domain.undo(mark);
      return null;
    }
    const bounds = new Map<number, [number, number]>();
    if (feasible) {
      for (const c of domain.changedSince(mark)) if (model.integer[c] && c !== j) bounds.set(c, [domain.lo[c]!, domain.up[c]!]);
    }
    domain.undo(mark);
    return { feasible, bounds };
  };
  for (const j of order) {
    if (domain.exhausted() || performance.now() > opt.deadline || domain.workDone() - lastFind > stale) break;
    if (!found && domain.workDone() - begun > firstSlice) break;
    if (domain.lo[j] === domain.up[j]) continue;
    const down = probe(j, 0);
    if (!down) break;
    const up = probe(j, 1);
    if (!up) break;
    result.probed++;
    if (!down.feasible && !up.feasible) {
      result.infeasible = true;
      break;
    }
    if (!down.feasible || !up.feasible) {
      const v = down.feasible ? 0 : 1;
      if (!settle(j, v, v)) break;
      continue;
    }
    // columns both sides moved: the union of the two boxes
    let stop = false;
    for (const [c, [lo0, up0]] of down.bounds) {
      const other = up.bounds.get(c);
      if (!other) continue;
      const lo = Math.min(lo0, other[0]);
      const hi = Math.max(up0, other[1]);
      if (lo <= domain.lo[c]! && hi >= domain.up[c]!) continue;
      if (!settle(c, lo, hi)) {
        stop = true;
        break;
      }
    }
    if (stop) break;
  }
  return finish(model, domain, result);
}

/** Whether the domain holds an integer column's bounds tighter than the model's. */
function integerBoundsMoved(model: LpModel, domain: ActivityDomain): boolean {
  for (let j = 0; j < model.cols; j++) {
    if (model.integer[j] && (domain.lo[j] !== model.colLower[j] || domain.up[j] !== model.colUpper[j])) return true;
  }
  return false;
}

/** Copies the integer columns' bounds from the domain and counts what changed. */
function finish(model: LpModel, domain: ActivityDomain, result: ProbingResult): ProbingResult {
  result.work = domain.workDone();
  if (result.infeasible) return result;
  for (let j = 0; j < model.cols; j++) {
    if (!model.integer[j]) continue;
    const lo = domain.lo[j]!;
    const up = domain.up[j]!;
    if (lo === model.colLower[j] && up === model.colUpper[j]) continue;
    // + 0: a bound rounded up from just below zero is −0
    result.lower[j] = lo + 0;
    result.upper[j] = up + 0;
    if (lo === up) result.fixed++;
    else result.tightened++;
  }
  return result;
}

export interface ProbedRoot {
  stats: NonNullable<MipStats["probing"]>;
  /** The probed model presolved again and its postsolve; absent when probing changed nothing (or is not used). */
  searched?: { model: LpModel; post: ColumnPostsolve };
}

/**
 * Probes the presolved model's binaries (`probeBinaries`) and, when that fixes at least PROBING_FIXED_SHARE of
 * them, presolves the probed model again (so the fixed columns leave it, as after a root restart). A model
 * the probes find infeasible is searched unprobed: `infeasible` comes only from an exhausted tree.
 */
export function probeRoot(pre: Presolved, opt: MipOptions): ProbedRoot | null {
  const model = pre.reduced;
  if (model.cols === 0) return null;
  const r = probeBinaries(model, {
    workFactor: PROBING_WORK_FACTOR,
    staleFactor: PROBING_STALE_FACTOR,
    firstSliceFactor: PROBING_FIRST_SLICE_FACTOR,
    deadline: opt.deadline,
  });
  const stats = { probed: r.probed, fixed: r.fixed, tightened: r.tightened, work: r.work, applied: false };
  if (r.infeasible || r.fixed === 0 || r.fixed < PROBING_FIXED_SHARE * r.binaries) return { stats };
  const again = presolve(withColumnBounds(model, r.lower, r.upper));
  if (again.status !== "reduced") return { stats };
  return { stats: { ...stats, applied: true }, searched: { model: again.reduced, post: chainPostsolve(pre, again) } };
}
