/**
 * A set of distinct indices in [0, n) with O(1) insert and delete, listed in `list[0 .. size)` (in no
 * particular order). The dual simplex keeps its primal-infeasible basis positions in one, updated
 * where x changed, so that CHUZR visits those instead of all m rows (the Kennington LPs: a few
 * hundred of several thousand).
 */
export class IndexSet {
  readonly list: Int32Array;
  /** Each index's place in `list`, or −1 when absent. */
  private readonly where: Int32Array;
  size = 0;

  constructor(n: number) {
    this.list = new Int32Array(n);
    this.where = new Int32Array(n).fill(-1);
  }

  has(i: number): boolean {
    return this.where[i] >= 0;
  }

  add(i: number): void {
    if (this.where[i] >= 0) return;
    this.where[i] = this.size;
    this.list[this.size++] = i;
  }

  delete(i: number): void {
    const at = this.where[i];
    if (at < 0) return;
    const last = this.list[--this.size];
    this.list[at] = last;
    this.where[last] = at;
    this.where[i] = -1;
  }

  clear(): void {
    for (let c = 0; c < this.size; c++) this.where[this.list[c]] = -1;
    this.size = 0;
  }
}
