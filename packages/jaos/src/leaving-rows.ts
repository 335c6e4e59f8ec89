/**
 * CHUZR for the dual simplex: the basis position maximising infeasibility² / DSE weight, or −1; of equal
 * scores the lowest position (what a scan of all positions in order picks).
 *
 * Two exact ways to the same row. (1) A list of the positions that may be infeasible, scanned with a
 * division each: every position with a nonzero squared infeasibility is listed, so the scan sees every
 * candidate; a third to a half of the rows stay infeasible on the wide LPs, so this saves part of an
 * O(m) scan, not its order. (2) A tournament tree over all m positions' scores: an iteration updates the
 * leaves whose infeasibility or weight changed and walks to the root (log m per change), and the root is
 * the row. On hyper-sparse LPs (ken-13: ~4,370 listed, ~25 positions changed per iteration) the tree
 * is an order cheaper than the scan; where the entering column is dense (the Mészáros LPs change more
 * positions than are listed) the scan is. Per iteration the cheaper one by a count — changed positions
 * × tree depth against listed positions — is kept up. The tree is dropped at the first iteration that
 * finds the scan cheaper and rebuilt (O(m): a division per position, a comparison per node) only when
 * the counted saving of the iterations in a row that found it cheaper pays for the rebuild, so LPs whose
 * iterations alternate (cre-b) do not rebuild it for a handful of cheap iterations.
 *
 * Scores are the same division in both (bit for bit); a score that is not positive (zero, or NaN from
 * an overflowed weight) is stored as 0 and never chosen, as in the scan. The tree's left subtree holds
 * the lower positions, so a node keeps its left winner on equal scores: the lowest position among the
 * best, whatever order the changes came in.
 */
export class LeavingRows {
  readonly list: Int32Array;
  readonly listed: Uint8Array;
  count = 0;
  /** Leaves of the tree: the least power of two ≥ m (at least 2); leaf of position k is node leaves + k. */
  private readonly leaves: number;
  private readonly depth: number;
  /** The winning position of each node 1 .. 2·leaves − 1; padding leaves hold m. */
  private readonly winner: Int32Array;
  /** Score by position while the tree is valid; key[m] = −1 loses to every score. */
  private readonly key: Float64Array;
  private treeValid = false;
  /** Positions with a positive key (valid with the tree): the list's length a scan would see. */
  private positive = 0;
  /** Listed positions minus tree steps, summed over the consecutive iterations the tree was cheaper. */
  private credit = 0;

  constructor(readonly m: number) {
    this.list = new Int32Array(m);
    this.listed = new Uint8Array(m);
    let leaves = 2;
    let depth = 1;
    while (leaves < m) {
      leaves *= 2;
      depth++;
    }
    this.leaves = leaves;
    this.depth = depth;
    this.winner = new Int32Array(2 * leaves);
    this.key = new Float64Array(m + 1);
    this.key[m] = -1;
  }

  /** True while CHUZR reads the tree rather than scanning the list (tests). */
  get usingTree(): boolean {
    return this.treeValid;
  }

  /**
   * A new dual simplex call (a branch-and-bound node's, say): the saving counted in earlier calls says
   * little about this one's first iterations, and a node solve of a few iterations would not repay a
   * rebuild, so the count starts again (within a call it survives the refreshes after refactorisation).
   */
  startCall(): void {
    this.credit = 0;
  }

  /** Lists position k (its infeasibility may be nonzero). */
  note(k: number): void {
    if (this.listed[k] === 0) {
      this.listed[k] = 1;
      this.list[this.count++] = k;
    }
  }

  /** Empties the list; the infeasibilities are about to change wholesale, so the tree is stale too. */
  clear(): void {
    for (let c = 0; c < this.count; c++) this.listed[this.list[c]] = 0;
    this.count = 0;
    this.treeValid = false;
  }

  choose(infeasibility: Float64Array, weight: Float64Array): number {
    // a rebuild visits m leaves and as many nodes
    if (!this.treeValid && this.credit >= 2 * this.leaves) this.rebuild(infeasibility, weight);
    if (this.treeValid) {
      const w = this.winner[1];
      return this.key[w] > 0 ? w : -1;
    }
    return this.scan(infeasibility, weight);
  }

  /**
   * After an iteration without refactorisation: the positions whose infeasibility or weight changed
   * are the entering column's nonzeros, the flips' FTRAN nonzeros and the pivot row r (repeats allowed).
   */
  changed(infeasibility: Float64Array, weight: Float64Array, col: Int32Array, colCount: number, flip: Int32Array, flipCount: number, r: number): void {
    const live = this.treeValid ? this.positive : this.count;
    const steps = (colCount + flipCount + 1) * this.depth;
    if (steps > live) {
      this.credit = 0;
      this.treeValid = false;
      return;
    }
    if (!this.treeValid) {
      this.credit += live - steps;
      return;
    }
    for (let c = 0; c < colCount; c++) this.update(col[c], infeasibility, weight);
    for (let c = 0; c < flipCount; c++) this.update(flip[c], infeasibility, weight);
    this.update(r, infeasibility, weight);
  }

  /** The list scan; positions found feasible leave the list. */
  private scan(infeasibility: Float64Array, weight: Float64Array): number {
    const { list, listed } = this;
    let r = -1;
    let best = 0;
    let kept = 0;
    for (let c = 0; c < this.count; c++) {
      const k = list[c];
      const inf2 = infeasibility[k];
      if (inf2 === 0) {
        listed[k] = 0;
        continue;
      }
      list[kept++] = k;
      const score = inf2 / weight[k];
      if (score > best || (score === best && k < r)) {
        best = score;
        r = k;
      }
    }
    this.count = kept;
    return r;
  }

  private rebuild(infeasibility: Float64Array, weight: Float64Array): void {
    const { m, leaves, winner, key } = this;
    let positive = 0;
    for (let k = 0; k < m; k++) {
      const s = scoreOf(infeasibility[k], weight[k]);
      key[k] = s;
      if (s > 0) positive++;
      winner[leaves + k] = k;
    }
    for (let k = m; k < leaves; k++) winner[leaves + k] = m;
    for (let node = leaves - 1; node >= 1; node--) {
      const a = winner[2 * node];
      const b = winner[2 * node + 1];
      winner[node] = key[b] > key[a] ? b : a;
    }
    this.positive = positive;
    this.treeValid = true;
  }

  private update(k: number, infeasibility: Float64Array, weight: Float64Array): void {
    const { winner, key } = this;
    const s = scoreOf(infeasibility[k], weight[k]);
    const old = key[k];
    if (s === old) return;
    if (s > 0) {
      if (!(old > 0)) this.positive++;
    } else if (old > 0) this.positive--;
    key[k] = s;
    for (let node = (this.leaves + k) >> 1; node >= 1; node >>= 1) {
      const a = winner[2 * node];
      const b = winner[2 * node + 1];
      const w = key[b] > key[a] ? b : a;
      // a node whose winner is another position than k, unchanged, leaves every ancestor unchanged
      if (w === winner[node] && w !== k) break;
      winner[node] = w;
    }
  }
}

function scoreOf(inf2: number, w: number): number {
  if (inf2 === 0) return 0;
  const s = inf2 / w;
  // not Math.max(s, 0): a NaN score must become 0 (never chosen, as in the scan), not stay NaN
  if (s > 0) return s;
  return 0;
}
