/**
 * A bounded pool of dual proofs (dual-proof.ts) learned from pruned nodes, propagated at later nodes
 * after node-propagation.ts's rows: each proof Σ coef_j x_j ≤ rhs holds for every point the search still
 * wants, so its least activity over a node's box above rhs empties the node, and the room it leaves
 * limits its integer columns (rounded outward as node-propagation.ts does, with the same rounding
 * allowance on the activity sum; the proofs' right-hand sides already carry their own allowances).
 *
 * The pool keeps at most `capacity` proofs; a new one replaces the proof that has gone longest without
 * tightening a bound or emptying a node (an inserted proof counts as used when it is learned).
 *
 * Watching (exact: the same proofs act, in the same order, as without it). A proof can empty a box or
 * limit a column only when its least activity comes within twice its widest integer column range (+1) of
 * its right-hand side (`limit`'s early return). Its least activity over a box is its least activity over
 * the model's box plus the shift, Σ |coef_j|·(how far column j's bound on the proof's side moved in from the
 * model's); the pool keeps each proof's shift up to date from the bounds that change between and during
 * its calls (a copy of the box it last saw, compared column by column), so a proof whose shift is short
 * of its threshold (the room at the model's box less that range, less a rounding margin) is passed over
 * at no more cost than a comparison. It still counts toward the work limit as if visited, so the queue,
 * and where the limit stops it, are unchanged.
 *
 * Why not ActivityDomain (activity-domain.ts), whose rows' activity bounds look alike: it could not give
 * the same results, and the pool's must be safe to prune with. Its activities are running sums kept up to
 * date over many bound changes (they drift; a proof's least activity here is summed afresh per visit, as
 * node-propagation.ts sums its rows, with an allowance proportional to the terms' magnitude); its
 * tolerances are the heuristics' (a 1e-6 row tolerance, continuous columns moved too), not these; it
 * reports a spent work budget as a conflict (a pruned node here); and its rows are the model's, made
 * row-wise once, while the pool's proofs come and go. The one piece shared is `residual`, the activity
 * without one column's share.
 */
import { residual } from "./activity-domain.js";
import type { LpModel } from "./model.js";
import { type Conflict, dualProof } from "./dual-proof.js";
import type { BoundChange } from "./reduced-cost.js";

/** Relative rounding allowance on a sum of terms (as node-propagation.ts). */
const SUM_TOL = 1e-11;
/** Absolute allowance in column units before an integer bound is rounded. */
const ROUND_TOL = 1e-6;
/** Integer bounds beyond this are not tightened (their floor/ceil is no longer exact). */
const MAX_INTEGER_BOUND = 2 ** 52;
/**
 * Relative margin on a proof's watch threshold: it covers `limit`'s rounding of the least activity and the
 * drift of the shift's running sum (recomputed after `SHIFT_REFRESH` updates), both far below it.
 */
const WATCH_MARGIN = 1e-9;
/** Updates of a proof's running shift after which it is recomputed from the box. */
const SHIFT_REFRESH = 256;

export interface ConflictStats {
  learned: number;
  prunedNodes: number;
  tightenings: number;
  /** Proofs taken from the queue, and those of them the watch passed over (their pass would do nothing). */
  visits: number;
  skipped: number;
}

export class ConflictPool {
  private readonly proofs: (Conflict | null)[] = [];
  /** When each proof last tightened a bound or emptied a node (a tick of `propagate` calls). */
  private readonly lastUsed: number[] = [];
  /** The pool's proofs by column, and the column's coefficient in each. */
  private readonly byColumn: number[][];
  private readonly coefs: number[][];
  private readonly queued: number[] = [];
  private readonly queue: number[] = [];
  private tick = 0;
  /** The model's box, which every box the pool sees lies in. */
  private readonly refLower: Float64Array;
  private readonly refUpper: Float64Array;
  /** The box the proofs' shifts were last brought up to date with. */
  private readonly seenLower: Float64Array;
  private readonly seenUpper: Float64Array;
  /** Per proof: its shift over the seen box, updates since it was last recomputed, and its watch threshold. */
  private readonly shift: number[] = [];
  private readonly shiftUpdates: number[] = [];
  private readonly threshold: number[] = [];

  constructor(
    private readonly model: LpModel,
    private readonly capacity: number,
    /** Proof entries visited per propagate call at most. */
    private readonly workLimit: number,
    /** Counters, updated in place. */
    readonly stats: ConflictStats = { learned: 0, prunedNodes: 0, tightenings: 0, visits: 0, skipped: 0 },
    /** Whether proofs are watched (off only to check that watching changes nothing). */
    private readonly watch = true,
  ) {
    this.byColumn = Array.from({ length: model.cols }, () => []);
    this.coefs = Array.from({ length: model.cols }, () => []);
    this.refLower = model.colLower.slice();
    this.refUpper = model.colUpper.slice();
    this.seenLower = model.colLower.slice();
    this.seenUpper = model.colUpper.slice();
  }

  get size(): number {
    return this.proofs.length;
  }

  /**
   * Keeps the dual proof (dual-proof.ts) of a node just pruned: of the Farkas multipliers `w` of its
   * infeasible LP (or of −w, when w proves nothing), or of its LP's duals with the objective cut at `limit`
   * (`byBound`). `node` is the model in the node's bounds; `global` the bounds every node lies in.
   */
  learn(node: LpModel, w: Float64Array, limit: number, byBound: boolean, global: { lower: Float64Array; upper: Float64Array }): void {
    const boxes = { nodeLower: node.colLower, nodeUpper: node.colUpper, globalLower: global.lower, globalUpper: global.upper };
    const maxLength = 100 + Math.floor(0.1 * node.cols);
    const proof =
      dualProof(node, w, limit, boxes, maxLength) ??
      (byBound
        ? null
        : dualProof(
            node,
            w.map((v) => -v),
            limit,
            boxes,
            maxLength,
          ));
    if (proof) this.add(proof);
  }

  add(proof: Conflict): void {
    this.stats.learned++;
    let slot = this.proofs.length;
    if (slot >= this.capacity) {
      slot = 0;
      for (let s = 1; s < this.proofs.length; s++) if (this.lastUsed[s]! < this.lastUsed[slot]!) slot = s;
      this.remove(slot);
    }
    this.proofs[slot] = proof;
    this.lastUsed[slot] = this.tick;
    this.queued[slot] = 0;
    proof.index.forEach((j, k) => {
      this.byColumn[j]!.push(slot);
      this.coefs[j]!.push(proof.value[k]!);
    });
    this.threshold[slot] = this.watchThreshold(proof);
    this.recomputeShift(slot, proof);
  }

  /**
   * The shift below which `limit` leaves the proof without effect: rhs − (least activity over the model's
   * box) − 2·(widest integer column range there) − 1, less the rounding margin; −∞ (always visited) when a
   * bound on a proof's side or an integer column's range is infinite in the model's box.
   */
  private watchThreshold(proof: Conflict): number {
    const { integer } = this.model;
    const { index, value, rhs } = proof;
    let least = 0;
    let widest = 0;
    let magnitude = 1 + Math.abs(rhs);
    for (let k = 0; k < index.length; k++) {
      const j = index[k]!;
      const c = value[k]!;
      const lo = this.refLower[j]!;
      const up = this.refUpper[j]!;
      const b = c > 0 ? lo : up;
      if (!Number.isFinite(b)) return -Infinity;
      least += c * b;
      magnitude += Math.abs(c) * Math.max(Math.abs(lo), Math.abs(up));
      if (integer[j]) widest = Math.max(widest, Math.abs(c) * (up - lo));
    }
    const room = rhs - least - 2 * widest - 1 - WATCH_MARGIN * magnitude;
    return Number.isFinite(room) ? room : -Infinity;
  }

  /** How far a bound on the proof's side of column j (coefficient c) has moved in from the model's, times |c|. */
  private columnShift(j: number, c: number, lo: number, up: number): number {
    const d = c > 0 ? c * (lo - this.refLower[j]!) : c * (up - this.refUpper[j]!);
    return d > 0 && Number.isFinite(d) ? d : 0;
  }

  private recomputeShift(s: number, proof: Conflict): void {
    let sum = 0;
    for (let k = 0; k < proof.index.length; k++) {
      const j = proof.index[k]!;
      sum += this.columnShift(j, proof.value[k]!, this.seenLower[j]!, this.seenUpper[j]!);
    }
    this.shift[s] = sum;
    this.shiftUpdates[s] = 0;
  }

  /** Column j's bounds in the seen box become `lo`/`up`: the shifts of its proofs follow. */
  private see(j: number, lo: number, up: number): void {
    const list = this.byColumn[j]!;
    const coefs = this.coefs[j]!;
    const oldLo = this.seenLower[j]!;
    const oldUp = this.seenUpper[j]!;
    for (let t = 0; t < list.length; t++) {
      const s = list[t]!;
      const c = coefs[t]!;
      this.shift[s]! += this.columnShift(j, c, lo, up) - this.columnShift(j, c, oldLo, oldUp);
      this.shiftUpdates[s]!++;
    }
    this.seenLower[j] = lo;
    this.seenUpper[j] = up;
  }

  private remove(slot: number): void {
    const old = this.proofs[slot];
    if (!old) return;
    for (const j of old.index) {
      const list = this.byColumn[j]!;
      const coefs = this.coefs[j]!;
      const at = list.indexOf(slot);
      if (at >= 0) {
        list[at] = list[list.length - 1]!;
        list.pop();
        coefs[at] = coefs[coefs.length - 1]!;
        coefs.pop();
      }
    }
    this.proofs[slot] = null;
  }

  /**
   * Tightens the integer columns of the box `lo`/`up` (in place) through the proofs of the columns in
   * `seeds`, appending each tightened bound to `out`. False when a proof shows the box holds no point the
   * search wants (then `lo`/`up` are partly tightened and must not be used).
   */
  propagate(lo: Float64Array, up: Float64Array, seeds: Iterable<number>, out: BoundChange[]): boolean {
    this.tick++;
    // the shifts brought up to the box given (it differs from the last one seen where the node moved)
    if (this.watch && this.proofs.length > 0)
      for (let j = 0; j < lo.length; j++) if (lo[j] !== this.seenLower[j] || up[j] !== this.seenUpper[j]) this.see(j, lo[j]!, up[j]!);
    for (const j of seeds) this.enqueueProofsOf(j, -1, lo, up);
    let work = 0;
    let feasible = true;
    while (this.queue.length > 0 && feasible && work <= this.workLimit) {
      const s = this.queue.pop()!;
      this.queued[s] = 0;
      const proof = this.proofs[s];
      if (!proof) continue;
      work += 2 * proof.index.length;
      this.stats.visits++;
      if (this.watch) {
        if (this.shiftUpdates[s]! >= SHIFT_REFRESH) this.recomputeShift(s, proof);
        if (this.shift[s]! < this.threshold[s]!) {
          this.stats.skipped++;
          continue;
        }
      }
      const before = out.length;
      feasible = this.limit(s, proof, lo, up, out);
      if (!feasible) this.stats.prunedNodes++;
      if (!feasible || out.length > before) this.lastUsed[s] = this.tick;
    }
    for (const s of this.queue) this.queued[s] = 0;
    this.queue.length = 0;
    return feasible;
  }

  /**
   * The proofs of column j (but `except`) its box can weaken: one with a positive coefficient only when its
   * lower bound is above the model's, a negative one only when its upper bound is below (a column at its
   * favourable bound adds nothing to a proof's least activity, and it is that bound's change that counts).
   */
  private enqueueProofsOf(j: number, except: number, lo: Float64Array, up: Float64Array): void {
    const list = this.byColumn[j]!;
    const coefs = this.coefs[j]!;
    const raised = lo[j]! > this.refLower[j]!;
    const lowered = up[j]! < this.refUpper[j]!;
    for (let t = 0; t < list.length; t++) {
      const s = list[t]!;
      if (s !== except && (coefs[t]! > 0 ? raised : lowered)) this.enqueue(s);
    }
  }

  private enqueue(s: number): void {
    if (this.queued[s]) return;
    this.queued[s] = 1;
    this.queue.push(s);
  }

  private limit(self: number, proof: Conflict, lo: Float64Array, up: Float64Array, out: BoundChange[]): boolean {
    const { integer } = this.model;
    const { index, value, rhs } = proof;
    let least = 0;
    let infinite = 0;
    let magnitude = Math.abs(rhs);
    // the widest term an integer column can add above its least (∞ for an unbounded one)
    let widest = 0;
    for (let k = 0; k < index.length; k++) {
      const j = index[k]!;
      const c = value[k]!;
      const b = c > 0 ? lo[j]! : up[j]!;
      if (Number.isFinite(b)) {
        least += c * b;
        magnitude += Math.abs(c * b);
      } else infinite++;
      if (integer[j]) {
        const range = Math.abs(c) * (up[j]! - lo[j]!);
        if (range > widest) widest = range;
      }
    }
    const tol = SUM_TOL * magnitude;
    if (infinite === 0 && least > rhs + tol) return false;
    if (infinite > 1) return true;
    // the room left wider than every integer column's range limits none of them (rounding needs only its
    // range; the margin is for the rounding allowances): the pass over the columns is skipped
    if (infinite === 0 && rhs + tol - least > 2 * widest + 1) return true;
    for (let k = 0; k < index.length; k++) {
      const j = index[k]!;
      if (!integer[j] || lo[j] === up[j]) continue;
      const c = value[k]!;
      const rest = residual(least, infinite, c * (c > 0 ? lo[j]! : up[j]!), -Infinity);
      if (rest === -Infinity) continue;
      const limit = (rhs + tol - rest) / c;
      if (!(Math.abs(limit) < MAX_INTEGER_BOUND)) continue;
      const slack = Math.max(ROUND_TOL, tol / Math.abs(c));
      let tLo = lo[j]!;
      let tUp = up[j]!;
      if (c > 0) tUp = Math.min(tUp, Math.floor(limit + slack));
      else tLo = Math.max(tLo, Math.ceil(limit - slack));
      if (tLo === lo[j] && tUp === up[j]) continue;
      if (tLo > tUp) return false;
      lo[j] = tLo;
      up[j] = tUp;
      out.push({ col: j, lower: tLo, upper: tUp });
      this.stats.tightenings++;
      if (this.watch) this.see(j, tLo, tUp);
      this.enqueueProofsOf(j, self, lo, up);
    }
    return true;
  }
}
