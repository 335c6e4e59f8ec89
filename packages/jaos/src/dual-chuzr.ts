/**
 * CHUZR of the dual simplex (dual steepest edge): the basis position maximising inf²/w, where inf² is
 * the squared primal infeasibility and w the DSE weight, and of equal scores the lowest position.
 *
 * A scan of all m positions per iteration costs as much as the rest of an iteration on hyper-sparse
 * LPs, where a third to a half of the rows stay infeasible for most of the solve (pcb3000: 1,231 of
 * 3,753 on average). As HiGHS does, a few candidates are kept instead: a full scan keeps the positions
 * with the best scores and `cutoff`, the best score of the positions it did not keep. An iteration
 * changes scores only at the positions it touches (the entering column's nonzeros, the flips' and the
 * pivot row), which are offered again; one that beats `cutoff` joins the candidates (the weakest
 * candidate leaving, `cutoff` raised to its score). So every position outside the candidates scores at
 * most `cutoff`, and the best candidate, when it scores above `cutoff`, is the position a full scan
 * would pick (ties included); otherwise the next full scan decides.
 */

/** Candidates kept between full scans. */
const CANDIDATES = 32;

export class LeavingRowChooser {
  private readonly candidate = new Int32Array(CANDIDATES);
  private readonly candidateScore = new Float64Array(CANDIDATES);
  private count = 0;
  /** Position k is a candidate. */
  private readonly kept: Uint8Array;
  /** The best score of the positions not kept (scores are never negative). */
  private cutoff = 0;
  /** False until a full scan (and after every change to many scores). */
  private valid = false;

  constructor(
    m: number,
    private readonly infeasibility: Float64Array,
    private readonly weight: Float64Array,
  ) {
    this.kept = new Uint8Array(m);
  }

  /** Many scores changed (start, refactorisation): the next choice scans them all. */
  invalidate(): void {
    this.valid = false;
  }

  /** Positions whose infeasibility or weight changed this iteration: list[0 .. count). */
  offer(list: Int32Array, count: number): void {
    if (!this.valid) return;
    for (let c = 0; c < count; c++) this.offerOne(list[c]);
  }

  offerOne(k: number): void {
    if (!this.valid || this.kept[k] === 1) return;
    const score = this.scoreOf(k);
    if (score <= this.cutoff) return;
    if (this.count < CANDIDATES) {
      this.keep(this.count++, k, score);
      return;
    }
    // full: the weakest candidate makes room (its score bounds the ones outside from now on)
    let weakest = 0;
    for (let c = 0; c < this.count; c++) {
      // this iteration may have changed a candidate's score since `choose` recorded it
      this.candidateScore[c] = this.scoreOf(this.candidate[c]);
      if (this.candidateScore[c] < this.candidateScore[weakest]) weakest = c;
    }
    const out = this.candidateScore[weakest];
    if (out >= score) {
      this.cutoff = score;
      return;
    }
    this.cutoff = Math.max(this.cutoff, out);
    this.kept[this.candidate[weakest]] = 0;
    this.keep(weakest, k, score);
  }

  /** The leaving row's position, or −1 when every position is primal feasible. */
  choose(): number {
    if (this.valid) {
      let r = -1;
      let best = 0;
      for (let c = 0; c < this.count; c++) {
        const k = this.candidate[c];
        const score = this.scoreOf(k);
        this.candidateScore[c] = score;
        if (score > best || (score === best && score > 0 && k < r)) {
          best = score;
          r = k;
        }
      }
      if (r >= 0 && best > this.cutoff) return r;
    }
    return this.scan();
  }

  private scoreOf(k: number): number {
    const inf2 = this.infeasibility[k];
    return inf2 === 0 ? 0 : inf2 / this.weight[k];
  }

  private keep(slot: number, k: number, score: number): void {
    this.candidate[slot] = k;
    this.candidateScore[slot] = score;
    this.kept[k] = 1;
  }

  /** All positions: the best one, and the candidates (the best scores) with the cutoff below them. */
  private scan(): number {
    for (let c = 0; c < this.count; c++) this.kept[this.candidate[c]] = 0;
    this.count = 0;
    this.cutoff = 0;
    this.valid = true;
    const m = this.kept.length;
    const infeasibility = this.infeasibility;
    const weight = this.weight;
    let r = -1;
    let best = 0;
    for (let k = 0; k < m; k++) {
      const inf2 = infeasibility[k];
      if (inf2 === 0) continue;
      const score = inf2 / weight[k];
      if (score > best) {
        best = score;
        r = k;
      }
      if (score > this.cutoff) this.offerOne(k);
    }
    return r;
  }
}
