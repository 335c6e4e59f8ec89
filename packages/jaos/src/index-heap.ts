/**
 * A binary min-heap of distinct indices in [0, n) keyed by an external array (the Forrest–Tomlin
 * update's rows by pivot index): pushing an index already held is a no-op, so the update visits only
 * the rows its eliminations touch, in pivot order, instead of scanning every row after the pivot.
 */
export class IndexHeap {
  private readonly heap: Int32Array;
  private readonly held: Uint8Array;
  size = 0;

  constructor(n: number) {
    this.heap = new Int32Array(n);
    this.held = new Uint8Array(n);
  }

  clear(): void {
    for (let k = 0; k < this.size; k++) this.held[this.heap[k]] = 0;
    this.size = 0;
  }

  push(i: number, key: Int32Array): void {
    if (this.held[i]) return;
    this.held[i] = 1;
    const heap = this.heap;
    let at = this.size++;
    const ki = key[i];
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (key[heap[parent]] <= ki) break;
      heap[at] = heap[parent];
      at = parent;
    }
    heap[at] = i;
  }

  /** Removes and returns the index of the smallest key. */
  pop(key: Int32Array): number {
    const heap = this.heap;
    const top = heap[0];
    this.held[top] = 0;
    const last = heap[--this.size];
    const n = this.size;
    const kl = key[last];
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && key[heap[child + 1]] < key[heap[child]]) child++;
      if (key[heap[child]] >= kl) break;
      heap[at] = heap[child];
      at = child;
    }
    if (n > 0) heap[at] = last;
    return top;
  }
}
