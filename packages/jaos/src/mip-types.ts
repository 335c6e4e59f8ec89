/**
 * The shapes of branch and bound's options, statistics and outcome (mip.ts), and the statistics'
 * bookkeeping across root restarts.
 */
import type { Incumbent, Rejection } from "./incumbent.js";
import type { LpModel } from "./model.js";
import type { ColumnPostsolve } from "./root-restart.js";
import { emptySubMipStats, type SubMipStats } from "./sub-mip.js";

export interface MipOptions {
  deadline: number;
  gapTolerance: number;
  /** Absolute integrality tolerance of the fractionality test (integrality.ts; absent: 1e-6). */
  integralityTolerance?: number;
  /** Called on each new incumbent and every few hundred nodes (minimisation sense, with offset). */
  onProgress?: (incumbent: number | null, bound: number | null, nodes: number) => void;
  /** Called with each new incumbent, verified, in the original column space (minimisation sense, with offset). */
  onIncumbent?: (x: Float64Array, value: number) => void;
  /**
   * Root restarts (root-restart.ts): the share of the free integer columns the root's reduced-cost
   * fixing must fix (absent: ROOT_RESTART_SHARE), and how many restarts at most (absent: MAX_ROOT_RESTARTS).
   */
  rootRestartShare?: number;
  maxRootRestarts?: number;
  /**
   * A point to start from, in the original model's columns (a known solution, a previous run's): verified
   * like every incumbent (incumbent.ts) and the first incumbent when it passes, else ignored.
   */
  // engine-only: the service does not pass it yet (settings.initial_solution goes to native HiGHS, SCIP, CBC; docs/bench/jaos.md, mipearly)
  startSolution?: Float64Array;
  /** Orbitopal fixing on interchangeable blocks of columns (symmetry.ts, orbitope.ts); absent: on. */
  symmetry?: boolean;
  /** Probing on the binaries before the root (probing.ts); absent: on. */
  probing?: boolean;

  /** Bound propagation through the rows at every node before its LP (node-propagation.ts); absent: on. */
  nodePropagation?: boolean;
  /** Whether node propagation tightens continuous columns too (absent: PROPAGATE_CONTINUOUS in mip.ts). */
  propagateContinuous?: boolean;
  /** The root sub-MIP heuristic (sub-mip.ts: RENS, RINS) at the first root; absent: off. */
  // off by default: CPU ×1.064 over 24 MILPs with the gap-scaled budget, p2756 and fixnet6 slower with it (docs/bench/jaos.md, subon)
  rootSubMip?: boolean;
  /**
   * This search is one of the root's sub-MIPs (sub-mip.ts): no strong branching, no restart or sub-MIP,
   * its dives limited to what is left, and it stops as at a time limit between nodes once it has taken
   * `nodeLimit` nodes or `iterationLimit` simplex iterations. `fresh`: the neighbourhood was presolved
   * into a model of its own, whose root runs its own cut loop and is processed whatever the limits
   * (its LP and cuts are what the sub-MIP is for); otherwise the search runs on the root's model with
   * its cuts already in and no cuts of its own.
   */
  // set only by the root sub-MIP host (mip.ts), so off with `rootSubMip`; its sub-MIPs are all fresh (docs/bench/jaos.md, subfresh)
  subMip?: { nodeLimit: number; iterationLimit: number; fresh?: boolean };
  /** Dual proofs of pruned nodes kept and propagated at later nodes (dual-proof.ts, conflict-pool.ts); absent: CONFLICTS in mip.ts. */
  // off by default (CONFLICTS): fewer nodes, not less CPU, CPU ×1.013 over the 19 MILPs that learn proofs (docs/bench/jaos.md, conflict3)
  conflicts?: boolean;
  /** Whether the conflict pool watches its proofs (conflict-pool.ts); off only to check that watching changes nothing. */
  // acts only with `conflicts`, itself off by default (the watch is exact: docs/bench/jaos.md, conflict3)
  watchConflicts?: boolean;
}

export interface MipStats {
  rootBound: number | null;
  /** Root bound after the cut rounds (of the last root solved, after any restarts). */
  rootBoundAfterCuts: number | null;
  /** Root restarts (root-restart.ts): the model presolved again with the root's reduced-cost fixings. */
  rootRestarts: number;
  /** What became of the caller's start solution (MipOptions.startSolution); null when none was given. */
  startSolution: "accepted" | "rejected" | null;
  cuts: number;
  cutsKept: number;
  /** Clique cuts among `cuts` (clique-cuts.ts). */
  cliqueCuts: number;
  rootIterations: number;
  strongBranchings: number;
  strongIterations: number;
  dives: number;
  heuristicSolutions: number;
  maxDepth: number;
  openNodes: number;
  /** Bounds tightened by reduced-cost fixing at the root (global) and at nodes (local). */
  rootFixings: number;
  reducedCostFixings: number;
  unsolvedNodes: number;
  /** Points (node LPs' and heuristics') whose rounded copy broke a row, re-solved with the integers fixed (repair.ts). */
  repairs: number;
  /**
   * How node LP bounds were proved: by the Lagrangian bound of their duals, by a verified basis
   * (the Lagrangian bound needed an infinite column bound), or not at all (the node was branched on
   * its parent's bound, or kept unresolved); the largest shortfall of a proven bound below its
   * optimal LP's objective, relative to max(1, |objective|), and how many optimal LPs fell short by
   * more than 1e-9 (their simplex objective overstated what they prove).
   */
  nodeBounds: { lagrangian: number; verified: number; unproven: number; worstShortfall: number; loose: number };
  /** The orbitope found (rows × interchangeable blocks) and the node bounds its fixing tightened; null when none. */
  symmetry: { rows: number; blocks: number; fixings: number } | null;
  /**
   * Root probing (probing.ts): binaries probed, integer columns fixed and tightened, work, and whether the
   * search used the probed model (enough fixings, mip.ts); null when it did not run.
   */
  probing: { probed: number; fixed: number; tightened: number; work: number; applied: boolean } | null;

  /** Node propagation (node-propagation.ts): integer bounds it tightened, nodes it proved empty (no LP). */
  propagation: { tightenings: number; prunedNodes: number };
  /** The root sub-MIPs (sub-mip.ts); their nodes and iterations are in the search's totals too. */
  subMip: SubMipStats;
  /**
   * The conflict pool (conflict-pool.ts): proofs learned, nodes they emptied, bounds they tightened, proofs
   * taken from its queue and those of them its watch passed over.
   */
  conflicts: { learned: number; prunedNodes: number; tightenings: number; visits: number; skipped: number };
}

export interface MipOutcome {
  status: "optimal" | "infeasible" | "unbounded" | "time_limit" | "error";
  /** Best solution in the original column space, verified. */
  incumbent: Float64Array | null;
  /** Lower bound on the optimum (minimisation sense, with offset). */
  dualBound: number | null;
  /** (incumbent − bound) / |incumbent|, 0 when equal. */
  gap: number | null;
  nodes: number;
  iterations: number;
  message?: string;
  /**
   * With "error" (or an incomplete search): the last point that failed the check on the original model
   * and why, in the original model's columns and rows — a presolve whose reductions do not map back.
   */
  rejection?: Rejection;
  stats: MipStats;
}

/** A search's own nodes and iterations, its sub-MIPs' included (what its outcome reports before any restart's). */
export interface SearchTotals {
  nodes: number;
  iterations: number;
}

/** A search another one starts (a root restart's, a root sub-MIP's), seeded with the starter's incumbent. */
export interface ChildSearch {
  run(): MipOutcome;
  readonly best: Incumbent;
  /** Its incumbent as last accepted, in its own model's columns (null before the first). */
  readonly incumbentReduced: Float64Array | null;
}

/**
 * Starts a search of `model`, postsolved onto the original model by `post`, seeded with the starter's
 * incumbent; `restarts` and `earlierNodes` as the root restarts before it and their nodes (absent: 0).
 */
export type SpawnSearch = (post: ColumnPostsolve, model: LpModel, opt: MipOptions, restarts?: number, earlierNodes?: number) => ChildSearch;

/** Statistics of a search that has not started. */
export function emptyMipStats(): MipStats {
  return {
    rootBound: null,
    rootBoundAfterCuts: null,
    rootRestarts: 0,
    startSolution: null,
    cuts: 0,
    cutsKept: 0,
    cliqueCuts: 0,
    rootIterations: 0,
    strongBranchings: 0,
    strongIterations: 0,
    dives: 0,
    heuristicSolutions: 0,
    maxDepth: 0,
    openNodes: 0,
    rootFixings: 0,
    reducedCostFixings: 0,
    unsolvedNodes: 0,
    repairs: 0,
    nodeBounds: { lagrangian: 0, verified: 0, unproven: 0, worstShortfall: 0, loose: 0 },
    symmetry: null,
    probing: null,

    propagation: { tightenings: 0, prunedNodes: 0 },
    subMip: emptySubMipStats(),
    conflicts: { learned: 0, prunedNodes: 0, tightenings: 0, visits: 0, skipped: 0 },
  };
}

/** The numeric counters of MipStats. */
type MipCounter = { [K in keyof MipStats]: MipStats[K] extends number ? K : never }[keyof MipStats];

/**
 * How a root restart combines each counter: "sum" adds the work of the searches before and after it,
 * "last" keeps the last search's (its kept cuts, its tree). A counter added to MipStats must be placed
 * here, or the type check fails.
 */
const ACROSS_RESTART: Record<MipCounter, "sum" | "last"> = {
  rootRestarts: "sum",
  cuts: "sum",
  cutsKept: "last",
  cliqueCuts: "sum",
  rootIterations: "sum",
  strongBranchings: "sum",
  strongIterations: "sum",
  dives: "sum",
  heuristicSolutions: "sum",
  maxDepth: "last",
  openNodes: "last",
  rootFixings: "sum",
  reducedCostFixings: "sum",
  unsolvedNodes: "last",
  repairs: "sum",
};

/** Two sets of counters of the same names added up. */
const added = <T extends Record<string, number>>(a: T, b: T): T => Object.fromEntries(Object.keys(a).map((k) => [k, a[k]! + b[k]!])) as T;

/**
 * The statistics of a search that restarted at its root (`mine`) and of the search after the restart
 * (`theirs`): counters add up as ACROSS_RESTART says (and the restart itself counts), the root bound,
 * the orbitope and the probing are the first root's where it had them, the rest is the last search's.
 */
export function statsAfterRestart(mine: MipStats, theirs: MipStats): MipStats {
  const stats: MipStats = {
    ...theirs,
    rootBound: mine.rootBound,
    symmetry: mine.symmetry ?? theirs.symmetry,
    probing: mine.probing ?? theirs.probing,
    propagation: added(mine.propagation, theirs.propagation),
    // the sub-MIPs run at the first root only
    subMip: mine.subMip,
    conflicts: added(mine.conflicts, theirs.conflicts),
    startSolution: mine.startSolution,
  };
  for (const [key, how] of Object.entries(ACROSS_RESTART) as [MipCounter, "sum" | "last"][]) if (how === "sum") stats[key] = mine[key] + theirs[key];
  stats.rootRestarts += 1;
  return stats;
}
