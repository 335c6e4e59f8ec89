/**
 * Branch and bound on the LP relaxation of the presolved model.
 *
 * - Node LPs: warm-started dual simplex from the parent's basis (always dual feasible: branching only
 *   changes bounds), with the incumbent-based cutoff passed to the LP so hopeless nodes stop early.
 * - Node selection: best bound, with depth-first plunges: after branching, one child is processed
 *   next while its bound is close to the global bound (before the first incumbent: always, or on
 *   an integral objective while it rounds to the global bound, up child first), which finds
 *   incumbents early and keeps warm starts short.
 * - Branching: reliability pseudo-cost branching (branching.ts); strong branching limited to a
 *   share of all iterations (smaller before the first incumbent).
 * - Heuristics: simple rounding at every node, fractional diving at the root and periodically.
 * - Pruning: a node goes when its bound reaches the incumbent minus the gap tolerance, or, for an
 *   objective that only takes values offset + k·step (integer columns with integral costs), when its
 *   bound rounds up to the incumbent.
 *
 * Every incumbent is postsolved and verified on the original model before it is accepted. The dual
 * bound is the smallest bound of the open nodes (and of nodes whose LP could not be solved, which are
 * kept as unresolved bounds rather than pruned).
 */
import { chooseBranch, PseudoCosts } from "./branching.js";
import { computeLocks, fractionalDive, isFractional, simpleRounding, type Locks } from "./heuristics.js";
import { Incumbent } from "./incumbent.js";
import { LpEngine, type LpResult } from "./lp.js";
import type { LpModel } from "./model.js";
import { NodeQueue, type MipNode } from "./node-queue.js";
import type { Presolved } from "./presolve.js";
import { reducedCostBounds, type BoundChange } from "./reduced-cost.js";
import { rootCutLoop } from "./root-cuts.js";

export interface MipOptions {
  deadline: number;
  gapTolerance: number;
  /** Called on each new incumbent and every few hundred nodes (minimisation sense, with offset). */
  onProgress?: (incumbent: number | null, bound: number | null, nodes: number) => void;
  /** Called with each new incumbent, verified, in the original column space (minimisation sense, with offset). */
  onIncumbent?: (x: Float64Array, value: number) => void;
}

export interface MipStats {
  rootBound: number | null;
  /** Root bound after the cut rounds. */
  rootBoundAfterCuts: number | null;
  cuts: number;
  cutsKept: number;
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
  stats: MipStats;
}

const MAX_STORED_BASES = 200_000;

export function solveMip(original: LpModel, pre: Presolved, opt: MipOptions): MipOutcome {
  return new BranchAndBound(original, pre, pre.reduced, opt).run();
}

class BranchAndBound {
  private engine: LpEngine;
  /** The presolved model plus the root cuts kept for the search. */
  private model: LpModel;
  private readonly queue = new NodeQueue();
  private readonly pseudo: PseudoCosts;
  private locks: Locks;
  private readonly rootLower: Float64Array;
  private readonly rootUpper: Float64Array;
  private readonly best: Incumbent;
  private nodes = 0;
  private iterations = 0;
  private nextId = 0;
  private unsolvedBound = Infinity;
  /** Root LP value and reduced costs (after cuts), for global reduced-cost fixing. */
  private rootObjective = -Infinity;
  private rootReducedCosts: Float64Array | null = null;
  private rootStatus: Int8Array | null = null;
  /** Smallest bound among nodes pruned while still below the incumbent (gap or lattice pruning). */
  private prunedBound = Infinity;
  private strongEffort = 0;
  private readonly stats: MipStats = {
    rootBound: null,
    rootBoundAfterCuts: null,
    cuts: 0,
    cutsKept: 0,
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
  };

  constructor(
    private readonly original: LpModel,
    private readonly pre: Presolved,
    model: LpModel,
    private readonly opt: MipOptions,
  ) {
    this.model = model;
    this.engine = new LpEngine(model);
    this.pseudo = new PseudoCosts(model.cols);
    this.locks = computeLocks(model);
    this.rootLower = model.colLower.slice();
    this.rootUpper = model.colUpper.slice();
    this.best = new Incumbent(original, pre, model, opt.gapTolerance);
  }

  run(): MipOutcome {
    const { opt } = this;
    if (this.model.cols === 0) {
      this.offer(new Float64Array(0));
      return this.outcome(this.best.found ? "optimal" : "infeasible");
    }
    let root = this.engine.solve({ deadline: opt.deadline });
    this.iterations += root.iterations;
    this.stats.rootIterations = root.iterations;
    if (root.status === "infeasible") return this.outcome("infeasible");
    if (root.status === "time_limit") return this.outcome("time_limit");
    if (root.status === "unbounded") return this.unboundedRelaxation();
    if (root.status !== "optimal") return this.outcome("error", root.message ?? `root LP ended ${root.status}`);
    this.stats.rootBound = root.objective;
    const cut = rootCutLoop(this.model, this.engine, root, opt.deadline);
    this.model = cut.model;
    this.engine = cut.engine;
    this.locks = computeLocks(cut.model);
    root = cut.root;
    this.iterations += cut.iterations;
    this.stats.rootIterations += cut.iterations;
    this.stats.cuts = cut.cutsAdded;
    this.stats.cutsKept = cut.cutsKept;
    this.stats.rootBoundAfterCuts = root.objective;
    this.rootObjective = root.objective;
    this.rootReducedCosts = this.engine.reducedCosts();
    this.rootStatus = this.engine.getBasis();
    this.rootFixing();

    let current: MipNode | null = {
      id: this.nextId++,
      depth: 0,
      lowerBound: root.objective,
      estimate: root.objective,
      decision: null,
      basis: null,
      branch: null,
    };
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
      if (performance.now() > opt.deadline) {
        this.queue.push(current);
        stopped = true;
        break;
      }
      const out = this.processNode(current, preSolved);
      preSolved = null;
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
    if (this.unsolvedBound < this.pruneLevel()) return this.outcome("error", "some node LPs could not be solved; the search is incomplete");
    return this.outcome(this.best.found ? "optimal" : "infeasible");
  }

  /** Solves one node; returns its children ([dive candidate, other]), null when closed, or "stopped". */
  private processNode(node: MipNode, preSolved: LpResult | null): [MipNode | null, MipNode | null] | null | "stopped" {
    const { engine, model } = this;
    if (!this.applyBounds(node)) {
      this.nodes++;
      return null;
    }
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
    if (r.status === "infeasible") return null;
    if (r.status === "cutoff") {
      this.notePruned(cutoff);
      return null;
    }
    if (r.status !== "optimal") {
      this.stats.unsolvedNodes++;
      this.unsolvedBound = Math.min(this.unsolvedBound, node.lowerBound);
      return null;
    }
    const z = r.objective;
    const x = r.x!;
    if (node.branch) {
      const b = node.branch;
      this.pseudo.record(b.col, b.up, (z - b.parentObjective) / b.fraction);
    }
    if (z >= this.pruneLevel()) {
      this.notePruned(z);
      return null;
    }
    node.lowerBound = Math.max(node.lowerBound, z);
    const fractional: number[] = [];
    for (let j = 0; j < model.cols; j++) if (model.integer[j] && isFractional(x[j])) fractional.push(j);
    if (fractional.length === 0) {
      this.offer(x);
      return null;
    }
    const rounded = simpleRounding(model, this.locks, x);
    if (rounded && this.offer(rounded)) this.stats.heuristicSolutions++;
    const basis = engine.getBasis();
    const fixings = this.reducedCostFixing(z, engine.reducedCosts(), basis);
    if (this.shouldDive()) {
      this.stats.dives++;
      const dive = fractionalDive(
        { engine, model, deadline: this.opt.deadline, cutoff: () => this.pruneLevel(), offer: (c) => this.offer(c) && !!++this.stats.heuristicSolutions },
        x,
        Math.max(200, this.iterations / 5),
      );
      this.iterations += dive.iterations;
      if (z >= this.pruneLevel()) {
        this.notePruned(z);
        return null;
      }
    }
    // strong branching may take half of all iterations once there is an incumbent to prune with, a
    // fifth before (10teams at half: 169 nodes, 136k iterations; at a fifth: 52 nodes, 21k; fiber and
    // p0201 need some: without any, 1.8× their iterations)
    const strong = this.strongEffort < Math.max(1000, (this.best.found ? 0.5 : 0.2) * this.iterations);
    const choice = chooseBranch({
      engine,
      x,
      objective: z,
      fractional,
      basis,
      cutoff: this.pruneLevel(),
      deadline: this.opt.deadline,
      pseudo: this.pseudo,
      strong,
    });
    this.stats.strongBranchings += choice.strongBranched;
    this.stats.strongIterations += choice.strongIterations;
    this.strongEffort += choice.strongIterations;
    this.iterations += choice.strongIterations;
    const j = choice.col;
    const v = choice.value;
    const f = v - Math.floor(v);
    // the node's reduced-cost fixings hold in both children
    let inherited = node.decision;
    for (const fix of fixings) if (fix.col !== j) inherited = { parent: inherited, ...fix };
    const make = (up: boolean, bound: number): MipNode => {
      const lower = up ? Math.ceil(v) : engine.model.colLower[j];
      const upper = up ? engine.model.colUpper[j] : Math.floor(v);
      const frac = up ? 1 - f : f;
      return {
        id: this.nextId++,
        depth: node.depth + 1,
        lowerBound: Math.max(z, bound),
        estimate: z + frac * this.pseudo.value(j, up),
        decision: { parent: inherited, col: j, lower, upper },
        basis,
        branch: { col: j, up, fraction: frac, parentObjective: z },
      };
    };
    // a child that strong branching cut off (rather than proved infeasible) still bounds the search
    if (choice.downPruned && Number.isFinite(choice.downBound)) this.notePruned(choice.downBound);
    if (choice.upPruned && Number.isFinite(choice.upBound)) this.notePruned(choice.upBound);
    const down = choice.downPruned ? null : make(false, choice.downBound);
    const up = choice.upPruned ? null : make(true, choice.upBound);
    if (!down) return [up, null];
    if (!up) return [down, null];
    // before the first incumbent, on a lattice objective (where plunges stay on the bound's face), the
    // up child first: fixing a column up decides more rows (10teams). Elsewhere the estimate decides:
    // up first sent bell5 from 16k to 78k iterations.
    const upFirst = (!this.best.found && this.best.latticeObjective) || up.estimate < down.estimate || (up.estimate === down.estimate && f >= 0.5);
    return upFirst ? [up, down] : [down, up];
  }

  /** Reduced-cost fixing in a node's subtree (see reduced-cost.ts). */
  private reducedCostFixing(z: number, d: Float64Array, status: Int8Array): BoundChange[] {
    const m = this.engine.model;
    const out = reducedCostBounds(this.model.integer, m.colLower, m.colUpper, d, status, this.pruneLevel() - z);
    this.stats.reducedCostFixings += out.length;
    return out;
  }

  /** Root reduced-cost fixing with the current incumbent: tightens the global (root) bounds. */
  private rootFixing(): void {
    if (!this.rootReducedCosts || !this.rootStatus || !this.best.found) return;
    const room = this.pruneLevel() - this.rootObjective;
    for (const c of reducedCostBounds(this.model.integer, this.rootLower, this.rootUpper, this.rootReducedCosts, this.rootStatus, room)) {
      this.rootLower[c.col] = c.lower;
      this.rootUpper[c.col] = c.upper;
      this.stats.rootFixings++;
    }
  }

  /**
   * Column bounds of the node: the root's, tightened by every decision on the path. Returns false
   * (bounds untouched) when some column's box is empty: the node holds no point.
   */
  private applyBounds(node: MipNode): boolean {
    const lo = this.rootLower.slice();
    const up = this.rootUpper.slice();
    for (let d = node.decision; d; d = d.parent) {
      if (d.lower > lo[d.col]) lo[d.col] = d.lower;
      if (d.upper < up[d.col]) up[d.col] = d.upper;
    }
    // a decision can meet global bounds tightened later (root reduced-cost fixing): an empty box
    for (let j = 0; j < this.model.cols; j++) if (lo[j] > up[j]) return false;
    const m = this.engine.model;
    for (let j = 0; j < this.model.cols; j++) {
      if (m.colLower[j] !== lo[j] || m.colUpper[j] !== up[j]) this.engine.setColumnBounds(j, lo[j], up[j]);
    }
    return true;
  }

  private shouldDive(): boolean {
    if (this.nodes === 1) return true;
    const every = this.best.found ? 500 : 100;
    return this.nodes % every === 0;
  }

  private report(current: MipNode | null): void {
    if (!this.opt.onProgress) return;
    const b = Math.min(this.globalBound(current), this.prunedBound, this.best.value);
    this.opt.onProgress(this.best.found ? this.best.value : null, Number.isFinite(b) ? this.roundBound(b) : null, this.nodes);
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
  private offer(xr: Float64Array): boolean {
    if (!this.best.offer(xr, this.model.integer)) return false;
    this.opt.onIncumbent?.(this.best.x!, this.best.value);
    this.rootFixing();
    this.report(null);
    return true;
  }

  /** The relaxation is unbounded: the MILP is unbounded if it has any feasible point (Meyer). */
  private unboundedRelaxation(): MipOutcome {
    const zero: LpModel = { ...this.model, cost: new Float64Array(this.model.cols), offset: 0 };
    const feasibility = new BranchAndBound({ ...this.original, cost: new Float64Array(this.original.cols), offset: 0 }, this.pre, zero, this.opt).run();
    this.nodes += feasibility.nodes;
    this.iterations += feasibility.iterations;
    if (feasibility.status === "optimal") return this.outcome("unbounded");
    if (feasibility.status === "infeasible") return this.outcome("infeasible");
    return this.outcome(feasibility.status === "time_limit" ? "time_limit" : "error", "the LP relaxation is unbounded and no feasible point was found");
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
      nodes: this.nodes,
      iterations: this.iterations,
      message,
      stats: this.stats,
    };
  }
}

function finiteOrUndefined(v: number): number | undefined {
  return Number.isFinite(v) ? v : undefined;
}
