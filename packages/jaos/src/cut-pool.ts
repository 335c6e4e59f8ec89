/**
 * The root cut loop's pool of cuts it took out of the LP because they stopped binding. A cut that does
 * not bind at one round's LP point often binds again a few rounds later, when other cuts have moved the
 * point back toward it; separating afresh finds it only if the separators happen to produce it again
 * (a Gomory cut comes from the current basis, so mostly it does not). Each round the pool's cuts that
 * the new LP point violates go back into the LP. Every pooled cut was valid when found and stays valid:
 * the loop works on one model with fixed column bounds.
 */
import type { Cut } from "./cuts.js";

/** Pool cuts violated by less than this (distance of the point from the cut) stay in the pool. */
const MIN_EFFICACY = 1e-5;

export class CutPool {
  private cuts: { cut: Cut; norm: number }[] = [];

  /** `capacity` bounds the pool: beyond it the cuts pooled longest ago are forgotten. */
  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.cuts.length;
  }

  add(cuts: Iterable<Cut>): void {
    for (const cut of cuts) {
      let norm = 0;
      for (let k = 0; k < cut.value.length; k++) norm += cut.value[k] * cut.value[k];
      if (norm > 0) this.cuts.push({ cut, norm: Math.sqrt(norm) });
    }
    if (this.cuts.length > this.capacity) this.cuts = this.cuts.slice(this.cuts.length - this.capacity);
  }

  /** Takes out and returns up to `max` pool cuts violated at x, most efficacious first. */
  takeViolated(x: Float64Array, max: number): Cut[] {
    const violated: { at: number; efficacy: number }[] = [];
    this.cuts.forEach(({ cut, norm }, at) => {
      let lhs = 0;
      for (let k = 0; k < cut.index.length; k++) lhs += cut.value[k] * x[cut.index[k]];
      const efficacy = (cut.lower - lhs) / norm;
      if (efficacy >= MIN_EFFICACY) violated.push({ at, efficacy });
    });
    violated.sort((a, b) => b.efficacy - a.efficacy || a.at - b.at);
    const taken = violated.slice(0, max);
    const out = new Uint8Array(this.cuts.length);
    for (const t of taken) out[t.at] = 1;
    const result = taken.map((t) => this.cuts[t.at]!.cut);
    this.cuts = this.cuts.filter((_, at) => !out[at]);
    return result;
  }
}
