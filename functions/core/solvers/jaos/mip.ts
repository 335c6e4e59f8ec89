/**
 * Branch and bound on the LP relaxation of the presolved model.
 *
 * - Node LPs: warm-started dual simplex from the parent's basis (always dual feasible: branching only
 *   changes bounds), with the incumbent-based cutoff passed to the LP so hopeless nodes stop early.
 * - Node selection: best bound, with depth-first plunges: after branching, one child is processed
 *   next while its bound is close to the global bound (always, before the first incumbent), which
 *   finds incumbents early and keeps warm starts short.
 * - Branching: reliability pseudo-cost branching (branching.ts).
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
import { gomoryCuts, keepRows, withRows } from "./cuts.js";
import { computeLocks, fractionalDive, INTEGRALITY_TOL, isFractional, simpleRounding, type Locks } from "./heuristics.js";
import { LpEngine, type LpResult } from "./lp.js";
import { maxViolation, objectiveValue, type LpModel } from "./model.js";
import { NodeQueue, type MipNode } from "./node-queue.js";
import type { Presolved } from "./presolve.js";
import { AT_LOWER, AT_UPPER, BASIC } from "./simplex-state.js";

export interface MipOptions {
  deadline: number;
  gapTolerance: number;
  /** Called on each new incumbent and every few hundred nodes (minimisation sense, with offset). */
  onProgress?: (incumbent: number | null, bound: number | null, nodes: number) => void;
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

const FEASIBILITY = 1e-6;
const ABS_GAP = 1e-6;
const MAX_STORED_BASES = 200_000;

export function solveMip(original: LpModel, pre: Presolved, opt: MipOptions): MipOutcome {
  return new BranchAndBound(original, pre, pre.reduced, opt).run();
}

const CUT_ROUNDS = 50;
const CUTS_PER_ROUND = 100;
/** A round gaining less than this (relative to the bound) counts toward the stall limit. */
const CUT_STALL_GAIN = 1e-5;
const CUT_STALL_ROUNDS = 3;

class BranchAndBound {
  private engine: LpEngine;
  /** The presolved model plus the root cuts kept for the search. */
  private model: LpModel;
  private readonly queue = new NodeQueue();
  private readonly pseudo: PseudoCosts;
  private locks: Locks;
  private readonly rootLower: Float64Array;
  private readonly rootUpper: Float64Array;
  private readonly objectiveStep: number;
  private incumbent: Float64Array | null = null;
  private incumbentValue = Infinity;
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
    this.objectiveStep = integralObjectiveStep(model);
  }

  run(): MipOutcome {
    const { model, opt } = this;
    if (model.cols === 0) {
      this.offer(new Float64Array(0));
      return this.outcome(this.incumbent ? "optimal" : "infeasible");
    }
    let root = this.engine.solve({ deadline: opt.deadline });
    this.iterations += root.iterations;
    this.stats.rootIterations = root.iterations;
    if (root.status === "infeasible") return this.outcome("infeasible");
    if (root.status === "time_limit") return this.outcome("time_limit");
    if (root.status === "unbounded") return this.unboundedRelaxation();
    if (root.status !== "optimal") return this.outcome("error", root.message ?? `root LP ended ${root.status}`);
    this.stats.rootBound = root.objective;
    root = this.rootCuts(root);
    this.stats.rootBoundAfterCuts = root.objective;
    this.rootObjective = root.objective;
    this.rootReducedCosts = this.engine.reducedCosts();
    this.rootStatus = this.engine.getBasis();
    this.rootFixing();

    let current: MipNode | null = { id: this.nextId++, depth: 0, lowerBound: root.objective, estimate: root.objective, decision: null, basis: null, branch: null };
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
    return this.outcome(this.incumbent ? "optimal" : "infeasible");
  }

  /**
   * Rounds of Gomory cuts at the root: add the violated cuts, re-solve from the extended basis (the
   * cuts' slacks basic), stop when the bound gains less than 1e-5 (relative) in three consecutive
   * rounds, or after 50 rounds. Cuts whose slack is basic at the end are dropped.
   * Returns the final root LP (optimal). If an extended LP does not end optimal, the cuts of that
   * round are discarded.
   */
  private rootCuts(root: LpResult): LpResult {
    const baseRows = this.model.rows;
    let current = root;
    let stall = 0;
    for (let round = 0; round < CUT_ROUNDS && performance.now() < this.opt.deadline; round++) {
      let fractional = false;
      for (let j = 0; j < this.model.cols && !fractional; j++) if (this.model.integer[j] && isFractional(current.x![j])) fractional = true;
      if (!fractional) break;
      const cuts = gomoryCuts(this.engine, this.model, current.x!, CUTS_PER_ROUND);
      if (cuts.length === 0) break;
      const previous = { model: this.model, engine: this.engine };
      const basis = this.engine.getBasis();
      const model = withRows(this.model, cuts);
      const engine = new LpEngine(model);
      const status = new Int8Array(model.cols + model.rows);
      status.set(basis.subarray(0, this.model.cols + this.model.rows));
      status.fill(BASIC, this.model.cols + this.model.rows);
      engine.setBasis(status);
      const r = engine.solve({ deadline: this.opt.deadline });
      this.iterations += r.iterations;
      this.stats.rootIterations += r.iterations;
      if (r.status !== "optimal") {
        this.model = previous.model;
        this.engine = previous.engine;
        break;
      }
      this.model = model;
      this.engine = engine;
      this.stats.cuts += cuts.length;
      const gain = r.objective - current.objective;
      current = r;
      stall = gain <= CUT_STALL_GAIN * Math.max(1, Math.abs(current.objective)) ? stall + 1 : 0;
      if (stall >= CUT_STALL_ROUNDS) break;
    }
    if (this.model.rows > baseRows) current = this.dropSlackCuts(baseRows, current);
    this.locks = computeLocks(this.model);
    return current;
  }

  /** Removes cut rows whose slack is basic (not binding), keeping the basis. */
  private dropSlackCuts(baseRows: number, current: LpResult): LpResult {
    const n = this.model.cols;
    const basis = this.engine.getBasis();
    const keep = new Uint8Array(this.model.rows);
    for (let i = 0; i < this.model.rows; i++) keep[i] = i < baseRows || basis[n + i] !== BASIC ? 1 : 0;
    const kept = keep.reduce((s, v) => s + v, 0);
    if (kept === this.model.rows) return current;
    const model = keepRows(this.model, keep);
    const status = new Int8Array(n + model.rows);
    status.set(basis.subarray(0, n));
    let w = n;
    for (let i = 0; i < this.model.rows; i++) if (keep[i]) status[w++] = basis[n + i];
    const engine = new LpEngine(model);
    engine.setBasis(status);
    const r = engine.solve({ deadline: this.opt.deadline });
    this.iterations += r.iterations;
    if (r.status !== "optimal") return current; // keep the full set
    this.model = model;
    this.engine = engine;
    this.stats.cutsKept = model.rows - baseRows;
    return r;
  }

  /** Solves one node; returns its children ([dive candidate, other]), null when closed, or "stopped". */
  private processNode(node: MipNode, preSolved: LpResult | null): [MipNode | null, MipNode | null] | null | "stopped" {
    const { engine, model } = this;
    this.applyBounds(node);
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
    const strong = this.strongEffort < Math.max(1000, 0.5 * this.iterations);
    const choice = chooseBranch({ engine, x, objective: z, fractional, basis, cutoff: this.pruneLevel(), deadline: this.opt.deadline, pseudo: this.pseudo, strong });
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
    const upFirst = up.estimate < down.estimate || (up.estimate === down.estimate && f >= 0.5);
    return upFirst ? [up, down] : [down, up];
  }

  /**
   * Reduced-cost fixing: at an LP optimum z, moving a nonbasic column j away from its bound by t
   * raises the LP value by at least |d_j|·t, so a solution below the pruning level keeps
   * t ≤ (level − z)/|d_j| (rounded down for integer columns). Returns the tightened bounds (only
   * integer columns, only real tightenings). Valid in the node's subtree.
   */
  private reducedCostFixing(z: number, d: Float64Array, status: Int8Array): { col: number; lower: number; upper: number }[] {
    const level = this.pruneLevel();
    if (!Number.isFinite(level)) return [];
    const room = level - z;
    if (!(room >= 0)) return [];
    const m = this.engine.model;
    const out: { col: number; lower: number; upper: number }[] = [];
    for (let j = 0; j < this.model.cols; j++) {
      if (!this.model.integer[j]) continue;
      const lo = m.colLower[j];
      const up = m.colUpper[j];
      if (lo === up) continue;
      const dj = d[j];
      if (status[j] === AT_LOWER && dj > 1e-7 && Number.isFinite(lo)) {
        const newUp = lo + Math.floor(room / dj + 1e-9);
        if (newUp < up) out.push({ col: j, lower: lo, upper: newUp });
      } else if (status[j] === AT_UPPER && dj < -1e-7 && Number.isFinite(up)) {
        const newLo = up - Math.floor(room / -dj + 1e-9);
        if (newLo > lo) out.push({ col: j, lower: newLo, upper: up });
      }
    }
    this.stats.reducedCostFixings += out.length;
    return out;
  }

  /** Root reduced-cost fixing with the current incumbent: tightens the global (root) bounds. */
  private rootFixing(): void {
    if (!this.rootReducedCosts || !this.rootStatus || !this.incumbent) return;
    const level = this.pruneLevel();
    const room = level - this.rootObjective;
    if (!(room >= 0)) return;
    for (let j = 0; j < this.model.cols; j++) {
      if (!this.model.integer[j]) continue;
      const lo = this.rootLower[j];
      const up = this.rootUpper[j];
      if (lo === up) continue;
      const dj = this.rootReducedCosts[j];
      const s = this.rootStatus[j];
      if (s === AT_LOWER && dj > 1e-7 && Number.isFinite(lo)) {
        const newUp = lo + Math.floor(room / dj + 1e-9);
        if (newUp < up) {
          this.rootUpper[j] = newUp;
          this.stats.rootFixings++;
        }
      } else if (s === AT_UPPER && dj < -1e-7 && Number.isFinite(up)) {
        const newLo = up - Math.floor(room / -dj + 1e-9);
        if (newLo > lo) {
          this.rootLower[j] = newLo;
          this.stats.rootFixings++;
        }
      }
    }
  }

  /** Column bounds of the node: the root's, tightened by every decision on the path. */
  private applyBounds(node: MipNode): void {
    const lo = this.rootLower.slice();
    const up = this.rootUpper.slice();
    for (let d = node.decision; d; d = d.parent) {
      if (d.lower > lo[d.col]) lo[d.col] = d.lower;
      if (d.upper < up[d.col]) up[d.col] = d.upper;
    }
    const m = this.engine.model;
    for (let j = 0; j < this.model.cols; j++) {
      if (m.colLower[j] !== lo[j] || m.colUpper[j] !== up[j]) this.engine.setColumnBounds(j, lo[j], up[j]);
    }
  }

  private shouldDive(): boolean {
    if (this.nodes === 1) return true;
    const every = this.incumbent ? 500 : 100;
    return this.nodes % every === 0;
  }

  private report(current: MipNode | null): void {
    if (!this.opt.onProgress) return;
    const b = Math.min(this.globalBound(current), this.prunedBound, this.incumbentValue);
    this.opt.onProgress(this.incumbent ? this.incumbentValue : null, Number.isFinite(b) ? this.roundBound(b) : null, this.nodes);
  }

  /** Records the bound of a node pruned below the incumbent (it still limits the dual bound). */
  private notePruned(bound: number): void {
    const b = this.roundBound(bound);
    if (b < this.incumbentValue && b < this.prunedBound) this.prunedBound = b;
  }

  /** Keep plunging into the child while its bound is close to the global bound. */
  private plunge(child: MipNode): boolean {
    if (child.lowerBound >= this.pruneLevel()) return false;
    if (!this.incumbent) return true;
    const global = Math.min(this.queue.bestBound(), child.lowerBound);
    return child.lowerBound <= global + 0.25 * (this.incumbentValue - global);
  }

  private globalBound(current: MipNode | null): number {
    return Math.min(this.queue.bestBound(), current ? current.lowerBound : Infinity, this.unsolvedBound);
  }

  /** Nodes with a lower bound at or above this cannot hold a better solution worth finding. */
  private pruneLevel(): number {
    if (!this.incumbent) return Infinity;
    const ub = this.incumbentValue;
    let level = ub - Math.max(this.opt.gapTolerance * Math.abs(ub), ABS_GAP);
    if (Number.isFinite(this.objectiveStep)) level = Math.min(level, ub - this.objectiveStep + ABS_GAP * Math.max(1, Math.abs(ub)));
    return level;
  }

  /**
   * Proposes a point of the presolved model; it becomes the incumbent if, with integer columns
   * rounded, it is feasible for the original model and better.
   */
  private offer(xr: Float64Array): boolean {
    const { model } = this;
    const rounded = xr.slice();
    for (let j = 0; j < model.cols; j++) if (model.integer[j]) rounded[j] = Math.round(rounded[j]);
    for (const candidate of [rounded, xr]) {
      const x = this.pre.postsolve(candidate);
      if (maxViolation(this.original, x) > FEASIBILITY) continue;
      let integral = true;
      for (let j = 0; j < this.original.cols && integral; j++) {
        if (this.original.integer[j] && Math.abs(x[j] - Math.round(x[j])) > INTEGRALITY_TOL) integral = false;
      }
      if (!integral) continue;
      const value = objectiveValue(this.original, x);
      if (value >= this.incumbentValue - 1e-9 * Math.max(1, Math.abs(value))) return false;
      this.incumbent = x;
      this.incumbentValue = value;
      this.rootFixing();
      this.report(null);
      return true;
    }
    return false;
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
      const b = Math.min(this.roundBound(Math.min(this.queue.bestBound(), this.unsolvedBound)), this.prunedBound, this.incumbentValue);
      bound = Number.isFinite(b) ? b : null;
    }
    const ub = this.incumbentValue;
    const gap = this.incumbent && bound !== null ? (ub === bound ? 0 : Math.abs(ub - bound) / Math.max(Math.abs(ub), 1e-10)) : null;
    return {
      status,
      incumbent: status === "unbounded" ? null : this.incumbent,
      dualBound: status === "infeasible" || status === "unbounded" ? null : bound,
      gap,
      nodes: this.nodes,
      iterations: this.iterations,
      message,
      stats: this.stats,
    };
  }

  /** A bound rounded up to the objective's lattice when the objective is integral. */
  private roundBound(b: number): number {
    if (!Number.isFinite(this.objectiveStep) || !Number.isFinite(b)) return b;
    const off = this.model.offset;
    return off + this.objectiveStep * Math.ceil((b - off) / this.objectiveStep - 1e-6);
  }
}

function finiteOrUndefined(v: number): number | undefined {
  return Number.isFinite(v) ? v : undefined;
}

/**
 * When every column with a nonzero cost is integer and the costs are integer multiples of a common
 * step, the objective only takes values offset + k·step. Returns that step, or Infinity otherwise.
 */
function integralObjectiveStep(model: LpModel): number {
  let g = 0;
  for (let j = 0; j < model.cols; j++) {
    const c = model.cost[j];
    if (c === 0) continue;
    if (!model.integer[j] || Math.abs(c - Math.round(c)) > 1e-9 || Math.abs(c) > 1e9) return Infinity;
    g = gcd(g, Math.abs(Math.round(c)));
  }
  return g > 0 ? g : Infinity;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

