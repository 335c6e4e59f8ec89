/**
 * Complemented mixed-integer rounding (c-MIR) cuts on aggregated rows (Marchand & Wolsey 2001).
 *
 * A base inequality Σ a_j x_j ≤ β is a row of the model (in ≤ form) plus multiples of a few other rows
 * chosen to eliminate continuous columns that sit strictly inside their bounds. In the base row:
 * - every continuous column is replaced by its distance x' ≥ 0 from its closest bound at the LP point,
 *   simple (x = l + x', x = u − x') or variable (x = c·y + d ± x' for a two-column row x ≤ c·y + d or
 *   x ≥ c·y + d with y integer: the "variable upper bounds" of fixed-charge models);
 * - every integer column is replaced by its distance z ≥ 0 from its lower bound, or from its upper
 *   bound when the LP point is nearer to it (complementation).
 * Dividing by δ > 0 gives Σ g_j z_j + Σ h_k x'_k ≤ b with f0 = frac(b), and the MIR inequality
 *
 *     Σ (⌊g_j⌋ + max(0, frac(g_j) − f0)/(1 − f0)) z_j + Σ_{h_k < 0} h_k/(1 − f0) · x'_k ≤ ⌊b⌋
 *
 * holds for every mixed-integer point, whichever bound each column is measured from. δ is tried among
 * the |g_j| of integer columns strictly inside their bounds and 1, then the best halved up to three times; then
 * integer columns strictly inside finite bounds are measured from the other bound one at a time, each
 * change kept when the cut gets more efficacious. The most efficacious violated cut wins and is mapped
 * back to the original columns. An aggregation of equations is read both ways (≤ and ≥). When every integer of the transformed row is binary, the same
 * row read as a mixed-binary knapsack Σ g_j z_j ≤ b + s (s the continuous terms of negative
 * coefficient, the flow set of its variable upper bounds) also gives a lifted cover cut
 * (flow-cover.ts) when asked for, kept in place of the c-MIR cut when it is deeper.
 *
 * Besides, each start row is summed with (and reduced by) up to MAX_PARTNERS tight rows that share an
 * integer column fractional at x (pairCuts), within a work budget per round.
 *
 * Only rows of the model the separator was built on are aggregated, so every cut is valid for that
 * model with its column bounds at construction (the root's, global). The root loop builds one per
 * round on the model with the cuts kept so far, the cut rows as partners only (`startRows`): a cut row
 * is valid for every mixed-integer point, so its sums with other rows round to valid cuts of higher
 * rank (retail3: 79 → 99.6 % of the root gap; single stores of it close fully).
 */
import { type Cut, cutEfficacy, finishSparseCut } from "./cuts.js";
import { liftedKnapsackCover } from "./flow-cover.js";
import { isFractional } from "./heuristics.js";
import { rowActivities, type LpModel } from "./model.js";
import { type CsrMatrix, toRowWise } from "./sparse.js";
import { type VariableBound, variableBounds } from "./variable-bounds.js";

const MAX_AGGREGATIONS = 5;
/** Rows sharing a fractional integer column tried beside each start row (pairCuts). */
const MAX_PARTNERS = 8;
/**
 * Matrix entries the pairs may aggregate per separation round: this many plus twice the model's
 * nonzeros (on long set-partitioning rows, air03, every pair is a long row to round and rarely a cut).
 */
const PAIR_WORK = 50_000;
const MIN_F0 = 0.05;
const MAX_F0 = 0.999;
const MIN_EFFICACY = 1e-4;
const MAX_DELTAS = 8;
/** Integer columns whose complementation is tried the other way per cut. */
const MAX_COMPLEMENT_FLIPS = 16;
/** Rows whose slack exceeds this (relative) are not used to aggregate. */
const MAX_AGGREGATION_SLACK = 1e-6;

type Substitution = { kind: "lb" } | { kind: "ub" } | { kind: "vlb"; bound: VariableBound } | { kind: "vub"; bound: VariableBound };

export type CutKind = "mir" | "cover";

export interface ScoredCut {
  cut: Cut;
  efficacy: number;
  kind: CutKind;
}

/** An integer column of the transformed row: z ≥ 0 its distance from the bound it is complemented to. */
interface IntegerTerm {
  j: number;
  g: number;
  complemented: boolean;
  /** z at the LP point. */
  z: number;
}

/** A continuous column of the transformed row: x' ≥ 0 its distance from the bound `sub`. */
interface ContinuousTerm {
  j: number;
  h: number;
  sub: Substitution;
  /** x' at the LP point. */
  distance: number;
}

export class MirSeparator {
  private readonly rows: CsrMatrix;
  private readonly n: number;
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly vlb: VariableBound[][];
  private readonly vub: VariableBound[][];
  /** Rows that define a variable bound: used through substitution, not aggregated. */
  private readonly boundRow: Uint8Array;
  // scratch, dense over the columns
  private readonly agg: Float64Array;
  private readonly intCoef: Float64Array;
  /** Integer columns already in the transformed row (their coefficient can cancel to 0 on the way). */
  private readonly intMark: Uint8Array;
  private readonly pi: Float64Array;
  private readonly piMark: Uint8Array;
  /** Matrix entries pairCuts may still aggregate in this separation round. */
  private pairWork = 0;
  /** The last `closestBounds` call's bounds and their variable bounds (null: the simple bound). */
  private loValue = 0;
  private loBound: VariableBound | null = null;
  private upValue = 0;
  private upBound: VariableBound | null = null;

  /**
   * `coverCuts` also builds each row's lifted cover cut and keeps it instead of the row's c-MIR cut
   * when it is more efficacious (root-cuts.ts's `flowCovers`).
   * `startRows`: only rows before it start an aggregation; the rest (the cuts the root loop has added)
   * are only summed into them, as pair partners or to eliminate a continuous column.
   */
  constructor(
    private readonly model: LpModel,
    private readonly coverCuts = false,
    private readonly startRows = model.rows,
  ) {
    this.n = model.cols;
    this.rows = toRowWise(model.a);
    this.lower = model.colLower.slice();
    this.upper = model.colUpper.slice();
    ({ vlb: this.vlb, vub: this.vub, boundRow: this.boundRow } = variableBounds(model, this.rows));
    this.agg = new Float64Array(this.n);
    this.intCoef = new Float64Array(this.n);
    this.intMark = new Uint8Array(this.n);
    this.pi = new Float64Array(this.n);
    this.piMark = new Uint8Array(this.n);
  }

  /** Up to `maxCuts` violated c-MIR cuts at the LP point x, most efficacious first. */
  separate(x: Float64Array, maxCuts: number, deadline: number): ScoredCut[] {
    const { model, rows } = this;
    const activity = rowActivities(model, x);
    const slack = (i: number, upperSide: boolean) =>
      (upperSide ? model.rowUpper[i] - activity[i] : activity[i] - model.rowLower[i]) /
      Math.max(1, Math.abs(upperSide ? model.rowUpper[i] : model.rowLower[i]));
    const starts: { i: number; upperSide: boolean; score: number }[] = [];
    for (let i = 0; i < this.startRows; i++) {
      if (this.boundRow[i]) continue;
      let interesting = false;
      for (let k = rows.start[i]; k < rows.start[i + 1] && !interesting; k++) {
        const j = rows.index[k];
        interesting = model.integer[j] ? isFractional(x[j]) : this.inside(j, x) || this.boundedByFractional(j, x);
      }
      if (!interesting) continue;
      const up = Number.isFinite(model.rowUpper[i]) ? slack(i, true) : Infinity;
      const lo = Number.isFinite(model.rowLower[i]) ? slack(i, false) : Infinity;
      if (up === Infinity && lo === Infinity) continue; // a free row says nothing
      starts.push({ i, upperSide: up <= lo, score: Math.min(up, lo) });
    }
    starts.sort((p, q) => p.score - q.score || p.i - q.i);
    const found: ScoredCut[] = [];
    const seen = new Set<string>();
    this.pairWork = PAIR_WORK + 2 * model.a.index.length;
    for (const s of starts) {
      if (performance.now() > deadline) break;
      const cuts = this.fromStartRow(s.i, s.upperSide, x, activity).concat(this.pairCuts(s.i, s.upperSide, x, activity));
      for (const cut of cuts) {
        const key = `${cut.cut.lower.toPrecision(12)}|${Array.from(cut.cut.index).join(",")}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(cut);
      }
      if (found.length >= 4 * maxCuts) break;
    }
    found.sort((p, q) => q.efficacy - p.efficacy);
    return found.slice(0, maxCuts);
  }

  /** Whether continuous column j lies strictly inside its tightest bounds at x. */
  private inside(j: number, x: Float64Array): boolean {
    this.closestBounds(j, x);
    return x[j] - this.loValue > 1e-6 && this.upValue - x[j] > 1e-6;
  }

  /** Whether continuous column j has a variable bound on an integer column fractional at x. */
  private boundedByFractional(j: number, x: Float64Array): boolean {
    return this.vub[j]!.some((b) => isFractional(x[b.y])) || this.vlb[j]!.some((b) => isFractional(x[b.y]));
  }

  /**
   * The tightest lower and upper bound of continuous column j at x, simple or variable, into loValue /
   * loBound and upValue / upBound (fields, not a returned pair: this runs for every continuous column of
   * every start row and aggregation, and its allocations were a tenth of misc06's solve).
   */
  private closestBounds(j: number, x: Float64Array): void {
    let lo = this.lower[j];
    let loBound: VariableBound | null = null;
    for (const b of this.vlb[j]!) {
      const v = b.coef * x[b.y] + b.constant;
      if (v >= lo - 1e-9) {
        lo = v;
        loBound = b;
      }
    }
    let up = this.upper[j];
    let upBound: VariableBound | null = null;
    for (const b of this.vub[j]!) {
      const v = b.coef * x[b.y] + b.constant;
      if (v <= up + 1e-9) {
        up = v;
        upBound = b;
      }
    }
    this.loValue = lo;
    this.loBound = loBound;
    this.upValue = up;
    this.upBound = upBound;
  }

  /**
   * Adds λ·(row i) into the aggregation `agg`, listing each column it touches once in `cols` (`mark`
   * holds the listed ones): the one accumulation of fromStartRow and pairCuts.
   */
  private addRow(i: number, lambda: number, cols: number[], mark: Set<number>): void {
    const { rows, agg } = this;
    for (let k = rows.start[i]; k < rows.start[i + 1]; k++) {
      const j = rows.index[k];
      if (!mark.has(j)) {
        mark.add(j);
        cols.push(j);
      }
      agg[j] += lambda * rows.value[k];
    }
  }

  /** Aggregates from row i (≤ form of its chosen side) until a violated cut appears. */
  private fromStartRow(i0: number, upperSide: boolean, x: Float64Array, activity: Float64Array): ScoredCut[] {
    const { model, agg } = this;
    const cols: number[] = [];
    const mark = new Set<number>();
    const add = (i: number, lambda: number) => this.addRow(i, lambda, cols, mark);
    let beta = 0;
    const used = new Set<number>([i0]);
    let allEqualities = model.rowLower[i0] === model.rowUpper[i0];
    const sign = upperSide ? 1 : -1;
    add(i0, sign);
    beta += sign * (upperSide ? model.rowUpper[i0] : model.rowLower[i0]);
    let best: ScoredCut[] = [];
    try {
      for (let round = 0; round <= MAX_AGGREGATIONS; round++) {
        best = this.bestCuts(cols, beta, x, 1, this.coverCuts);
        // an aggregation of equations holds as ≥ too, and its negation rounds the other way
        if (allEqualities) best = best.concat(this.bestCuts(cols, -beta, x, -1, this.coverCuts));
        if (best.length > 0 || round === MAX_AGGREGATIONS) break;
        // eliminate the continuous column farthest from its bounds through a tight row
        let pick = -1;
        let pickDistance = 1e-6;
        for (const j of cols) {
          if (model.integer[j] || Math.abs(agg[j]) < 1e-9) continue;
          this.closestBounds(j, x);
          const d = Math.min(x[j] - this.loValue, this.upValue - x[j]);
          if (d > pickDistance) {
            pick = j;
            pickDistance = d;
          }
        }
        if (pick < 0) break;
        const via = this.aggregationRow(pick, agg[pick], used, activity);
        if (!via) break;
        const lambda = -agg[pick] / via.coef;
        // λ > 0 adds λ·(row ≤ upper), λ < 0 adds λ·(row ≥ lower): both stay ≤ inequalities
        const side = lambda > 0 ? model.rowUpper[via.row] : model.rowLower[via.row];
        add(via.row, lambda);
        beta += lambda * side;
        agg[pick] = 0;
        used.add(via.row);
        if (model.rowLower[via.row] !== model.rowUpper[via.row]) allEqualities = false;
      }
    } finally {
      for (const j of cols) agg[j] = 0;
    }
    return best;
  }

  /**
   * c-MIR cuts of row i0 (its side `upperSide`, in ≤ form) plus or minus one other row tight at x that
   * shares an integer column fractional at x. The continuous elimination of fromStartRow never joins
   * rows that share only integer columns; yet their sums and differences round to cuts that neither
   * row gives alone: on retail3's stores (4 equations Σ a_kp n_p + u_k − o_k = d_k over the same 3
   * pack integers, each deviation column in one row only) u_S + u_M ≥ f0·(⌈d_S + d_M⌉ − Σ (a_S + a_M) n)
   * and its mixed-sign cousins. Each sum is a valid ≤ row (λ = +1 adds row ≤ upper, λ = −1 subtracts
   * row ≥ lower), so its cuts are as valid as the single row's.
   */
  private pairCuts(i0: number, upperSide: boolean, x: Float64Array, activity: Float64Array): ScoredCut[] {
    const { model, rows, agg } = this;
    const a = model.a;
    const partners: number[] = [];
    for (let k = rows.start[i0]; k < rows.start[i0 + 1] && partners.length < MAX_PARTNERS; k++) {
      const j = rows.index[k];
      if (!model.integer[j] || !isFractional(x[j])) continue;
      for (let q = a.start[j]; q < a.start[j + 1] && partners.length < MAX_PARTNERS; q++) {
        const l = a.index[q];
        if (l !== i0 && !this.boundRow[l] && !partners.includes(l)) partners.push(l);
      }
    }
    const found: ScoredCut[] = [];
    const sign = upperSide ? 1 : -1;
    const startSide = upperSide ? model.rowUpper[i0] : model.rowLower[i0];
    const startEquality = model.rowLower[i0] === model.rowUpper[i0];
    const cols: number[] = [];
    const mark = new Set<number>();
    const add = (i: number, lambda: number) => this.addRow(i, lambda, cols, mark);
    for (const l of partners) {
      for (const lambda of [1, -1]) {
        const side = lambda > 0 ? model.rowUpper[l] : model.rowLower[l];
        if (!Number.isFinite(side)) continue;
        const slack = (lambda > 0 ? side - activity[l] : activity[l] - side) / Math.max(1, Math.abs(side));
        if (!(slack <= MAX_AGGREGATION_SLACK)) continue;
        this.pairWork -= rows.start[i0 + 1] - rows.start[i0] + rows.start[l + 1] - rows.start[l];
        if (this.pairWork < 0) return found;
        add(i0, sign);
        add(l, lambda);
        const beta = sign * startSide + lambda * side;
        try {
          found.push(...this.bestCuts(cols, beta, x, 1, false));
          // a sum of equations holds as ≥ too
          if (startEquality && model.rowLower[l] === model.rowUpper[l]) found.push(...this.bestCuts(cols, -beta, x, -1, false));
        } finally {
          for (const j of cols) agg[j] = 0;
          cols.length = 0;
          mark.clear();
        }
      }
    }
    return found;
  }

  /**
   * A row (not yet used, not a bound row) holding column j whose side needed to cancel coefficient
   * `current` of j is finite and tight at x.
   */
  private aggregationRow(j: number, current: number, used: Set<number>, activity: Float64Array): { row: number; coef: number } | null {
    const { model } = this;
    const a = model.a;
    let best: { row: number; coef: number; score: number } | null = null;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const i = a.index[k];
      if (used.has(i) || this.boundRow[i] || Math.abs(a.value[k]) < 1e-9) continue;
      const upperSide = -current / a.value[k] > 0;
      const side = upperSide ? model.rowUpper[i] : model.rowLower[i];
      if (!Number.isFinite(side)) continue;
      const slack = (upperSide ? side - activity[i] : activity[i] - side) / Math.max(1, Math.abs(side));
      if (!(slack <= MAX_AGGREGATION_SLACK)) continue;
      const score = slack - 1e-3 * Math.abs(a.value[k]);
      if (!best || score < best.score) best = { row: i, coef: a.value[k], score };
    }
    if (!best) return null;
    return best;
  }

  /**
   * The best c-MIR cut of the base row sign·(Σ agg_j x_j) ≤ beta over the divisors tried and its
   * lifted cover cut (those asked for), those violated enough.
   */
  private bestCuts(cols: number[], beta: number, x: Float64Array, sign: 1 | -1, withCover: boolean): ScoredCut[] {
    const { model, intCoef, intMark } = this;
    const conts: ContinuousTerm[] = [];
    const ints: number[] = [];
    // a column enters `ints` once: marking it by a nonzero intCoef listed it twice when its terms
    // cancelled to 0 before a variable bound added to it again (both copies then took the full
    // coefficient: an invalid cut, pp08aCUTS's root with flow covers; docs/bench/jaos.md)
    const addInt = (j: number, g: number) => {
      if (!intMark[j]) {
        intMark[j] = 1;
        ints.push(j);
      }
      intCoef[j] += g;
    };
    let b = beta;
    try {
      for (const j of cols) {
        const a = sign * this.agg[j];
        if (Math.abs(a) < 1e-12) continue;
        if (model.integer[j]) {
          addInt(j, a);
          continue;
        }
        this.closestBounds(j, x);
        const { loValue, upValue } = this;
        const dl = x[j] - loValue;
        const du = upValue - x[j];
        let useLower = dl < du || (dl === du && a > 0);
        if (!Number.isFinite(loValue)) useLower = false;
        if (!Number.isFinite(upValue)) useLower = true;
        if (!Number.isFinite(useLower ? loValue : upValue)) return [];
        const bound = useLower ? this.loBound : this.upBound;
        const sub: Substitution = bound ? { kind: useLower ? "vlb" : "vub", bound } : { kind: useLower ? "lb" : "ub" };
        if (sub.kind === "lb") b -= a * this.lower[j];
        else if (sub.kind === "ub") b -= a * this.upper[j];
        else {
          b -= a * sub.bound.constant;
          addInt(sub.bound.y, a * sub.bound.coef);
        }
        conts.push({ j, h: useLower ? a : -a, sub, distance: useLower ? dl : du });
      }
      // complement integer columns nearer their upper bound
      const ints2: IntegerTerm[] = [];
      for (const j of ints) {
        const g = intCoef[j];
        if (Math.abs(g) < 1e-12) continue;
        const l = this.lower[j];
        const u = this.upper[j];
        const complemented = Number.isFinite(u) && (!Number.isFinite(l) || x[j] > (l + u) / 2);
        if (!complemented && !Number.isFinite(l)) return [];
        b -= g * (complemented ? u : l);
        ints2.push({ j, g: complemented ? -g : g, complemented, z: complemented ? u - x[j] : x[j] - l });
      }
      if (ints2.length === 0) return [];
      const deltas: number[] = [];
      for (const t of ints2) {
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
        const c = this.mir(ints2, conts, b, d, x);
        if (c && (!best || c.efficacy > best.efficacy)) {
          best = c;
          bestDelta = d;
        }
      }
      if (best) {
        for (const d of [bestDelta / 2, bestDelta / 4, bestDelta / 8]) {
          const c = this.mir(ints2, conts, b, d, x);
          if (c && c.efficacy > best.efficacy) {
            best = c;
            bestDelta = d;
          }
        }
        best = this.improveComplementation(ints2, conts, b, bestDelta, x, best);
      }
      const cover = withCover ? this.cover(ints2, conts, b, x) : null;
      // of the row's c-MIR cut and its cover only the deeper: both from one row, they are near-parallel,
      // and the pair crowded the LP (in every round, the root gap closed fell on 7 of 46 MILPs; docs/bench/jaos.md)
      const chosen = best && cover ? [best.efficacy >= cover.efficacy ? best : cover] : [best, cover];
      return chosen.filter((c): c is ScoredCut => c !== null && c.efficacy >= MIN_EFFICACY);
    } finally {
      for (const j of ints) {
        intCoef[j] = 0;
        intMark[j] = 0;
      }
    }
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
    const intCoefs = ints.map((t) => {
      const a = t.g / delta;
      const fa = a - Math.floor(a);
      return Math.floor(a) + Math.max(0, fa - f0) / (1 - f0);
    });
    const contCoefs = conts.map((c) => {
      const hd = c.h / delta;
      return hd < 0 ? hd / (1 - f0) : 0;
    });
    // the violation is the same in the transformed columns (an affine substitution): a cut that does
    // not cut off x is dropped before the costly mapping back
    let lhs = 0;
    ints.forEach((t, k) => {
      lhs += intCoefs[k]! * t.z;
    });
    conts.forEach((c, k) => {
      lhs += contCoefs[k]! * c.distance;
    });
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
  private surelyTooDense(ints: IntegerTerm[], intCoefs: number[], conts: ContinuousTerm[], contCoefs: number[]): boolean {
    let least = 0;
    for (const g of intCoefs) if (g !== 0) least++;
    conts.forEach((c, k) => {
      if (contCoefs[k] === 0) return;
      least++;
      if (c.sub.kind === "vlb" || c.sub.kind === "vub") least--; // its integer may cancel one term
    });
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

  /**
   * The cut scale·(Σ G_k z_k + Σ H_k x'_k) ≤ scale·rhs over the transformed row's integer distances z
   * and continuous distances x', written in the original columns as a ≥ row and scored at x.
   */
  private inOriginalColumns(
    ints: IntegerTerm[],
    intCoefs: number[],
    conts: ContinuousTerm[],
    contCoefs: number[],
    rhsIn: number,
    scale: number,
    x: Float64Array,
    kind: CutKind,
  ): ScoredCut | null {
    const { pi, piMark } = this;
    const touched: number[] = [];
    const addPi = (j: number, v: number) => {
      if (!piMark[j]) {
        piMark[j] = 1;
        touched.push(j);
      }
      pi[j] += v;
    };
    let rhs = rhsIn;
    ints.forEach((t, k) => {
      const G = intCoefs[k]!;
      if (G === 0) return;
      if (t.complemented) {
        addPi(t.j, -G);
        rhs -= G * this.upper[t.j];
      } else {
        addPi(t.j, G);
        rhs += G * this.lower[t.j];
      }
    });
    conts.forEach((c, k) => {
      const H = contCoefs[k]!;
      if (H === 0) return;
      const s = c.sub;
      if (s.kind === "lb") {
        addPi(c.j, H);
        rhs += H * this.lower[c.j];
      } else if (s.kind === "ub") {
        addPi(c.j, -H);
        rhs -= H * this.upper[c.j];
      } else if (s.kind === "vlb") {
        // x' = x − c·y − d
        addPi(c.j, H);
        addPi(s.bound.y, -H * s.bound.coef);
        rhs += H * s.bound.constant;
      } else {
        // x' = c·y + d − x
        addPi(c.j, -H);
        addPi(s.bound.y, H * s.bound.coef);
        rhs -= H * s.bound.constant;
      }
    });
    // π x ≤ rhs  →  (−π) x ≥ −rhs
    touched.sort((p, q) => p - q);
    const value = touched.map((j) => -pi[j] * scale);
    for (const j of touched) {
      pi[j] = 0;
      piMark[j] = 0;
    }
    const cut = finishSparseCut(touched, value, -rhs * scale, this.model);
    if (!cut) return null;
    const efficacy = cutEfficacy(cut, x);
    return efficacy > 0 ? { cut, efficacy, kind } : null;
  }
}
