/** Append-only typed arrays that double their capacity; `data` may be replaced on growth. */
export class GrowableI32 {
  data: Int32Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  clear(): void {
    this.length = 0;
  }
}

export class GrowableF64 {
  data: Float64Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  clear(): void {
    this.length = 0;
  }
}
