/**
 * The rounding of a c-MIR base row once mir.ts has aggregated and transformed it: every integer column
 * a distance z ≥ 0 from the bound it is complemented to, every continuous one a distance x' ≥ 0 from a
 * simple or variable bound. Dividing by δ > 0 gives Σ g_j z_j + Σ h_k x'_k ≤ b with f0 = frac(b), and the
 * MIR inequality
 *
 *     Σ (⌊g_j⌋ + max(0, frac(g_j) − f0)/(1 − f0)) z_j + Σ_{h_k < 0} h_k/(1 − f0) · x'_k ≤ ⌊b⌋
 *
 * holds for every mixed-integer point, whichever bound each column is measured from. δ is tried among
 * the |g_j| of integer columns strictly inside their bounds and 1, then the best halved up to three
 * times; then integer columns strictly inside finite bounds are measured from the other bound one at a
 * time, each change kept when the cut gets more efficacious. The most efficacious violated cut is mapped
 * back to the original columns. When every integer of the row is binary, the row read as a mixed-binary
 * knapsack also gives a lifted cover cut (flow-cover.ts) when asked for, kept instead when it is deeper.
 */
import { type Cut, cutEfficacy, finishSparseCut } from "./cuts.js";
import { liftedKnapsackCover } from "./flow-cover.js";
import type { LpModel } from "./model.js";
import type { VariableBound } from "./variable-bounds.js";

const MIN_F0 = 0.05;
const MAX_F0 = 0.999;
const MIN_EFFICACY = 1e-4;
const MAX_DELTAS = 8;
/** Integer columns whose complementation is tried the other way per cut. */
const MAX_COMPLEMENT_FLIPS = 16;

export type Substitution = { kind: "lb" } | { kind: "ub" } | { kind: "vlb"; bound: VariableBound } | { kind: "vub"; bound: VariableBound };

export type CutKind = "mir" | "cover";

export interface ScoredCut {
  cut: Cut;
  efficacy: number;
  kind: CutKind;
}

/** An integer column of the transformed row: z ≥ 0 its distance from the bound it is complemented to. */
export interface IntegerTerm {
  j: number;
  g: number;
  complemented: boolean;
  /** z at the LP point. */
  z: number;
}

/** A continuous column of the transformed row: x' ≥ 0 its distance from the bound `sub`. */
export interface ContinuousTerm {
  j: number;
  h: number;
  sub: Substitution;
  /** x' at the LP point. */
  distance: number;
}

/** Rounds transformed rows into cuts; its scratch is dense over the model's columns. */
export class MirRounding {
  private readonly n: number;
  private readonly pi: Float64Array;
  private readonly piMark: Uint8Array;
  /** The columns `pi` holds (inOriginalColumns), and the cut's coefficients over them. */
  private readonly piList: Int32Array;
  private readonly piValue: Float64Array;
  private piCount = 0;
  // the rounded coefficients of mir(), grown as needed: every divisor and flip tried rounds the row
  // again, and their arrays were a large part of the separator's garbage
  private intCoefs = new Float64Array(16);
  private contCoefs = new Float64Array(16);

  /** `lower` and `upper`: the column bounds the rows were transformed with (the separator's, at construction). */
  constructor(
    private readonly model: LpModel,
    private readonly lower: Float64Array,
    private readonly upper: Float64Array,
  ) {
    this.n = model.cols;
    this.pi = new Float64Array(this.n);
    this.piMark = new Uint8Array(this.n);
    this.piList = new Int32Array(this.n);
    this.piValue = new Float64Array(this.n);
  }

  /**
   * The best c-MIR cut of the transformed row Σ g_j z_j + Σ h_k x'_k ≤ b over the divisors tried, and its
   * lifted cover cut when `withCover`: of the two only the deeper, those violated enough.
   */
  cuts(ints: IntegerTerm[], conts: ContinuousTerm[], b: number, x: Float64Array, withCover: boolean): ScoredCut[] {
    const deltas: number[] = [];
    for (const t of ints) {
      const d = Math.abs(t.g);
      if (t.z <= 1e-6 || d < 1e-6 || t.z >= this.upper[t.j] - this.lower[t.j] - 1e-6) continue;
      if (deltas.some((e) => Math.abs(e - d) <= 1e-9 * Math.max(1, d))) continue;
      deltas.push(d);
      if (deltas.length >= MAX_DELTAS) break;
    }
    // δ = 1 rounds the row as it stands: on integer coefficients that is the row's own MIR (with
    // Σ a_j n_j + u − o = d, the two facets u ≥ f0·(⌈d⌉ − Σ a_j n_j) and its mirror), which no
    // coefficient divisor gives unless some coefficient is 1
    if (!deltas.some((e) => Math.abs(e - 1) <= 1e-9)) deltas.push(1);
    let best: ScoredCut | null = null;
    let bestDelta = 0;
    for (const d of deltas) {
      const c = this.mir(ints, conts, b, d, x);
      if (c && (!best || c.efficacy > best.efficacy)) {
        best = c;
        bestDelta = d;
      }
    }
    if (best) {
      for (const d of [bestDelta / 2, bestDelta / 4, bestDelta / 8]) {
        const c = this.mir(ints, conts, b, d, x);
        if (c && c.efficacy > best.efficacy) {
          best = c;
          bestDelta = d;
        }
      }
      best = this.improveComplementation(ints, conts, b, bestDelta, x, best);
    }
    const cover = withCover ? this.cover(ints, conts, b, x) : null;
    // of the row's c-MIR cut and its cover only the deeper: both from one row, they are near-parallel,
    // and the pair crowded the LP (in every round, the root gap closed fell on 7 of 46 MILPs; docs/bench/jaos.md)
    const chosen = best && cover ? [best.efficacy >= cover.efficacy ? best : cover] : [best, cover];
    return chosen.filter((c): c is ScoredCut => c !== null && c.efficacy >= MIN_EFFICACY);
  }

  /**
   * Flips the complementation of integer columns strictly inside finite bounds, one at a time, keeping
   * each flip that makes the cut at `delta` more efficacious (Marchand & Wolsey's third step). Every
   * choice of complementation gives a valid MIR inequality, so this only changes which one is returned.
   * `ints` is left as it was found.
   */
  private improveComplementation(ints: IntegerTerm[], conts: ContinuousTerm[], bIn: number, delta: number, x: Float64Array, start: ScoredCut): ScoredCut {
    let best = start;
    let b = bIn;
    const terms = ints.slice();
    const candidates: number[] = [];
    for (let k = 0; k < terms.length; k++) {
      const t = terms[k]!;
      const range = this.upper[t.j] - this.lower[t.j];
      if (Number.isFinite(range) && t.z > 1e-6 && t.z < range - 1e-6) candidates.push(k);
    }
    // nearest the middle of their range first: there the choice of bound was least clear
    const offCentre = (k: number) => {
      const t = terms[k]!;
      return Math.abs(t.z / (this.upper[t.j] - this.lower[t.j]) - 0.5);
    };
    candidates.sort((p, q) => offCentre(p) - offCentre(q) || p - q);
    for (const k of candidates.slice(0, MAX_COMPLEMENT_FLIPS)) {
      const t = terms[k]!;
      const range = this.upper[t.j] - this.lower[t.j];
      // g·z = g·range − g·z' with z' = range − z the distance from the other bound
      const flipped: IntegerTerm = { j: t.j, g: -t.g, complemented: !t.complemented, z: range - t.z };
      terms[k] = flipped;
      const c = this.mir(terms, conts, b - t.g * range, delta, x);
      if (c && c.efficacy > best.efficacy * (1 + 1e-9)) {
        best = c;
        b -= t.g * range;
      } else terms[k] = t;
    }
    return best;
  }

  /** The MIR inequality of the transformed row divided by delta, in the original columns. */
  private mir(ints: IntegerTerm[], conts: ContinuousTerm[], b: number, delta: number, x: Float64Array): ScoredCut | null {
    const bd = b / delta;
    const f0 = bd - Math.floor(bd);
    if (!(f0 >= MIN_F0 && f0 <= MAX_F0)) return null;
    if (this.intCoefs.length < ints.length) this.intCoefs = new Float64Array(2 * ints.length);
    if (this.contCoefs.length < conts.length) this.contCoefs = new Float64Array(2 * conts.length);
    const { intCoefs, contCoefs } = this;
    for (let k = 0; k < ints.length; k++) {
      const a = ints[k]!.g / delta;
      const fa = a - Math.floor(a);
      intCoefs[k] = Math.floor(a) + Math.max(0, fa - f0) / (1 - f0);
    }
    for (let k = 0; k < conts.length; k++) {
      const hd = conts[k]!.h / delta;
      contCoefs[k] = hd < 0 ? hd / (1 - f0) : 0;
    }
    // the violation is the same in the transformed columns (an affine substitution): a cut that does
    // not cut off x is dropped before the costly mapping back
    let lhs = 0;
    for (let k = 0; k < ints.length; k++) lhs += intCoefs[k]! * ints[k]!.z;
    for (let k = 0; k < conts.length; k++) lhs += contCoefs[k]! * conts[k]!.distance;
    if (!(lhs - Math.floor(bd) > 1e-9)) return null;
    if (this.surelyTooDense(ints, intCoefs, conts, contCoefs)) return null;
    return this.inOriginalColumns(ints, intCoefs, conts, contCoefs, Math.floor(bd), delta, x, "mir");
  }

  /**
   * Whether the cut has more columns than finishSparseCut's density safeguard allows (max(100, 20 % of
   * the columns)) however its terms merge: each integer and continuous column is distinct, and only a
   * variable bound's integer can merge into an integer term. Checked before mapping the cut back, which
   * on rows aggregated from dense cuts of the LP was most of the separator's time (p2756).
   */
  private surelyTooDense(ints: IntegerTerm[], intCoefs: Float64Array, conts: ContinuousTerm[], contCoefs: Float64Array): boolean {
    let least = 0;
    for (let k = 0; k < ints.length; k++) if (intCoefs[k] !== 0) least++;
    for (let k = 0; k < conts.length; k++) {
      if (contCoefs[k] === 0) continue;
      least++;
      const kind = conts[k]!.sub.kind;
      if (kind === "vlb" || kind === "vub") least--; // its integer may cancel one term
    }
    return ints.length > 0 && least > Math.max(100, 0.2 * this.n);
  }

  /**
   * The lifted cover cut of the transformed row read as a mixed-binary knapsack (flow-cover.ts): the
   * integers must all be binary; continuous terms with a negative coefficient form the continuous
   * s ≥ 0, the others are relaxed away.
   */
  private cover(ints: IntegerTerm[], conts: ContinuousTerm[], b: number, x: Float64Array): ScoredCut | null {
    const a: number[] = [];
    const z: number[] = [];
    let capacity = b;
    for (const t of ints) {
      if (this.upper[t.j] - this.lower[t.j] !== 1) return null;
      // a negative coefficient is made positive on the binary's complement 1 − z
      a.push(Math.abs(t.g));
      z.push(t.g > 0 ? t.z : 1 - t.z);
      if (t.g < 0) capacity -= t.g;
    }
    let s = 0;
    for (const c of conts) if (c.h < 0) s -= c.h * Math.max(0, c.distance);
    const found = liftedKnapsackCover(a, z, capacity, s);
    if (!found) return null;
    let rhs = found.rhs;
    const intCoefs = ints.map((t, k) => {
      const alpha = found.coef[k]!;
      if (t.g > 0) return alpha;
      rhs -= alpha;
      return -alpha;
    });
    const contCoefs = conts.map((c) => Math.min(c.h, 0));
    return this.inOriginalColumns(ints, intCoefs, conts, contCoefs, rhs, 1, x, "cover");
  }

  /** pi[j] += v, listing j in piList once (a method: a closure was allocated per inOriginalColumns call). */
  private addPi(j: number, v: number): void {
    if (!this.piMark[j]) {
      this.piMark[j] = 1;
      this.piList[this.piCount++] = j;
    }
    this.pi[j] += v;
  }

  /**
   * The cut scale·(Σ G_k z_k + Σ H_k x'_k) ≤ scale·rhs over the transformed row's integer distances z
   * and continuous distances x', written in the original columns as a ≥ row and scored at x.
   */
  private inOriginalColumns(
    ints: IntegerTerm[],
    intCoefs: ArrayLike<number>,
    conts: ContinuousTerm[],
    contCoefs: ArrayLike<number>,
    rhsIn: number,
    scale: number,
    x: Float64Array,
    kind: CutKind,
  ): ScoredCut | null {
    const { pi, piMark, piList, piValue } = this;
    this.piCount = 0;
    let rhs = rhsIn;
    for (let k = 0; k < ints.length; k++) {
      const t = ints[k]!;
      const G = intCoefs[k]!;
      if (G === 0) continue;
      if (t.complemented) {
        this.addPi(t.j, -G);
        rhs -= G * this.upper[t.j];
      } else {
        this.addPi(t.j, G);
        rhs += G * this.lower[t.j];
      }
    }
    for (let k = 0; k < conts.length; k++) {
      const c = conts[k]!;
      const H = contCoefs[k]!;
      if (H === 0) continue;
      const s = c.sub;
      if (s.kind === "lb") {
        this.addPi(c.j, H);
        rhs += H * this.lower[c.j];
      } else if (s.kind === "ub") {
        this.addPi(c.j, -H);
        rhs -= H * this.upper[c.j];
      } else if (s.kind === "vlb") {
        // x' = x − c·y − d
        this.addPi(c.j, H);
        this.addPi(s.bound.y, -H * s.bound.coef);
        rhs += H * s.bound.constant;
      } else {
        // x' = c·y + d − x
        this.addPi(c.j, -H);
        this.addPi(s.bound.y, H * s.bound.coef);
        rhs -= H * s.bound.constant;
      }
    }
    // π x ≤ rhs  →  (−π) x ≥ −rhs
    const count = this.piCount;
    const touched = piList.subarray(0, count).sort();
    for (let k = 0; k < count; k++) {
      const j = touched[k]!;
      piValue[k] = -pi[j] * scale;
      pi[j] = 0;
      piMark[j] = 0;
    }
    const cut = finishSparseCut(touched, piValue.subarray(0, count), -rhs * scale, this.model);
    if (!cut) return null;
    const efficacy = cutEfficacy(cut, x);
    return efficacy > 0 ? { cut, efficacy, kind } : null;
  }
}
