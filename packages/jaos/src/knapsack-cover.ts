/**
 * Lifted cover cuts separated on the model's own knapsack rows (Crowder, Johnson & Padberg 1983;
 * lifting as in flow-cover.ts).
 *
 * A row side Σ a_j x_j ≤ b (a ≥ row is read negated) whose integer columns include binaries is made a
 * binary knapsack at the root's bounds:
 * - every other column (continuous, general integer, or a binary fixed by its bounds) is replaced by its
 *   least contribution min(a_j·l_j, a_j·u_j) over its bounds, moved to the right-hand side: every
 *   point of the model satisfies the relaxed row, so every cut of it is valid for the model (a column
 *   with an infinite bound on that side voids the row);
 * - a binary with a_j < 0 is complemented, z_j = 1 − x_j, adding −a_j to b;
 * leaving Σ a_j z_j ≤ b with every a_j > 0. At the LP point z*, a cover C (Σ_C a_j > b) is chosen
 * greedily by (1 − z*_j)/a_j (the items nearest 1 per unit of weight first), then made minimal by
 * dropping the items of least z* the cover does not need. Its excess λ = Σ_C a_j − b is then at most
 * every a_j in C, so flow-cover.ts's cut Σ_C min(a_j, λ) z_j + Σ_{j∉C} φ(a_j) z_j ≤ Σ_C min(a_j, λ) − λ
 * (s = 0) is λ times the cover inequality Σ_C z_j ≤ |C| − 1 with every item outside C lifted at once
 * by the superadditive φ/λ (sequence-independent lifting). It is divided by λ, mapped back through
 * the complementation, and kept when violated with efficacy ≥ 1e-4.
 *
 * Only the rows of the model given at construction are read, with its column bounds at construction
 * (the root's, global), so every cut is valid for that model everywhere in the search.
 */
import { type Cut, cutEfficacy, finishSparseCut } from "./cuts.js";
import { coverCut } from "./flow-cover.js";
import type { LpModel } from "./model.js";
import { type CsrMatrix, toRowWise } from "./sparse.js";

const MIN_EFFICACY = 1e-4;
/** Binaries at least this far from 0 at the LP point are candidates for the cover. */
const MIN_COVER_VALUE = 1e-6;

/** One side of a row as a binary knapsack over its binaries: Σ a_k z_k ≤ capacity. */
interface Knapsack {
  row: number;
  cols: Int32Array;
  /** a_k > 0, for z_k = x_j or, when complemented, 1 − x_j. */
  weight: Float64Array;
  complemented: Uint8Array;
  capacity: number;
}

export interface KnapsackCoverCut {
  cut: Cut;
  efficacy: number;
  row: number;
}

export class KnapsackCoverSeparator {
  readonly knapsacks: Knapsack[] = [];

  constructor(private readonly model: LpModel) {
    const rows = toRowWise(model.a);
    for (let i = 0; i < model.rows; i++) {
      if (Number.isFinite(model.rowUpper[i])) this.addSide(rows, i, 1, model.rowUpper[i]);
      if (Number.isFinite(model.rowLower[i])) this.addSide(rows, i, -1, -model.rowLower[i]);
    }
  }

  /** Records sign·(row i) ≤ rhs as a knapsack when it has two binaries or more and is not redundant. */
  private addSide(rows: CsrMatrix, i: number, sign: 1 | -1, rhs: number): void {
    const { model } = this;
    const cols: number[] = [];
    const weight: number[] = [];
    const complemented: number[] = [];
    let capacity = rhs;
    let total = 0;
    for (let k = rows.start[i]; k < rows.start[i + 1]; k++) {
      const j = rows.index[k];
      const a = sign * rows.value[k];
      if (a === 0) continue;
      const lo = model.colLower[j];
      const up = model.colUpper[j];
      if (model.integer[j] && lo === 0 && up === 1) {
        cols.push(j);
        weight.push(Math.abs(a));
        complemented.push(a < 0 ? 1 : 0);
        if (a < 0) capacity -= a;
        total += Math.abs(a);
        continue;
      }
      const least = a > 0 ? a * lo : a * up;
      if (!Number.isFinite(least)) return;
      capacity -= least;
    }
    if (cols.length < 2 || !(capacity > 0) || !Number.isFinite(capacity)) return;
    // no cover exists when all the binaries fit together
    if (total <= capacity * (1 + 1e-9) + 1e-9) return;
    this.knapsacks.push({
      row: i,
      cols: Int32Array.from(cols),
      weight: Float64Array.from(weight),
      complemented: Uint8Array.from(complemented),
      capacity,
    });
  }

  /** Up to `maxCuts` violated lifted cover cuts at the LP point x, most efficacious first. */
  separate(x: Float64Array, maxCuts: number): KnapsackCoverCut[] {
    const found: KnapsackCoverCut[] = [];
    for (const ks of this.knapsacks) {
      const c = this.fromKnapsack(ks, x);
      if (c) found.push(c);
    }
    found.sort((p, q) => q.efficacy - p.efficacy || p.row - q.row);
    return found.slice(0, maxCuts);
  }

  private fromKnapsack(ks: Knapsack, x: Float64Array): KnapsackCoverCut | null {
    const n = ks.cols.length;
    const z = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const v = Math.min(1, Math.max(0, x[ks.cols[k]]));
      z[k] = ks.complemented[k] ? 1 - v : v;
    }
    const inCover = chooseCover(ks.weight, z, ks.capacity);
    if (!inCover) return null;
    const lifted = coverCut(ks.weight, z, ks.capacity, 0, inCover);
    if (!lifted || !(lifted.violation > 0)) return null;
    let lambda = 0;
    for (let k = 0; k < n; k++) if (inCover[k]) lambda = Math.max(lambda, lifted.coef[k]);
    if (!(lambda > 0)) return null;
    // Σ α_k z_k ≤ r (α = coef/λ)  →  Σ −α_k x_j (plain) + α_k x_j (complemented) ≥ −r + Σ_compl α_k
    const order = Array.from({ length: n }, (_, k) => k).sort((p, q) => ks.cols[p] - ks.cols[q]);
    const index: number[] = [];
    const value: number[] = [];
    let lower = -lifted.rhs / lambda;
    for (const k of order) {
      const alpha = lifted.coef[k] / lambda;
      if (alpha === 0) continue;
      index.push(ks.cols[k]);
      if (ks.complemented[k]) {
        value.push(alpha);
        lower += alpha;
      } else value.push(-alpha);
    }
    const cut = finishSparseCut(index, value, lower, this.model);
    if (!cut) return null;
    const efficacy = cutEfficacy(cut, x);
    return efficacy >= MIN_EFFICACY ? { cut, efficacy, row: ks.row } : null;
  }
}

/**
 * A minimal cover of Σ a_k z_k ≤ b chosen at the LP point z: items with z_k > 0 by (1 − z_k)/a_k
 * ascending until the weight passes b, then the items of least z_k dropped while it still does; null
 * when the items with z_k > 0 do not cover b (no cover inequality is violated then).
 */
export function chooseCover(a: ArrayLike<number>, z: ArrayLike<number>, b: number): Uint8Array | null {
  const n = a.length;
  const candidates: number[] = [];
  for (let k = 0; k < n; k++) if (z[k]! > MIN_COVER_VALUE) candidates.push(k);
  candidates.sort((p, q) => (1 - z[p]!) / a[p]! - (1 - z[q]!) / a[q]! || a[q]! - a[p]! || p - q);
  const inCover = new Uint8Array(n);
  const margin = 1e-9 * Math.max(1, Math.abs(b));
  let sum = 0;
  const members: number[] = [];
  for (const k of candidates) {
    if (sum > b + margin) break;
    inCover[k] = 1;
    members.push(k);
    sum += a[k]!;
  }
  if (!(sum > b + margin)) return null;
  // least z first (the cover inequality gains most from dropping them), lighter first on ties
  members.sort((p, q) => z[p]! - z[q]! || a[p]! - a[q]! || p - q);
  for (const k of members) {
    if (sum - a[k]! > b + margin) {
      inCover[k] = 0;
      sum -= a[k]!;
    }
  }
  return inCover;
}
