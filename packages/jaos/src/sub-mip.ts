/**
 * The root sub-MIP heuristic: its neighbourhoods, budget and chain. mip.ts runs each sub-MIP as a MILP of
 * its own: the root's model (its cuts in) with the neighbourhood's bounds, presolved and probed (the fixed
 * columns and what they decide leave it: vpm2's 263 columns become 111, p2756's 2,735 become 37), then
 * searched from its own root LP and cut loop by the same branch and bound, without strong branching,
 * restarts or sub-MIPs of its own, stopped between nodes by a node and an iteration limit. HiGHS's
 * sub-MIPs are such presolved full solves (its logs print the sub-problem's size); the first version
 * here searched the root's full model with columns fixed by bounds, no presolve and no cuts, and found
 * nothing better on ran8x32 (docs/bench/jaos.md, mipsub).
 *
 * It runs at the first root after its dives and before the restart rule (root-restart.ts), so that what
 * it finds feeds the root's reduced-cost fixing and, through it, a restart on the smaller model — the
 * order HiGHS's logs show on p2756, l152lav and atm_5_10_1 (sub-MIP incumbent, fixing, restart).
 *
 * - RINS (Danna, Rothberg & Le Pape 2005), with an incumbent: the integer columns on which the root
 *   LP point and the incumbent agree are fixed at that common value.
 * - RENS (Berthold 2014), without one: the integer columns whose root LP value is integral are fixed
 *   there, the fractional ones kept to [floor, ceil] of their LP value (every rounding of the LP point
 *   lies in that box).
 *
 * A neighbourhood that fixes too small a share of the free integer columns is not searched: its
 * sub-MIP is nearly the whole problem and would cost what the search it is meant to shortcut costs.
 *
 * The budget is what keeps the heuristic cheap where the tree was already short (the first attempt,
 * 500 nodes a sub-MIP, cost more than the whole search on 250-node trees): all sub-MIPs together take
 * at most a fixed share of the simplex iterations the root (LP and cut loop) took, so the heuristic at
 * most multiplies the root's work by a constant, whatever the tree would have been. That share was 0.5
 * for sub-MIPs on the root's model; a fresh sub-MIP spends part of it on its own root LP and cut loop
 * (vpm2: 595 of 540 iterations, no node searched), and HiGHS's sub-MIPs take 1.5 to 14 times its root's
 * iterations (vpm2 6,170 heuristic iterations against a root of about 440; ran8x32 12,371 against 520),
 * hence 2.
 */

import type { MipOptions } from "./mip-types.js";

/** Share of the free integer columns RINS must fix (SCIP's default minimum fixing rate for RINS). */
export const RINS_MIN_FIXED_SHARE = 0.3;
/** Share RENS must fix (SCIP's default for RENS): its box keeps every fractional column free. */
export const RENS_MIN_FIXED_SHARE = 0.5;
/**
 * All root sub-MIPs together: at most this share of the root's simplex iterations (LP and cuts). A sub-MIP
 * stops between nodes, so it may pass its limit by one node's LP and heuristics (counted in the totals).
 */
export const SUB_MIP_ITERATION_SHARE = 2;
/** … and at least this many, so that a root solved in a handful of iterations still gets a try. */
export const SUB_MIP_MIN_ITERATIONS = 200;
/** Nodes one sub-MIP may take. */
export const SUB_MIP_NODE_LIMIT = 500;
/**
 * Sub-MIPs one root runs at most: each must improve the incumbent for the next to run (RINS around the
 * better point), and the budget bounds them all; this only bounds a chain of many tiny improvements.
 */
export const SUB_MIP_MAX_RUNS = 5;
/** An LP value this close to an integer (or to the incumbent's value) counts as equal to it. */
const AGREEMENT = 1e-6;

export interface Neighbourhood {
  kind: "rins" | "rens";
  colLower: Float64Array;
  colUpper: Float64Array;
  /** Integer columns the neighbourhood fixes (columns already fixed by their bounds not counted). */
  fixed: number;
  /** Integer columns not already fixed by their bounds. */
  free: number;
}

/**
 * The sub-MIP's bounds within [lower, upper]: RINS around `incumbent` when there is one, else RENS
 * around the LP point `lp`. Null when fewer than the kind's minimum share of the free integer columns
 * would be fixed, or all of them (the sub-MIP would be one LP: the incumbent, or a rounding the node's
 * own heuristics already tried).
 */
export function subMipNeighbourhood(
  integer: Uint8Array,
  lower: Float64Array,
  upper: Float64Array,
  lp: ArrayLike<number>,
  incumbent: ArrayLike<number> | null,
): Neighbourhood | null {
  const colLower = lower.slice();
  const colUpper = upper.slice();
  let fixed = 0;
  let free = 0;
  for (let j = 0; j < integer.length; j++) {
    if (!integer[j] || lower[j] === upper[j]) continue;
    free++;
    const x = lp[j]!;
    const v = incumbent ? Math.round(incumbent[j]!) : Math.round(x);
    if (Math.abs(x - v) <= AGREEMENT && v >= lower[j]! && v <= upper[j]!) {
      colLower[j] = v;
      colUpper[j] = v;
      fixed++;
    } else if (!incumbent) {
      // RENS: only the roundings of the LP value
      colLower[j] = Math.max(lower[j]!, Math.floor(x));
      colUpper[j] = Math.min(upper[j]!, Math.ceil(x));
    }
  }
  const minShare = incumbent ? RINS_MIN_FIXED_SHARE : RENS_MIN_FIXED_SHARE;
  if (free === 0 || fixed === free || fixed < minShare * free) return null;
  return { kind: incumbent ? "rins" : "rens", colLower, colUpper, fixed, free };
}

/**
 * The root gap (incumbent against the root's proven bound, relative to max(1, |incumbent|)) at and above
 * which the sub-MIPs get their whole share; below it the share falls in proportion, since what a sub-MIP
 * can win is at most that gap (misc06's root incumbent is within 0.6 % of its bound and 0.01 % of the
 * optimum, and its sub-MIPs took 1,774 iterations, more than its whole search's 1,306, to win that 0.01 %).
 * 0.05 from 24 MILPs measured off and on (docs/bench/jaos.md, subon).
 */
export const SUB_MIP_FULL_GAP = 0.05;

/**
 * Simplex iterations all root sub-MIPs together may take, from the root's own and the root gap `gap`
 * (Infinity without an incumbent); 0 when the gap scales the share below the floor.
 */
export function subMipIterationBudget(rootIterations: number, gap = Infinity): number {
  const scale = Math.min(1, Math.max(0, gap) / SUB_MIP_FULL_GAP);
  const scaled = Math.ceil(scale * SUB_MIP_ITERATION_SHARE * rootIterations);
  // below the floor because the gap is small, not the root: too little to win for a sub-MIP whose own root
  // LP and cut loop run whatever its limit (misc06 took 552 iterations of a 200 floor for nothing)
  if (scale < 1 && scaled < SUB_MIP_MIN_ITERATIONS) return 0;
  return Math.max(SUB_MIP_MIN_ITERATIONS, scaled);
}

/** What the root sub-MIPs did: runs by kind, incumbents improved, nodes and iterations, the budget. */
export interface SubMipStats {
  rens: number;
  rins: number;
  solutions: number;
  nodes: number;
  iterations: number;
  budget: number;
}

export function emptySubMipStats(): SubMipStats {
  return { rens: 0, rins: 0, solutions: 0, nodes: 0, iterations: 0, budget: 0 };
}

/** The search the sub-MIPs run in (mip.ts: a branch and bound on the same presolved model). */
export interface SubMipHost {
  integer: Uint8Array;
  /** The root's global bounds (after its reduced-cost fixing): the neighbourhoods lie inside them. */
  lower: Float64Array;
  upper: Float64Array;
  deadline: number;
  /** (incumbent − the root's proven bound) / max(1, |incumbent|); Infinity without an incumbent. */
  rootGap(): number;
  /** The incumbent in the presolved model's columns (integer columns rounded), or null. */
  incumbent(): Float64Array | null;
  /**
   * One sub-MIP on these bounds, seeded with the incumbent, within the limits; whether it improved the
   * incumbent (its point verified on the original model and taken over by the host), its nodes and iterations.
   */
  search(
    colLower: Float64Array,
    colUpper: Float64Array,
    limit: { nodeLimit: number; iterationLimit: number },
  ): { improved: boolean; nodes: number; iterations: number };
}

/**
 * The chain of root sub-MIPs, all within one iteration budget taken from the root's own work
 * (`rootIterations`: its LP and cut loop): RINS around the incumbent while each one improves it (one that
 * finds nothing better ends it: its neighbourhood would not change), and once, when there is no incumbent
 * or RINS is done, RENS around the root LP point `lp` (after cuts), seeded with the incumbent. HiGHS finds
 * l152lav's optimum at the root by RENS on the LP after cuts; jaos's dives have an incumbent by then, and
 * RINS around it stalls one point short (4,803).
 */
export function runRootSubMips(host: SubMipHost, lp: ArrayLike<number>, rootIterations: number, stats: SubMipStats): void {
  const start = stats.iterations;
  const budget = subMipIterationBudget(rootIterations, host.rootGap());
  stats.budget += budget;
  let rensTried = false;
  /** The last RINS found nothing better: its neighbourhood would not change until the incumbent does. */
  let rinsStale = false;
  for (let run = 0; run < SUB_MIP_MAX_RUNS; run++) {
    // a better incumbent narrows the gap and with it what the next sub-MIP may take: the chain stops once
    // what is left to win is no longer worth the iterations spent
    const left = Math.min(budget, subMipIterationBudget(rootIterations, host.rootGap())) - (stats.iterations - start);
    if (left <= 0 || performance.now() > host.deadline) return;
    const incumbent = host.incumbent();
    let hood = incumbent && !rinsStale ? subMipNeighbourhood(host.integer, host.lower, host.upper, lp, incumbent) : null;
    if (!hood && !rensTried) {
      rensTried = true;
      hood = subMipNeighbourhood(host.integer, host.lower, host.upper, lp, null);
    }
    if (!hood) return;
    const out = host.search(hood.colLower, hood.colUpper, { nodeLimit: SUB_MIP_NODE_LIMIT, iterationLimit: left });
    stats[hood.kind]++;
    stats.nodes += out.nodes;
    stats.iterations += out.iterations;
    if (out.improved) {
      stats.solutions++;
      rinsStale = false;
    } else if (hood.kind === "rins") rinsStale = true;
  }
}

/**
 * The options of one sub-MIP of a search with options `opt`: its tolerances, deadline and node
 * propagation, without symmetry handling or restarts,
 * and the sub-MIP's `limit`.
 */
export function subMipOptions(opt: MipOptions, limit: NonNullable<MipOptions["subMip"]>): MipOptions {
  const { deadline, gapTolerance, integralityTolerance, nodePropagation, propagateContinuous, probing, conflicts } = opt;
  return {
    deadline,
    gapTolerance,
    integralityTolerance,
    nodePropagation,
    propagateContinuous,
    probing,
    conflicts,
    symmetry: false,
    maxRootRestarts: 0,
    subMip: limit,
  };
}

/** A heuristic's iteration budget; in a sub-MIP (`limit`), no more than what is left of its limit after `iterations`. */
export function heuristicBudget(limit: MipOptions["subMip"], budget: number, iterations: number): number {
  return limit ? Math.max(0, Math.min(budget, limit.iterationLimit - iterations)) : budget;
}

/**
 * A sub-MIP (`limit`) has taken its nodes or its iterations. A fresh one's root (`nodes` 0) is always
 * processed: its LP and cut loop, the bulk of its work, are done by then.
 */
export function subMipSpent(limit: MipOptions["subMip"], nodes: number, iterations: number): boolean {
  if (!limit || (limit.fresh && nodes === 0)) return false;
  return nodes >= limit.nodeLimit || iterations >= limit.iterationLimit;
}
