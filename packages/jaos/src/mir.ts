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
 * The transformed row is rounded (mir-rounding.ts: the divisors δ tried, the complementation flips, the
 * lifted cover cut when asked for) and the most efficacious violated cut mapped back to the original
 * columns. An aggregation of equations is read both ways (≤ and ≥).
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
import { isFractional } from "./heuristics.js";
import { type ContinuousTerm, type IntegerTerm, MirRounding, type ScoredCut, type Substitution } from "./mir-rounding.js";
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
/** Rows whose slack exceeds this (relative) are not used to aggregate. */
const MAX_AGGREGATION_SLACK = 1e-6;
/** The simple bound substitutions, shared (read only): one per continuous term was garbage. */
const SIMPLE_LOWER: Substitution = { kind: "lb" };
const SIMPLE_UPPER: Substitution = { kind: "ub" };

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
  /** Rounds each transformed row into cuts. */
  private readonly rounding: MirRounding;
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
   * `rows`: the model's matrix row-wise, when the caller has it.
   */
  constructor(
    private readonly model: LpModel,
    private readonly coverCuts = false,
    private readonly startRows = model.rows,
    rows: CsrMatrix = toRowWise(model.a),
  ) {
    this.n = model.cols;
    this.rows = rows;
    this.lower = model.colLower.slice();
    this.upper = model.colUpper.slice();
    ({ vlb: this.vlb, vub: this.vub, boundRow: this.boundRow } = variableBounds(model, this.rows));
    this.agg = new Float64Array(this.n);
    this.intCoef = new Float64Array(this.n);
    this.intMark = new Uint8Array(this.n);
    this.rounding = new MirRounding(model, this.lower, this.upper);
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
    // a cut repeats one found before when its columns and its bound to 12 digits agree: the earlier
    // cuts listed by a hash of their columns (a string key of every column was much of this loop's garbage)
    const seen = new Map<number, { lower: string; index: Int32Array }[]>();
    this.pairWork = PAIR_WORK + 2 * model.a.index.length;
    for (const s of starts) {
      if (performance.now() > deadline) break;
      const cuts = this.fromStartRow(s.i, s.upperSide, x, activity).concat(this.pairCuts(s.i, s.upperSide, x, activity));
      for (const cut of cuts) {
        const { index } = cut.cut;
        const lower = cut.cut.lower.toPrecision(12);
        let hash = index.length;
        for (let k = 0; k < index.length; k++) hash = (Math.imul(hash, 31) + index[k]!) | 0;
        const same = seen.get(hash);
        if (same?.some((o) => o.lower === lower && sameColumns(o.index, index))) continue;
        if (same) same.push({ lower, index });
        else seen.set(hash, [{ lower, index }]);
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
   * The base row sign·(Σ agg_j x_j) ≤ beta with its columns measured from their bounds, then rounded
   * (mir-rounding.ts): the best c-MIR cut over the divisors tried and its lifted cover cut (those asked
   * for), those violated enough.
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
        const sub: Substitution = bound ? { kind: useLower ? "vlb" : "vub", bound } : useLower ? SIMPLE_LOWER : SIMPLE_UPPER;
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
      return this.rounding.cuts(ints2, conts, b, x, withCover);
    } finally {
      for (const j of ints) {
        intCoef[j] = 0;
        intMark[j] = 0;
      }
    }
  }
}

function sameColumns(p: Int32Array, q: Int32Array): boolean {
  if (p.length !== q.length) return false;
  for (let k = 0; k < p.length; k++) if (p[k] !== q[k]) return false;
  return true;
}
