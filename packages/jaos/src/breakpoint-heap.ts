/**
 * Binary min-heaps over the slots 0..size−1 of the dual ratio test's candidate list, for walking the
 * breakpoints in increasing order without sorting all of them (the bound-flipping ratio test usually
 * passes a prefix: on fit2d a full sort of thousands of breakpoints per iteration was a third of the
 * solve). The keys are stored by slot (key[c] for candidate slot c, read sequentially when they are
 * computed), and the heap orders slots by (key[c], c) — exactly the order of a stable sort by key.
 */

/** Arranges heap[0..size) (slots 0..size−1) into a heap by (key[c], c). */
export function heapifyByKey(heap: Int32Array, size: number, key: Float64Array): void {
  for (let c = 0; c < size; c++) heap[c] = c;
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(heap, size, i, key);
}

/** Removes the top; returns the new size. */
export function popTop(heap: Int32Array, size: number, key: Float64Array): number {
  const last = size - 1;
  heap[0] = heap[last];
  if (last > 1) siftDown(heap, last, 0, key);
  return last;
}

function siftDown(heap: Int32Array, size: number, i: number, key: Float64Array): void {
  const item = heap[i];
  const k = key[item];
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    let ck = key[heap[child]];
    const right = child + 1;
    if (right < size) {
      const rk = key[heap[right]];
      if (rk < ck || (rk === ck && heap[right] < heap[child])) {
        child = right;
        ck = rk;
      }
    }
    if (ck < k || (ck === k && heap[child] < item)) {
      heap[i] = heap[child];
      i = child;
    } else break;
  }
  heap[i] = item;
}
