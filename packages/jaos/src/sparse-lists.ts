/**
 * A set of growable sparse lists (key, value) sharing one pool: the row-wise and column-wise copies of
 * the updated U factor. A list that outgrows its capacity moves to the end of the pool; a full pool is
 * compacted into a larger one. Removal swaps the last entry in (order within a list is not kept).
 */
export class SparseLists {
  readonly start: Int32Array;
  readonly length: Int32Array;
  private readonly capacity: Int32Array;
  key: Int32Array;
  value: Float64Array;
  private end = 0;
  /** Entries held in all lists. */
  nonzeros = 0;

  constructor(lists: number, poolSize: number) {
    this.start = new Int32Array(lists);
    this.length = new Int32Array(lists);
    this.capacity = new Int32Array(lists);
    this.key = new Int32Array(Math.max(16, poolSize));
    this.value = new Float64Array(Math.max(16, poolSize));
  }

  /** Lays out empty lists with the given capacities (replacing all contents). */
  reset(capacities: ArrayLike<number>): void {
    let total = 0;
    for (let l = 0; l < capacities.length; l++) total += capacities[l]! + 2;
    if (total > this.key.length) {
      this.key = new Int32Array(2 * total);
      this.value = new Float64Array(2 * total);
    }
    let at = 0;
    for (let l = 0; l < capacities.length; l++) {
      this.start[l] = at;
      this.length[l] = 0;
      this.capacity[l] = capacities[l]! + 2;
      at += this.capacity[l];
    }
    this.end = at;
    this.nonzeros = 0;
  }

  push(list: number, key: number, value: number): void {
    if (this.length[list] === this.capacity[list]) this.grow(list);
    const at = this.start[list] + this.length[list]++;
    this.key[at] = key;
    this.value[at] = value;
    this.nonzeros++;
  }

  /** Removes the entry with `key` from `list` (no-op when absent). */
  remove(list: number, key: number): void {
    const b = this.start[list];
    const last = b + this.length[list] - 1;
    for (let k = b; k <= last; k++) {
      if (this.key[k] === key) {
        this.key[k] = this.key[last];
        this.value[k] = this.value[last];
        this.length[list]--;
        this.nonzeros--;
        return;
      }
    }
  }

  clear(list: number): void {
    this.nonzeros -= this.length[list];
    this.length[list] = 0;
  }

  private grow(list: number): void {
    const need = Math.max(8, 2 * this.length[list]);
    if (this.end + need > this.key.length) this.compact(need);
    const from = this.start[list];
    this.key.copyWithin(this.end, from, from + this.length[list]);
    this.value.copyWithin(this.end, from, from + this.length[list]);
    this.start[list] = this.end;
    this.capacity[list] = need;
    this.end += need;
  }

  private compact(extra: number): void {
    let used = 0;
    for (let l = 0; l < this.start.length; l++) used += this.length[l] + 4;
    const size = Math.max(this.key.length, 2 * (used + extra));
    const key = new Int32Array(size);
    const value = new Float64Array(size);
    let at = 0;
    for (let l = 0; l < this.start.length; l++) {
      const b = this.start[l];
      key.set(this.key.subarray(b, b + this.length[l]), at);
      value.set(this.value.subarray(b, b + this.length[l]), at);
      this.start[l] = at;
      this.capacity[l] = this.length[l] + 4;
      at += this.capacity[l];
    }
    this.key = key;
    this.value = value;
    this.end = at;
  }
}
