/**
 * The dual simplex's CHUZR (dual steepest edge: the basis position maximising inf²/w, ties to the
 * lowest position) without a scan of all m positions per iteration, as HiGHS's hyper-sparse CHUZR does.
 * A full scan keeps the KEEP + 1 best positions and the smallest of their scores, the cutoff: every
 * position left out scores at most the cutoff. Between scans only the positions whose infeasibility or
 * weight changed (the caller reports them) can rise above it; those join the kept set. The best kept
 * position that scores above the cutoff is then the full scan's answer, ties included (no position
 * outside the set can equal it); when none does, the next call scans again. So the row chosen is the
 * full scan's, always — only the work differs (tested against the plain scan).
 */

/** Positions kept by a full scan beyond the first (its cutoff is the last one's score). */
const KEEP = 32;
/** The kept set is rebuilt by a full scan once positions joining it push it past this size. */
const KEPT_LIMIT = 8 * KEEP;

export class PartialChuzr {
  private readonly kept: Int32Array;
  private readonly isKept: Uint8Array;
  private keptCount = 0;
  private readonly changed: Int32Array;
  private readonly isChanged: Uint8Array;
  private changedCount = 0;
  /** Every position outside the kept set scores at most this (since the last scan). */
  private cutoff = 0;
  private valid = false;
  // the full scan's heap of the best scores (smallest on top)
  private readonly heapPos: Int32Array;
  private readonly heapScore: Float64Array;
  /** Full scans done (tests and measurements). */
  scans = 0;

  constructor(readonly m: number) {
    this.kept = new Int32Array(Math.min(m, KEPT_LIMIT) + 1);
    this.isKept = new Uint8Array(m);
    this.changed = new Int32Array(m);
    this.isChanged = new Uint8Array(m);
    this.heapPos = new Int32Array(KEEP + 1);
    this.heapScore = new Float64Array(KEEP + 1);
  }

  /** Infeasibilities or weights changed wholesale: the next choice scans. */
  invalidate(): void {
    this.valid = false;
    this.dropChanged();
  }

  private dropChanged(): void {
    for (let c = 0; c < this.changedCount; c++) this.isChanged[this.changed[c]] = 0;
    this.changedCount = 0;
  }

  /** Position k's infeasibility or weight changed. */
  changedAt(k: number): void {
    if (!this.valid || this.isChanged[k]) return;
    this.isChanged[k] = 1;
    this.changed[this.changedCount++] = k;
  }

  /** changedAt for list[0 .. count). */
  changedAtList(list: Int32Array, count: number): void {
    if (!this.valid) return;
    for (let c = 0; c < count; c++) this.changedAt(list[c]);
  }

  /** The position maximising inf2[k] / weight[k] over inf2[k] ≠ 0 (lowest on ties), or −1. */
  choose(inf2: Float64Array, weight: Float64Array): number {
    if (this.valid) {
      this.takeChanged(inf2, weight);
      if (this.valid) {
        const r = this.bestKept(inf2, weight);
        if (r >= 0) return r;
      }
    }
    return this.scan(inf2, weight);
  }

  /** The changed positions scoring above the cutoff join the kept set (too many: rescan). */
  private takeChanged(inf2: Float64Array, weight: Float64Array): void {
    const { changed, isChanged, isKept, kept } = this;
    for (let c = 0; c < this.changedCount; c++) {
      const k = changed[c];
      isChanged[k] = 0;
      if (isKept[k] || !this.valid) continue;
      const v = inf2[k];
      if (v === 0 || !(v / weight[k] > this.cutoff)) continue;
      if (this.keptCount === kept.length) {
        this.valid = false;
        continue;
      }
      isKept[k] = 1;
      kept[this.keptCount++] = k;
    }
    this.changedCount = 0;
  }

  /** The best kept position if it scores above the cutoff, else −1; drops those that no longer do. */
  private bestKept(inf2: Float64Array, weight: Float64Array): number {
    const { kept, isKept } = this;
    let r = -1;
    let best = this.cutoff;
    let at = 0;
    for (let c = 0; c < this.keptCount; c++) {
      const k = kept[c];
      const v = inf2[k];
      const score = v === 0 ? 0 : v / weight[k];
      if (!(score > this.cutoff)) {
        isKept[k] = 0;
        continue;
      }
      kept[at++] = k;
      if (score > best || (score === best && k < r)) {
        best = score;
        r = k;
      }
    }
    this.keptCount = at;
    return r;
  }

  /** The full scan: the answer, and the KEEP + 1 best positions kept with the cutoff. */
  private scan(inf2: Float64Array, weight: Float64Array): number {
    this.scans++;
    this.dropChanged();
    const { heapPos, heapScore, kept, isKept } = this;
    for (let c = 0; c < this.keptCount; c++) isKept[kept[c]] = 0;
    this.keptCount = 0;
    let size = 0;
    let r = -1;
    let best = 0;
    for (let k = 0; k < this.m; k++) {
      const v = inf2[k];
      if (v === 0) continue;
      const score = v / weight[k];
      if (score > best) {
        best = score;
        r = k;
      }
      if (size <= KEEP) {
        heapPush(heapPos, heapScore, size++, k, score);
      } else if (score > heapScore[0]) {
        heapReplaceTop(heapPos, heapScore, size, k, score);
      }
    }
    // fewer than KEEP + 1 infeasible positions: all of them are kept and nothing outside scores
    this.cutoff = size <= KEEP ? 0 : heapScore[0];
    for (let c = 0; c < size; c++) {
      const k = heapPos[c];
      isKept[k] = 1;
      kept[this.keptCount++] = k;
    }
    this.valid = true;
    return r;
  }
}

/** A min-heap of scores (positions alongside) of `size` entries: adds one. */
function heapPush(pos: Int32Array, score: Float64Array, size: number, k: number, s: number): void {
  let at = size;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (score[parent] <= s) break;
    pos[at] = pos[parent];
    score[at] = score[parent];
    at = parent;
  }
  pos[at] = k;
  score[at] = s;
}

/** Replaces the smallest of a full min-heap of `size` entries with (k, s). */
function heapReplaceTop(pos: Int32Array, score: Float64Array, size: number, k: number, s: number): void {
  let at = 0;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && score[child + 1] < score[child]) child++;
    if (score[child] >= s) break;
    pos[at] = pos[child];
    score[at] = score[child];
    at = child;
  }
  pos[at] = k;
  score[at] = s;
}
