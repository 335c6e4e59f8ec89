/**
 * Root restarts (mip.ts). When the proven root bound and an incumbent fix a large share of the integer
 * columns by reduced costs (reduced-cost.ts, global: the root LP relaxes the whole search), the model
 * with those bounds and the root's kept cuts is presolved again and the root solved again on the smaller
 * model: presolve removes the fixed columns and what they decide, and the new root's cut loop starts from
 * the old cuts (HiGHS restarts at 10 % inactive integer columns and, on l152lav or p2756, closes at the
 * root after two to five). Cuts from scratch were measured and lost: bal8x12 411 → 2,158 iterations.
 *
 * Soundness: the fixings only exclude points whose objective reaches the pruning level, so every point
 * better than the incumbent lies in the restricted model; the incumbent itself is carried over in the
 * original column space (already verified there), and points of the new model are postsolved through
 * both presolves (`chainPostsolve`) and verified on the original model as before.
 */
import { type MipOptions, type MipOutcome, type MipStats, type SearchTotals, type SpawnSearch, statsAfterRestart } from "./mip-types.js";
import type { LpModel } from "./model.js";
import { presolve, type Presolved } from "./presolve.js";
import { reducedCostBounds } from "./reduced-cost.js";

/** The map the search needs from a presolve: reduced column values to original ones. */
export type ColumnPostsolve = Pick<Presolved, "postsolve">;

/**
 * Share of the free integer columns the root must have fixed to restart. HiGHS's 10 % was measured and
 * lost on small models whose restarts buy nothing (p0033, khb05250: ×1.4 to ×1.9 iterations); at 20 %
 * the restarts that pay (cap6000, mod010, ran6x43) remain (docs/bench/jaos.md, "root restarts").
 */
export const ROOT_RESTART_SHARE = 0.2;
/** Restarts at most per solve: each one solves the root LP and its cut loop again. */
export const MAX_ROOT_RESTARTS = 3;

/** Postsolve through `inner` (the restart's presolve) and then `outer` (the presolve before it). */
export function chainPostsolve(outer: ColumnPostsolve, inner: ColumnPostsolve): ColumnPostsolve {
  return { postsolve: (x) => outer.postsolve(inner.postsolve(x)) };
}

/** The model with the given column bounds (the rows and everything else shared). */
export function withColumnBounds(model: LpModel, lower: Float64Array, upper: Float64Array): LpModel {
  return { ...model, colLower: lower.slice(), colUpper: upper.slice() };
}

/**
 * The share of the integer columns free in (`fromLower`, `fromUpper`) that (`lower`, `upper`) fix;
 * 0 when the model has no free integer column.
 */
export function fixedIntegerShare(integer: Uint8Array, fromLower: Float64Array, fromUpper: Float64Array, lower: Float64Array, upper: Float64Array): number {
  let free = 0;
  let fixed = 0;
  for (let j = 0; j < integer.length; j++) {
    if (!integer[j] || fromLower[j] === fromUpper[j]) continue;
    free++;
    if (lower[j] === upper[j]) fixed++;
  }
  return free === 0 ? 0 : fixed / free;
}

/**
 * Root reduced-cost fixing (reduced-cost.ts) with the root LP's proven `reducedCosts` and basis `status`
 * and the `room` between the pruning level and the root's proven bound: tightens the global bounds
 * (`lower`, `upper`) in place and returns how many columns it tightened.
 */
export function rootReducedCostFixing(
  integer: Uint8Array,
  lower: Float64Array,
  upper: Float64Array,
  reducedCosts: Float64Array,
  status: Int8Array,
  room: number,
): number {
  const changes = reducedCostBounds(integer, lower, upper, reducedCosts, status, room);
  for (const c of changes) {
    lower[c.col] = c.lower;
    upper[c.col] = c.upper;
  }
  return changes.length;
}

/**
 * The restart rule past its incumbent and restart count: when the global bounds (`lower`, `upper`) fix at
 * least `share` of the integer columns free in `base` (the model the search started from), the search's
 * `model` (its kept cuts in) with those bounds presolved; null when they fix less. A presolve that finds the
 * restricted model infeasible (no point better than the incumbent) gives null too: the tree proves the
 * same without trusting presolve's argument.
 */
export function restartModel(base: LpModel, model: LpModel, lower: Float64Array, upper: Float64Array, share: number): Presolved | null {
  if (fixedIntegerShare(base.integer, base.colLower, base.colUpper, lower, upper) < share) return null;
  const pre = presolve(withColumnBounds(model, lower, upper));
  if (pre.status !== "reduced" || pre.reduced.cols === 0) return null;
  return pre;
}

/** What a search lends its root restart (mip.ts builds it at the root). */
export interface RestartPort {
  /** The model the search started from (the restart share counts against its bounds), the root's model with its kept cuts, the root's box. */
  readonly base: LpModel;
  readonly model: LpModel;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly opt: MipOptions;
  /** The search's postsolve onto the original model. */
  readonly post: ColumnPostsolve;
  /** Whether it has an incumbent; the root restarts before it; whether it sorts an orbitope's blocks. */
  readonly found: boolean;
  readonly restarts: number;
  readonly sortedBlocks: boolean;
  /** Nodes of the searches up to the restart, its own included (progress reports count them). */
  readonly nodesSoFar: number;
  readonly stats: MipStats;
  readonly totals: SearchTotals;
  readonly spawn: SpawnSearch;
}

/** The restricted model presolved when the root restarts (an incumbent, restarts left, and `restartModel`'s rule); else null. */
export function rootRestart(port: RestartPort): Presolved | null {
  const { opt } = port;
  if (!port.found || port.restarts >= (opt.maxRootRestarts ?? MAX_ROOT_RESTARTS)) return null;
  return restartModel(port.base, port.model, port.lower, port.upper, opt.rootRestartShare ?? ROOT_RESTART_SHARE);
}

/** The search again from the root of the restricted model presolved (`pre`), the incumbent carried over. */
export function restartedSearch(port: RestartPort, pre: Presolved): MipOutcome {
  // The restricted model keeps this search's sorted blocks in its bounds: a second orbitope found in it
  // could sort by another order, and the two restrictions together might exclude every optimum.
  const opt = port.sortedBlocks ? { ...port.opt, symmetry: false } : port.opt;
  const out = port.spawn(chainPostsolve(port.post, pre), pre.reduced, opt, port.restarts + 1, port.nodesSoFar).run();
  const stats = statsAfterRestart(port.stats, out.stats);
  return { ...out, nodes: out.nodes + port.totals.nodes, iterations: out.iterations + port.totals.iterations, stats };
}
