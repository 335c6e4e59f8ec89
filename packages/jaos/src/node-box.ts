/**
 * A branch-and-bound node's column bounds (mip.ts `processNode`), built in buffers kept across nodes and
 * loaded into the node LP's engine.
 */
import type { ConflictPool } from "./conflict-pool.js";
import type { LpEngine } from "./lp.js";
import type { MipStats } from "./mip-types.js";
import type { NodePropagator } from "./node-propagation.js";
import type { MipNode } from "./node-queue.js";
import { orbitopalFixing, type Orbitope } from "./orbitope.js";
import type { BoundChange } from "./reduced-cost.js";

/** Rounds of propagation, each followed by orbitopal fixing, at a node at most (both are cheap). */
const SORT_PROPAGATE_ROUNDS = 8;

/** What the search lends the node box: the root's box (tightened in place), and what it has at the time of each node. */
export interface NodeBoxSearch {
  readonly rootLower: Float64Array;
  readonly rootUpper: Float64Array;
  readonly stats: MipStats;
  engine(): LpEngine;
  /** Node propagation and the conflict pool, once the root's cuts are in (null when off). */
  propagator(): NodePropagator | null;
  conflicts(): ConflictPool | null;
  pruneLevel(): number;
}

export class NodeBox {
  /** The node's box while `apply` builds it, and the columns its propagation starts from (reused). */
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly seeds = new Set<number>();
  /** The orbitope's column widths before orbitopal fixing (`sortBlocks`, reused). */
  private readonly blockWidths: Float64Array;

  constructor(
    private readonly cols: number,
    /** Interchangeable blocks of the search's model: its boxes keep only their sorted points (orbitope.ts). */
    private readonly orbitope: Orbitope | null,
    private readonly search: NodeBoxSearch,
  ) {
    this.lower = new Float64Array(cols);
    this.upper = new Float64Array(cols);
    this.blockWidths = new Float64Array(orbitope ? orbitope.columns.length : 0);
  }

  /**
   * Column bounds of the node: the root's, tightened by every decision on the path, by orbitopal fixing
   * and by propagation through the rows (node-propagation.ts) from the decisions new since the parent's
   * propagation. Returns the bounds those two tightened (valid in the node's whole subtree), or null
   * (engine bounds untouched) when the node provably holds no point.
   */
  apply(node: MipNode): BoundChange[] | null {
    // the node's box is built in two buffers kept across nodes: nothing holds on to them after this call
    const { search } = this;
    const lo = this.lower;
    const up = this.upper;
    lo.set(search.rootLower);
    up.set(search.rootUpper);
    const seeds = this.seeds;
    seeds.clear();
    let fresh = true;
    for (let d = node.decision; d; d = d.parent) {
      if (d === node.propagated) fresh = false;
      if (fresh) seeds.add(d.col);
      if (d.lower > lo[d.col]) lo[d.col] = d.lower;
      if (d.upper < up[d.col]) up[d.col] = d.upper;
    }
    const tightened: BoundChange[] = [];
    if (!this.sortBlocks(lo, up, seeds, tightened)) return null;
    // a decision can meet global bounds tightened later (root reduced-cost fixing): an empty box
    for (let j = 0; j < this.cols; j++) if (lo[j] > up[j]) return null;
    // propagation and orbitopal fixing feed each other (a column fixed to 1 by a row can fix the blocks'
    // first rows, and those fixings reach other rows): alternated until neither finds anything new
    const propagator = search.propagator();
    const conflicts = search.conflicts();
    for (let round = 0; propagator && seeds.size > 0 && round < SORT_PROPAGATE_ROUNDS; round++) {
      const found: BoundChange[] = [];
      if (!propagator.propagate(lo, up, seeds, found, search.pruneLevel())) {
        this.search.stats.propagation.prunedNodes++;
        return null;
      }
      this.search.stats.propagation.tightenings += found.length;
      // the learned proofs from the same columns and those just tightened; what they tighten seeds the next round
      const learned: BoundChange[] = [];
      if (conflicts) {
        for (const t of found) seeds.add(t.col);
        if (!conflicts.propagate(lo, up, seeds, learned)) return null;
      }
      for (const t of found) tightened.push(t);
      seeds.clear();
      for (const t of learned) {
        tightened.push(t);
        seeds.add(t.col);
      }
      if (found.length === 0 && learned.length === 0) break;
      if (!this.sortBlocks(lo, up, seeds, tightened)) return null;
    }
    const engine = search.engine();
    const m = engine.model;
    for (let j = 0; j < this.cols; j++) {
      if (m.colLower[j] !== lo[j] || m.colUpper[j] !== up[j]) engine.setColumnBounds(j, lo[j], up[j]);
    }
    return tightened;
  }

  /**
   * Orbitopal fixing of the box (orbitope.ts): the columns it tightened join `seeds` and `tightened`.
   * False when the box holds no sorted point.
   */
  private sortBlocks(lo: Float64Array, up: Float64Array, seeds: Set<number>, tightened: BoundChange[]): boolean {
    if (!this.orbitope) return true;
    const cols = this.orbitope.columns;
    const before = this.blockWidths;
    for (let k = 0; k < cols.length; k++) before[k] = up[cols[k]!]! - lo[cols[k]!]!;
    const fixed = orbitopalFixing(this.orbitope, lo, up);
    if (fixed < 0) return false;
    this.search.stats.symmetry!.fixings += fixed;
    for (let k = 0; fixed > 0 && k < cols.length; k++) {
      const c = cols[k]!;
      if (up[c]! - lo[c]! === before[k]) continue;
      seeds.add(c);
      tightened.push({ col: c, lower: lo[c]!, upper: up[c]! });
    }
    return true;
  }
}
