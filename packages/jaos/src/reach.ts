/**
 * The symbolic half of a hyper-sparse triangular solve (Gilbert–Peierls): the set of nodes reachable
 * from a right-hand side's nonzeros in the factor's dependency graph, in topological order. The numeric
 * pass then visits only those nodes instead of all m, which is what pays on the Kennington and rail LPs,
 * whose FTRAN/BTRAN results hold well under 1 % of m (docs/bench/jaos.md, "wide set: per-iteration cost").
 *
 * The graph is given the way the factors store it: node v's successors are key[start[s] .. start[s] +
 * length[s]) with s = slot[v] (or s = v without a slot map), so L's etas, U's columns or rows and Lᵀ
 * are searched where they lie, without copies.
 */
export class Reach {
  private readonly mark: Int32Array;
  private stamp = 0;
  private readonly stackNode: Int32Array;
  private readonly stackAt: Int32Array;
  private readonly stackEnd: Int32Array;
  /** The last search's nodes in topological order: topo[top .. n). */
  readonly topo: Int32Array;

  constructor(readonly n: number) {
    this.mark = new Int32Array(n);
    this.stackNode = new Int32Array(n);
    this.stackAt = new Int32Array(n);
    this.stackEnd = new Int32Array(n);
    this.topo = new Int32Array(n);
  }

  /**
   * Depth-first search from roots[0 .. count); returns `top`, the reached nodes being topo[top .. n)
   * with every node before its successors (reverse postorder).
   */
  search(roots: Int32Array, count: number, slot: Int32Array | null, start: Int32Array, length: Int32Array, key: Int32Array): number {
    const { mark, stackNode, stackAt, stackEnd, topo } = this;
    if (++this.stamp === 0x7fffffff) {
      mark.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    let top = this.n;
    for (let c = 0; c < count; c++) {
      const root = roots[c];
      if (mark[root] === stamp) continue;
      mark[root] = stamp;
      let sp = 0;
      let s = slot === null ? root : slot[root];
      stackNode[0] = root;
      stackAt[0] = start[s];
      stackEnd[0] = start[s] + length[s];
      while (sp >= 0) {
        const at = stackAt[sp];
        if (at < stackEnd[sp]) {
          stackAt[sp] = at + 1;
          const child = key[at];
          if (mark[child] === stamp) continue;
          mark[child] = stamp;
          s = slot === null ? child : slot[child];
          sp++;
          stackNode[sp] = child;
          stackAt[sp] = start[s];
          stackEnd[sp] = start[s] + length[s];
        } else {
          topo[--top] = stackNode[sp];
          sp--;
        }
      }
    }
    return top;
  }
}
