/**
 * Open branch-and-bound nodes, ordered by lower bound (best bound first); ties go to the node with
 * the better estimate, then to the older node, so the order never depends on anything but the input.
 */

/** One branching decision; a node's bounds are the root's with its ancestors' decisions applied. */
export interface BranchDecision {
  readonly parent: BranchDecision | null;
  readonly col: number;
  readonly lower: number;
  readonly upper: number;
}

export interface MipNode {
  readonly id: number;
  readonly depth: number;
  /** A valid lower bound on every solution in the node (the parent's LP value, or better). */
  lowerBound: number;
  /** Estimated best integer objective in the node (for tie-breaks and dive choices). */
  estimate: number;
  readonly decision: BranchDecision | null;
  /**
   * The part of `decision`'s chain the parent's propagation started from (node-propagation.ts): only the
   * decisions above it are new to propagate. Null: the whole chain.
   */
  readonly propagated: BranchDecision | null;
  /** Warm-start basis (often shared with the sibling); null = use whatever basis is loaded. */
  basis: Int8Array | null;
  /** For the pseudo-cost update once the node is solved. */
  readonly branch: { col: number; up: boolean; fraction: number; parentObjective: number } | null;
}

export class NodeQueue {
  private heap: MipNode[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(node: MipNode): void {
    const h = this.heap;
    h.push(node);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  pop(): MipNode | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < h.length && before(h[l]!, h[best]!)) best = l;
        if (r < h.length && before(h[r]!, h[best]!)) best = r;
        if (best === i) break;
        [h[i], h[best]] = [h[best]!, h[i]!];
        i = best;
      }
    }
    return top;
  }

  /** Smallest lower bound among open nodes (Infinity when empty). */
  bestBound(): number {
    return this.heap.length > 0 ? this.heap[0]!.lowerBound : Infinity;
  }

  /** Drops nodes whose bound reaches `cutoff`; returns how many. */
  prune(cutoff: number): number {
    const keep = this.heap.filter((n) => n.lowerBound < cutoff);
    const removed = this.heap.length - keep.length;
    if (removed > 0) {
      this.heap = [];
      for (const n of keep.sort((a, b) => (before(a, b) ? -1 : 1))) this.heap.push(n);
    }
    return removed;
  }

  /** Frees stored bases (memory pressure); nodes then start from the loaded basis. */
  dropBases(): void {
    for (const n of this.heap) n.basis = null;
  }
}

function before(a: MipNode, b: MipNode): boolean {
  if (a.lowerBound !== b.lowerBound) return a.lowerBound < b.lowerBound;
  if (a.estimate !== b.estimate) return a.estimate < b.estimate;
  return a.id < b.id;
}
