/**
 * Branch and bound on the LP relaxation of the presolved model.
 *
 * - Node LPs: warm-started dual simplex from the parent's basis (always dual feasible: branching only
 *   changes bounds), with the incumbent-based cutoff passed to the LP so hopeless nodes stop early.
 * - Node selection: best bound, with depth-first plunges: after branching, one child is processed
 *   next while its bound is close to the global bound (before the first incumbent: always, or on
 *   an integral objective while it rounds to the global bound, up child first), which finds
 *   incumbents early and keeps warm starts short.
 * - Branching: reliability pseudo-cost branching (branching.ts); strong branching limited to half
 *   of all iterations (to 1000 before the first incumbent).
 * - Root restarts (root-restart.ts): when the root's reduced-cost fixing with the first dive's incumbent
 *   fixes a tenth of the free integer columns, the model with its kept cuts and those bounds is presolved
 *   again and the search starts over from its root, the incumbent carried over.
 * - Node propagation (node-propagation.ts): before a node's LP its new bounds go through the rows'
 *   activity ranges; integer columns tightened (inherited by the children), an empty node pruned unsolved.
 * - Heuristics: simple rounding at every node, fractional diving at the root and periodically; with the
 *   rootSubMip option, budgeted sub-MIPs (RENS, RINS; sub-mip.ts) at the first root before the restart rule.
 * - Pruning: a node goes when its bound reaches the incumbent minus the gap tolerance, or, for an
 *   objective whose best points take values offset + k·step (objective-lattice.ts), when its bound rounds
 *   up to the incumbent. Every bound used to prune, to fix by reduced costs or to report
 *   is a PROVEN one (node-bound.ts): the Lagrangian bound of the LP's final duals on the unscaled
 *   model, never the simplex's own objective; an LP that proves nothing does not prune.
 *
 * - Integrality (integrality.ts, node-integral.ts): a node LP point with no fractional column is offered with its integer
 *   columns rounded exactly. When that point breaks a row of the original model (y = 3e-7 in
 *   x − 1e7·y ≤ 0 passes the integrality tolerance, yet y = 0 leaves x no room), the LP is solved again
 *   with the integers fixed at the rounded values (`repair`); if that does not close the node, it
 *   branches on the integer whose rounding moved its rows most; when every integer column is already
 *   exactly integral the node is kept unresolved with the reason (the search then never claims
 *   optimality or infeasibility on it). Heuristic points whose rounding alone broke a row are repaired
 *   the same way.
 *
 * Every incumbent is postsolved and verified on the original model before it is accepted. The dual
 * bound is the smallest bound of the open nodes, of the node being processed (progress reported while a
 * node is out of the queue counts it) and of nodes whose LP could not be solved, which are kept as
 * unresolved bounds rather than pruned. `infeasible` only comes from an exhausted tree.
 */
import { chooseBranch, PseudoCosts, unmeasuredBranch, type BranchChoice } from "./branching.js";
import { propagationDive } from "./propagation-dive.js";
import { probeRoot } from "./probing.js";
import { computeLocks, fractionalDive, simpleRounding, type Locks } from "./heuristics.js";
import { Incumbent, type OfferVerdict, type Rejection } from "./incumbent.js";
import { IntegralityRule } from "./integrality.js";
import { LpEngine, type LpResult } from "./lp.js";
import type { LpModel } from "./model.js";
import { NodePropagator } from "./node-propagation.js";
import { ConflictPool } from "./conflict-pool.js";
import { NodeQueue, type MipNode } from "./node-queue.js";
import { type Orbitope, withSortedBlocks } from "./orbitope.js";
import { NodeBox } from "./node-box.js";
import { type IntegralHost, integralNode, type NodeLp } from "./node-integral.js";
import { type Children, NodeChildren } from "./node-children.js";
import type { Presolved } from "./presolve.js";
import { reducedCostBounds, type BoundChange } from "./reduced-cost.js";
import { repairRounded } from "./repair.js";
import { noCuts, rootCutLoop } from "./root-cuts.js";
import { finiteOrUndefined, maxOf, minOf } from "./numbers.js";
import { provenLpBound, type ProvenBound } from "./node-bound.js";
import { impliedColumnBounds, type ColumnBox } from "./safe-bound.js";
import { type ColumnPostsolve, type RestartPort, restartedSearch, rootReducedCostFixing, rootRestart } from "./root-restart.js";
import { detectOrbitope } from "./symmetry.js";
import { heuristicBudget, runRootSubMips, type SubMipHost, subMipSpent } from "./sub-mip.js";
import { subMipHost } from "./sub-mip-host.js";
import { emptyMipStats, type MipOptions, type MipOutcome, type MipStats, type SearchTotals, type SpawnSearch } from "./mip-types.js";

export type { MipOptions, MipOutcome, MipStats } from "./mip-types.js";

const MAX_STORED_BASES = 200_000;
/** A proven bound this far (relative) below its optimal LP's objective counts as a loose LP in the stats. */
const LOOSE_SHORTFALL = 1e-9;
/** Node propagation's work cap (matrix entries visited per node): the nonzeros, at least this. */
const MIN_PROPAGATION_WORK = 10_000;
/** Whether node propagation tightens continuous columns too (node-propagation.ts). */
const PROPAGATE_CONTINUOUS = false;
/**
 * Whether dual proofs of pruned nodes are kept and propagated (dual-proof.ts, conflict-pool.ts): off, it
 * did not pay over the wide and scale MILPs (nodes ×1.00 where both solved; docs/bench/jaos.md, mipconflict;
 * by CPU time ×1.001 over the 34 solved both ways, nodes ×0.97: conflict2; with its proofs watched, ×1.013
 * over the 19 that learn proofs, the queue still its cost: conflict3).
 */
const CONFLICTS = false;
/** Proofs the conflict pool keeps at most. */
const CONFLICT_CAPACITY = 2000;

export function solveMip(original: LpModel, pre: Presolved, opt: MipOptions): MipOutcome {
  // without presolve (switched off, or the search again after presolve went wrong) the model is searched as given
  const probed = opt.probing === false || pre.reduced === original ? null : probeRoot(pre, opt);
  const searched = probed?.searched ?? { model: pre.reduced, post: pre };
  const out = new BranchAndBound(original, searched.post, searched.model, opt).run();
  return probed ? { ...out, stats: { ...out.stats, probing: probed.stats } } : out;
}

/** What processing a node gives: its children, null when it closed, or why the search stops. */
type NodeResult = Children | null | "stopped" | "restart";

class BranchAndBound {
  private engine: LpEngine;
  /** The presolved model plus the root cuts kept for the search. */
  private model: LpModel;
  private readonly queue = new NodeQueue();
  private readonly pseudo: PseudoCosts;
  private locks: Locks;
  private readonly rootLower: Float64Array;
  private readonly rootUpper: Float64Array;
  /** Public for the search that started this one (a restart's, a sub-MIP's: `ChildSearch`). */
  readonly best: Incumbent;
  private readonly integrality: IntegralityRule;
  /** The node out of the queue being solved: its bound still limits the dual bound progress reports. */
  private active: MipNode | null = null;
  /** Why the search is incomplete beyond failed node LPs: an integral point that failed the check. */
  private rejected: Rejection | null = null;
  private nodes = 0;
  private iterations = 0;
  private unsolvedBound = Infinity;
  /** Root LP value and reduced costs (after cuts), for global reduced-cost fixing. */
  private rootObjective = -Infinity;
  private rootReducedCosts: Float64Array | null = null;
  private rootStatus: Int8Array | null = null;
  /** Smallest bound among nodes pruned while still below the incumbent (gap or lattice pruning). */
  private prunedBound = Infinity;
  private strongEffort = 0;
  private readonly stats: MipStats = emptyMipStats();
  /** Interchangeable blocks of the presolved model: the search keeps only their sorted points (orbitope.ts). */
  private readonly orbitope: Orbitope | null;
  /** Finite bounds the rows imply for columns without one (for the Lagrangian bound). */
  private implied: ColumnBox | undefined;
  /** The model the search started from (before the root cuts): the restart share counts against its bounds. */
  private readonly base: LpModel;
  /** The restricted model presolved, once the root decided to restart (root-restart.ts). */
  private pendingRestart: Presolved | null = null;
  /** Bound propagation at the nodes (node-propagation.ts), once the root's cuts are in; null when off. */
  private propagator: NodePropagator | null = null;
  /** The incumbent as last accepted, in the presolved model's columns (a sub-MIP's RINS neighbourhood; `ChildSearch`). */
  incumbentReduced: Float64Array | null = null;
  /** Dual proofs of pruned nodes (conflict-pool.ts), created with the propagator; null when off. */
  private conflicts: ConflictPool | null = null;
  /** What the engine's current LP proves, as a number (strong branching's `proveBound`; made once, not per node). */
  private readonly provenValue = (): number => this.prove()?.value ?? -Infinity;
  /** The node's bounds (node-box.ts), built from the root's, the path's decisions, propagation and orbitopal fixing. */
  private readonly box: NodeBox;
  /** The search's nodes as they are made: the root, then each branched node's children (node-children.ts). */
  private readonly nodeChildren: NodeChildren;
  constructor(
    private readonly original: LpModel,
    private readonly pre: ColumnPostsolve,
    model: LpModel,
    private readonly opt: MipOptions,
    /** Root restarts made before this search (root-restart.ts). */
    private readonly restarts = 0,
    /** Nodes the searches before the restarts solved (progress reports count them). */
    private readonly earlierNodes = 0,
  ) {
    this.orbitope = opt.symmetry === false ? null : detectOrbitope(model);
    if (this.orbitope) this.stats.symmetry = { rows: this.orbitope.rows, blocks: this.orbitope.blocks, fixings: 0 };
    this.model = this.orbitope ? withSortedBlocks(model, this.orbitope) : model;
    // after the orbitope's root fixings, so that they do not count as the root's reduced-cost fixings
    this.base = this.model;
    this.engine = new LpEngine(this.model);
    this.pseudo = new PseudoCosts(model.cols);
    this.locks = computeLocks(model);
    this.rootLower = this.model.colLower.slice();
    this.rootUpper = this.model.colUpper.slice();
    this.box = new NodeBox(this.model.cols, this.orbitope, {
      rootLower: this.rootLower,
      rootUpper: this.rootUpper,
      stats: this.stats,
      engine: () => this.engine,
      propagator: () => this.propagator,
      conflicts: () => this.conflicts,
      pruneLevel: () => this.pruneLevel(),
    });
    this.nodeChildren = new NodeChildren({
      pseudo: this.pseudo,
      model: () => this.engine.model,
      notePruned: (bound) => this.notePruned(bound),
      upFirst: () => !this.best.found && this.best.latticeObjective,
    });
    this.integrality = new IntegralityRule(model, opt.integralityTolerance);
    this.best = new Incumbent(original, pre, model, opt.gapTolerance, this.integrality.tolerance);
  }

  run(): MipOutcome {
    const { opt } = this;
    if (opt.startSolution && this.restarts === 0) this.offerStart(opt.startSolution);
    if (this.model.cols === 0) {
      // presolve decided every column: its point is the answer, or presolve went wrong (never "infeasible")
      if (this.offerVerdict(new Float64Array(0)) === "rejected") return this.rejectedOutcome("presolve removed every column but its point fails the check");
      return this.outcome("optimal");
    }
    let root = this.engine.solve({ deadline: opt.deadline });
    this.iterations += root.iterations;
    this.stats.rootIterations = root.iterations;
    if (root.status === "infeasible") return this.outcome("infeasible");
    if (root.status === "time_limit") return this.outcome("time_limit");
    if (root.status === "unbounded") return this.unboundedRelaxation();
    if (root.status !== "optimal") return this.outcome("error", root.message ?? `root LP ended ${root.status}`);
    this.stats.rootBound = root.objective;
    // a sub-MIP on the root's model searches it with its cuts already in; a fresh one (its neighbourhood
    // presolved into a model of its own) runs its own cut loop
    const cut =
      opt.subMip && !opt.subMip.fresh ? { ...noCuts, model: this.model, engine: this.engine, root } : rootCutLoop(this.model, this.engine, root, opt.deadline);
    this.model = cut.model;
    this.engine = cut.engine;
    this.locks = computeLocks(cut.model);
    root = cut.root;
    this.iterations += cut.iterations;
    this.stats.rootIterations += cut.iterations;
    this.stats.cuts = cut.cutsAdded;
    this.stats.cutsKept = cut.cutsKept;
    this.stats.cliqueCuts = cut.byKind.clique;
    this.implied = impliedColumnBounds(this.model, this.rootLower, this.rootUpper);
    // over the rows the search keeps: the presolved model's and the root's cuts
    if (opt.nodePropagation !== false)
      this.propagator = new NodePropagator(
        this.model,
        Math.max(MIN_PROPAGATION_WORK, this.model.a.start[this.model.cols]!),
        opt.propagateContinuous ?? PROPAGATE_CONTINUOUS,
      );
    if (this.propagator && (opt.conflicts ?? CONFLICTS))
      this.conflicts = new ConflictPool(
        this.model,
        CONFLICT_CAPACITY,
        Math.max(MIN_PROPAGATION_WORK, this.model.a.start[this.model.cols]!),
        this.stats.conflicts,
        opt.watchConflicts ?? true,
      );
    const rootProof = this.prove(root);
    this.stats.rootBoundAfterCuts = rootProof?.value ?? null;
    if (rootProof) {
      this.rootObjective = rootProof.value;
      this.rootReducedCosts = rootProof.reducedCosts;
      this.rootStatus = rootProof.status;
    }
    this.rootFixing();

    let current: MipNode | null = this.nodeChildren.root(rootProof?.value ?? -Infinity, root.objective);
    let preSolved: LpResult | null = root;
    let stopped = false;
    for (;;) {
      if (current === null) {
        const next = this.queue.pop();
        if (!next) break;
        if (next.lowerBound >= this.pruneLevel()) {
          this.notePruned(next.lowerBound);
          continue;
        }
        current = next;
      }
      if (this.globalBound(current) >= this.pruneLevel()) {
        this.queue.push(current); // kept for the reported bound
        break;
      }
      if (performance.now() > opt.deadline || subMipSpent(this.opt.subMip, this.nodes, this.iterations)) {
        this.queue.push(current);
        stopped = true;
        break;
      }
      this.active = current;
      const out = this.processNode(current, preSolved);
      this.active = null;
      preSolved = null;
      if (out === "restart") return this.restart();
      if (out === "stopped") {
        this.queue.push(current);
        stopped = true;
        break;
      }
      if (out === null) {
        current = null;
        continue;
      }
      const [dive, other] = out;
      if (other) this.queue.push(other);
      if (dive && this.plunge(dive)) current = dive;
      else {
        if (dive) this.queue.push(dive);
        current = null;
      }
      if (this.queue.size > MAX_STORED_BASES) this.queue.dropBases();
      if ((this.nodes & 255) === 0) this.report(current);
    }
    this.stats.openNodes = this.queue.size;
    if (stopped) return this.outcome("time_limit");
    if (this.unsolvedBound < this.pruneLevel()) {
      if (this.rejected) return this.rejectedOutcome("a node's integral point fails the check on the original model; the search is incomplete");
      return this.outcome("error", "some node LPs could not be solved or their bounds proven; the search is incomplete");
    }
    return this.outcome(this.best.found ? "optimal" : "infeasible");
  }

  /**
   * Solves one node: its bounds, its LP and what that LP decides (`solveNodeLp`, `integralNode`), its
   * heuristics, the restart rule at the root, the branching column and the children (`children`). Returns
   * the children ([dive candidate, other]), null when the node closed, "stopped" or "restart".
   */
  private processNode(node: MipNode, preSolved: LpResult | null): NodeResult {
    const { engine } = this;
    const tightened = this.box.apply(node);
    if (!tightened) {
      this.nodes++;
      return null;
    }
    const solved = this.solveNodeLp(node, preSolved);
    if (solved === null || solved === "stopped") return solved;
    const lp = integralNode(this.integralHost, node, solved);
    if (lp === null || lp === "stopped") return lp;
    const { r, proof, x } = lp;
    if (node.branch) {
      const b = node.branch;
      this.pseudo.record(b.col, b.up, (r.objective - b.parentObjective) / b.fraction);
    }
    // the node's bound: what its LP proves (a node whose LP proves nothing keeps its parent's)
    const z = Math.max(node.lowerBound, proof?.value ?? -Infinity);
    if (z >= this.pruneLevel()) {
      this.notePruned(z);
      return this.learn(engine.rowDuals(), true);
    }
    node.lowerBound = z;
    const rounded = simpleRounding(engine.model, this.locks, this.integrality, x);
    if (rounded && this.offerRepairing(rounded) === "accepted") this.stats.heuristicSolutions++;
    const basis = engine.getBasis();
    const fixings = proof ? this.reducedCostFixing(proof) : [];
    if (this.nodeDives(x, z)) return null;
    if (node.depth === 0 && this.prepareRestart()) return "restart";
    const choice = this.branchChoice(lp, basis);
    return this.nodeChildren.of(node, { objective: lp.r.objective, trickle: lp.trickle }, choice, z, basis, tightened, fixings);
  }

  /**
   * The node's LP from its parent's basis, within the pruning level: its result when optimal; null when
   * the node closed (infeasible, cut off by a proven bound, or unsolved and kept as an unresolved bound).
   */
  private solveNodeLp(node: MipNode, preSolved: LpResult | null): LpResult | null | "stopped" {
    const { engine } = this;
    if (node.basis) engine.setBasis(node.basis);
    const cutoff = this.pruneLevel();
    let r = preSolved ?? engine.solve({ deadline: this.opt.deadline, cutoff: finiteOrUndefined(cutoff), perturb: false });
    this.nodes++;
    if (node.depth > this.stats.maxDepth) this.stats.maxDepth = node.depth;
    if (r.status === "error" || r.status === "iteration_limit" || r.status === "unbounded") {
      // numerical trouble: retry once from the slack basis with perturbation
      this.iterations += r.iterations;
      engine.resetBasis();
      r = engine.solve({ deadline: this.opt.deadline, cutoff: finiteOrUndefined(cutoff) });
    }
    if (!preSolved) this.iterations += r.iterations;
    if (r.status === "time_limit") return "stopped";
    if (r.status === "infeasible") return this.learn(r.farkas, false);
    if (r.status === "cutoff") {
      // the dual simplex passed the cutoff: prune on what its duals prove, else finish the LP
      const proof = this.prove();
      if (proof && proof.value >= cutoff) {
        this.notePruned(proof.value);
        return this.learn(engine.rowDuals(), true);
      }
      r = engine.solve({ deadline: this.opt.deadline, perturb: false });
      this.iterations += r.iterations;
      if (r.status === "time_limit") return "stopped";
      if (r.status === "infeasible") return this.learn(r.farkas, false);
    }
    if (r.status !== "optimal") {
      this.keepUnresolved(node.lowerBound);
      return null;
    }
    return r;
  }

  /** The search's side of a node's integral point (node-integral.ts). */
  private readonly integralHost: IntegralHost = {
    engine: () => this.engine,
    deadline: () => this.opt.deadline,
    prove: (lp) => this.prove(lp),
    offerVerdict: (x) => this.offerVerdict(x),
    repair: (x) => this.repair(x),
    pruneLevel: () => this.pruneLevel(),
    fractionalColumns: (x) => this.fractionalColumns(x),
    trickleColumn: (x) => this.integrality.trickleColumn(x, this.engine.model.colLower, this.engine.model.colUpper),
    addIterations: (count) => {
      this.iterations += count;
    },
    keepUnresolved: (bound, rejection) => this.keepUnresolved(bound, rejection),
    lastRejection: () => this.best.lastRejection,
  };

  /** Keeps a node whose LP or point decided nothing as an unresolved bound (and why, when a point failed the check). */
  private keepUnresolved(bound: number, rejection?: Rejection | null): void {
    if (rejection !== undefined) this.rejected = rejection;
    this.stats.unsolvedNodes++;
    this.unsolvedBound = Math.min(this.unsolvedBound, bound);
  }

  /** The node's dives (and at the first root, its sub-MIPs); true when their incumbent pruned the node (bound `z`). */
  private nodeDives(x: Float64Array, z: number): boolean {
    const { engine, model } = this;
    if (this.nodes === 1) this.rootPropagationDive(x);
    if (this.shouldDive()) {
      this.stats.dives++;
      const dive = fractionalDive(
        {
          engine,
          model,
          integrality: this.integrality,
          deadline: this.opt.deadline,
          cutoff: () => this.pruneLevel(),
          offer: (c) => this.offerRepairing(c) === "accepted" && !!++this.stats.heuristicSolutions,
        },
        x,
        heuristicBudget(this.opt.subMip, Math.max(200, this.iterations / 5), this.iterations),
      );
      this.iterations += dive.iterations;
      if (z >= this.pruneLevel()) {
        this.notePruned(z);
        return true;
      }
    }
    if (this.nodes === 1 && this.restarts === 0 && this.opt.rootSubMip && !this.opt.subMip) {
      runRootSubMips(this.subMipHost(), x, this.stats.rootIterations, this.stats.subMip);
      if (z >= this.pruneLevel()) {
        this.notePruned(z);
        return true;
      }
    }
    return false;
  }

  /** The column the node branches on: its trickle column as it is, else reliability branching (branching.ts). */
  private branchChoice(lp: NodeLp, basis: Int8Array): BranchChoice {
    const { engine } = this;
    const { r, x, fractional, trickle } = lp;
    // strong branching may take half of all iterations once there is an incumbent to prune with;
    // before, only its floor: node throughput finds the first incumbent sooner (10teams took 136k–200k
    // iterations with half, 55k with the floor; fiber and p0201 spend 7 % more)
    // (a sub-MIP branches on pseudo-costs alone: its budget is a share of the root's iterations)
    const strong = !this.opt.subMip && this.strongEffort < Math.max(1000, this.best.found ? 0.5 * this.iterations : 0);
    // a trickle column is branched on as it is: no strong branching or pseudo-costs, whose gains per unit
    // of a distance of 1e-9 would be meaningless
    const choice: BranchChoice =
      trickle >= 0
        ? unmeasuredBranch(trickle, x[trickle])
        : chooseBranch({
            engine,
            x,
            objective: r.objective,
            fractional,
            basis,
            cutoff: this.pruneLevel(),
            deadline: this.opt.deadline,
            pseudo: this.pseudo,
            strong,
            proveBound: this.provenValue,
          });
    this.stats.strongBranchings += choice.strongBranched;
    this.stats.strongIterations += choice.strongIterations;
    this.strongEffort += choice.strongIterations;
    this.iterations += choice.strongIterations;
    return choice;
  }

  /**
   * Keeps the dual proof (dual-proof.ts) of the node just pruned in the conflict pool: of the Farkas
   * multipliers `w` of its infeasible LP, or of its LP's duals with the objective cut (`byBound`). Null
   * (the node closed) for the caller to return.
   */
  private learn(w: Float64Array | null, byBound: boolean): null {
    if (!this.conflicts || !w) return null;
    const limit = byBound ? this.pruneLevel() : Infinity;
    if (byBound && !Number.isFinite(limit)) return null;
    const lower = this.implied ? maxOf(this.rootLower, this.implied.lower) : this.rootLower;
    const upper = this.implied ? minOf(this.rootUpper, this.implied.upper) : this.rootUpper;
    this.conflicts.learn(this.engine.model, w, limit, byBound, { lower, upper });
    return null;
  }

  /** The node's LP again with the integer columns fixed at x's rounded values, its point offered (repair.ts). */
  private repair(x: Float64Array): OfferVerdict | "stopped" {
    const out = repairRounded({ engine: this.engine, integer: this.model.integer, deadline: this.opt.deadline, offer: (c) => this.offerVerdict(c) }, x);
    this.iterations += out.iterations;
    this.stats.repairs++;
    return out.verdict;
  }

  /** Reduced-cost fixing in a node's subtree (see reduced-cost.ts), on the proven bound and its reduced costs. */
  private reducedCostFixing(proof: ProvenBound): BoundChange[] {
    const m = this.engine.model;
    const out = reducedCostBounds(this.model.integer, m.colLower, m.colUpper, proof.reducedCosts, proof.status, this.pruneLevel() - proof.value);
    this.stats.reducedCostFixings += out.length;
    return out;
  }

  /** The bound the engine's current LP proves (node-bound.ts); `lp` is its result when it ended optimal. */
  private prove(lp?: LpResult): ProvenBound | null {
    const proof = provenLpBound(this.engine, this.implied, lp);
    const counts = this.stats.nodeBounds;
    if (!proof) counts.unproven++;
    else if (proof.how === "verified") counts.verified++;
    else counts.lagrangian++;
    if (proof && lp?.status === "optimal") {
      const shortfall = (lp.objective - proof.value) / Math.max(1, Math.abs(lp.objective));
      if (shortfall > counts.worstShortfall) counts.worstShortfall = shortfall;
      if (shortfall > LOOSE_SHORTFALL) counts.loose++;
    }
    return proof;
  }

  private fractionalColumns(x: Float64Array): number[] {
    const out: number[] = [];
    const { colLower, colUpper } = this.engine.model;
    for (let j = 0; j < this.model.cols; j++) if (this.integrality.fractional(j, x[j], colLower, colUpper)) out.push(j);
    return out;
  }

  /** Root reduced-cost fixing with the current incumbent: tightens the global (root) bounds. */
  private rootFixing(): void {
    if (!this.rootReducedCosts || !this.rootStatus || !this.best.found) return;
    const room = this.pruneLevel() - this.rootObjective;
    this.stats.rootFixings += rootReducedCostFixing(this.model.integer, this.rootLower, this.rootUpper, this.rootReducedCosts, this.rootStatus, room);
  }

  /** Whether the root restarts (root-restart.ts): an incumbent, restarts left, and `restartModel`'s rule. */
  private prepareRestart(): boolean {
    this.pendingRestart = rootRestart(this.restartPort());
    return this.pendingRestart !== null;
  }

  /** The search again from the root of the restricted model presolved, the incumbent carried over. */
  private restart(): MipOutcome {
    return restartedSearch(this.restartPort(), this.pendingRestart!);
  }

  /** The root restart's view of this search (root-restart.ts). */
  private restartPort(): RestartPort {
    return {
      base: this.base,
      model: this.model,
      lower: this.rootLower,
      upper: this.rootUpper,
      opt: this.opt,
      post: this.pre,
      found: this.best.found,
      restarts: this.restarts,
      sortedBlocks: this.orbitope !== null,
      nodesSoFar: this.earlierNodes + this.nodes,
      stats: this.stats,
      totals: this.totals,
      spawn: this.spawn,
    };
  }

  /** This search's own nodes and iterations, its sub-MIPs' included (what its outcome reports). */
  private get totals(): SearchTotals {
    return { nodes: this.nodes + this.stats.subMip.nodes, iterations: this.iterations + this.stats.subMip.iterations };
  }

  /** A search of another model seeded with this one's incumbent: the search after a restart, a root sub-MIP. */
  private readonly spawn: SpawnSearch = (post, model, opt, restarts = 0, earlierNodes = 0) => {
    const next = new BranchAndBound(this.original, post, model, opt, restarts, earlierNodes);
    next.best.carry(this.best);
    return next;
  };

  /** The root's dive with propagation and backtracking (propagation-dive.ts), before the fractional dive. */
  private rootPropagationDive(x: Float64Array): void {
    const host = {
      engine: this.engine,
      model: this.model,
      integrality: this.integrality,
      deadline: this.opt.deadline,
      cutoff: () => this.pruneLevel(),
      offer: (c: Float64Array) => this.offerRepairing(c) === "accepted" && !!++this.stats.heuristicSolutions,
    };
    const dive = propagationDive(host, x, {
      iterationBudget: heuristicBudget(this.opt.subMip, Math.max(2000, this.iterations), this.iterations),
      maxBacktracks: 100,
      workFactor: 200,
    });
    this.iterations += dive.iterations;
  }

  private shouldDive(): boolean {
    if (this.nodes === 1) return true;
    const every = this.best.found ? 500 : 100;
    return this.nodes % every === 0;
  }

  private report(current: MipNode | null): void {
    if (!this.opt.onProgress) return;
    // the node being solved is in no queue: without its bound, an incumbent found while the root (or
    // the last open node) is out of the queue would be reported as its own bound, a gap of 0 unproven
    const b = Math.min(this.globalBound(current), this.active ? this.active.lowerBound : Infinity, this.prunedBound, this.best.value);
    this.opt.onProgress(this.best.found ? this.best.value : null, Number.isFinite(b) ? this.roundBound(b) : null, this.earlierNodes + this.nodes);
  }

  /** Records the bound of a node pruned below the incumbent (it still limits the dual bound). */
  private notePruned(bound: number): void {
    const b = this.roundBound(bound);
    if (b < this.best.value && b < this.prunedBound) this.prunedBound = b;
  }

  /**
   * Keep plunging into the child while its bound is close to the global bound. Before the first
   * incumbent: always, except that an objective on a lattice keeps the plunge on the face of the
   * global bound (the child's bound rounds to it); leaving it, best-bound picks the next node, which
   * on degenerate models (10teams) finds an optimal point far sooner than a deep plunge.
   */
  private plunge(child: MipNode): boolean {
    if (child.lowerBound >= this.pruneLevel()) return false;
    if (!this.best.found)
      return !this.best.latticeObjective || this.roundBound(child.lowerBound) <= this.roundBound(Math.min(this.queue.bestBound(), child.lowerBound));
    const global = Math.min(this.queue.bestBound(), child.lowerBound);
    return child.lowerBound <= global + 0.25 * (this.best.value - global);
  }

  private globalBound(current: MipNode | null): number {
    return Math.min(this.queue.bestBound(), current ? current.lowerBound : Infinity, this.unsolvedBound);
  }

  /** Nodes with a lower bound at or above this cannot hold a better solution worth finding. */
  private pruneLevel(): number {
    return this.best.pruneLevel();
  }

  private roundBound(b: number): number {
    return this.best.roundBound(b);
  }

  /** Proposes a point of the presolved model (verified on the original one by `Incumbent`). */
  private offerVerdict(xr: Float64Array): OfferVerdict {
    const verdict = this.best.offer(xr, this.model.integer);
    if (verdict !== "accepted") return verdict;
    this.newIncumbent(xr);
    return verdict;
  }

  /** After the incumbent improved (its point `xr` in the presolved model's columns): fixing, reports. */
  private newIncumbent(xr: Float64Array): void {
    const kept = xr.slice();
    for (let j = 0; j < kept.length; j++) if (this.model.integer[j]) kept[j] = Math.round(kept[j]!);
    this.incumbentReduced = kept;
    this.opt.onIncumbent?.(this.best.x!, this.best.value);
    this.rootFixing();
    this.report(null);
  }

  /** The root sub-MIPs' view of this search (sub-mip-host.ts). */
  private subMipHost(): SubMipHost {
    return subMipHost({
      model: this.model,
      lower: this.rootLower,
      upper: this.rootUpper,
      opt: this.opt,
      post: this.pre,
      best: this.best,
      rootGap: () => (this.best.found ? (this.best.value - this.rootObjective) / Math.max(1, Math.abs(this.best.value)) : Infinity),
      incumbent: () => this.incumbentReduced,
      spawn: this.spawn,
      takeOver: (sub, xr) => {
        this.best.carry(sub.best);
        this.stats.heuristicSolutions++;
        this.newIncumbent(xr);
      },
    });
  }

  /** The caller's start solution (original columns), verified like any incumbent; ignored when it fails. */
  private offerStart(x: Float64Array): void {
    const verdict = this.best.offerOriginal(x);
    this.stats.startSolution = verdict === "rejected" ? "rejected" : "accepted";
    if (verdict === "accepted") this.opt.onIncumbent?.(this.best.x!, this.best.value);
  }

  /**
   * A heuristic's candidate (in the engine's current bounds): offered, and repaired (`repair`) when only
   * the rounding of its integer columns broke a row — the point as it is passes, within the integrality
   * tolerance (a rounding that moved a row with large coefficients past the row's tolerance).
   */
  private offerRepairing(xr: Float64Array): OfferVerdict | "stopped" {
    const verdict = this.offerVerdict(xr);
    if (verdict !== "rejected" || !this.best.lastRejection?.roundingOnly) return verdict;
    return this.repair(xr);
  }

  /** The search cannot vouch for its answer because a point failed the check: error, with the reason. */
  private rejectedOutcome(message: string): MipOutcome {
    const out = this.outcome("error", message);
    const why = this.rejected ?? this.best.lastRejection;
    return why ? { ...out, rejection: why } : out;
  }

  /** The relaxation is unbounded: the MILP is unbounded if it has any feasible point (Meyer). */
  private unboundedRelaxation(): MipOutcome {
    const zero: LpModel = { ...this.model, cost: new Float64Array(this.model.cols), offset: 0 };
    // its incumbents and bounds are of the zero objective, not the user's: not reported as progress
    const quiet = { ...this.opt, onProgress: undefined, onIncumbent: undefined };
    const feasibility = new BranchAndBound({ ...this.original, cost: new Float64Array(this.original.cols), offset: 0 }, this.pre, zero, quiet).run();
    this.nodes += feasibility.nodes;
    this.iterations += feasibility.iterations;
    if (feasibility.status === "optimal") return this.outcome("unbounded");
    if (feasibility.status === "infeasible") return this.outcome("infeasible");
    const out = this.outcome(feasibility.status === "time_limit" ? "time_limit" : "error", "the LP relaxation is unbounded and no feasible point was found");
    return feasibility.rejection ? { ...out, rejection: feasibility.rejection } : out;
  }

  private outcome(status: MipOutcome["status"], message?: string): MipOutcome {
    let bound: number | null = null;
    if (status === "optimal" || status === "time_limit" || status === "error") {
      const b = Math.min(this.roundBound(Math.min(this.queue.bestBound(), this.unsolvedBound)), this.prunedBound, this.best.value);
      bound = Number.isFinite(b) ? b : null;
    }
    const ub = this.best.value;
    const gap = this.best.found && bound !== null ? (ub === bound ? 0 : Math.abs(ub - bound) / Math.max(Math.abs(ub), 1e-10)) : null;
    return {
      status,
      incumbent: status === "unbounded" ? null : this.best.x,
      dualBound: status === "infeasible" || status === "unbounded" ? null : bound,
      gap,
      ...this.totals,
      message,
      stats: this.stats,
    };
  }
}
