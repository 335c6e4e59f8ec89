/**
 * The clique table (conflict graph) of a model's binary columns: sets of literals of which at most one
 * can be 1 in any integer point. A literal is a binary column x_j (index 2j) or its complement
 * x̄_j = 1 − x_j (index 2j + 1).
 *
 * Cliques are read from the rows: each finite side of a row is put in the form Σ a_k x_k ≤ b; the
 * non-binary columns are replaced by their least contribution over their bounds (a side with an
 * infinite one gives nothing), a binary with a < 0 is written through its complement
 * (a·x = a + |a|·x̄), which leaves Σ w_l·lit_l ≤ r with every w_l > 0. Two literals whose weights
 * together exceed r cannot both be 1: with the weights sorted w_0 ≥ w_1 ≥ …, the longest prefix whose
 * last two exceed r together is a clique (every pair in it weighs at least that much), and each later
 * literal k forms one with the prefix of those i with w_i + w_k > r. Set packing and partitioning rows
 * give their own columns as one clique; knapsack rows give the cliques of their big items.
 *
 * A conflict needs w_p + w_q > r + 1e-6·max(1, |r|): a pair that breaks its row by less could be
 * accepted by a feasibility tolerance, so it is not claimed. The table is built from the model's rows
 * and bounds as given (the root's, global), so the cliques hold at every node below.
 */
import type { LpModel } from "./model.js";
import { toRowWise } from "./sparse.js";

/** Conflicts need this much excess over the row's room, relative to max(1, |room|). */
const CONFLICT_MARGIN = 1e-6;
/** Literals of all cliques stored together, at most (a budget on the work of building the table). */
const MAX_TABLE_ENTRIES = 2_000_000;

/** The literal of column j: its positive form 2j, its complement 2j + 1. */
export const literal = (j: number, complemented: boolean): number => 2 * j + (complemented ? 1 : 0);
export const columnOf = (lit: number): number => lit >> 1;
export const isComplement = (lit: number): boolean => (lit & 1) === 1;
/** The value of a literal at x. */
export const literalValue = (lit: number, x: ArrayLike<number>): number => (isComplement(lit) ? 1 - x[lit >> 1]! : x[lit >> 1]!);

export class CliqueTable {
  /** Each clique's literals. */
  readonly cliques: Int32Array[] = [];
  /** For each literal, the cliques that hold it. */
  private readonly ofLiteral: number[][];
  private entries = 0;

  constructor(readonly cols: number) {
    this.ofLiteral = Array.from({ length: 2 * cols }, () => []);
  }

  static fromModel(model: LpModel): CliqueTable {
    const table = new CliqueTable(model.cols);
    const rows = toRowWise(model.a);
    const binary = (j: number) => model.integer[j] === 1 && model.colLower[j] === 0 && model.colUpper[j] === 1;
    const items: { lit: number; w: number }[] = [];
    for (let i = 0; i < model.rows && table.entries < MAX_TABLE_ENTRIES; i++) {
      const len = rows.start[i + 1] - rows.start[i];
      if (len < 2) continue;
      for (const side of [1, -1]) {
        const bound = side === 1 ? model.rowUpper[i] : -model.rowLower[i];
        if (!Number.isFinite(bound)) continue;
        // side·(row) ≤ bound, i.e. Σ side·a_k x_k ≤ bound
        let room = bound;
        let ok = true;
        items.length = 0;
        for (let k = rows.start[i]; k < rows.start[i + 1] && ok; k++) {
          const j = rows.index[k];
          const a = side * rows.value[k];
          if (a === 0) continue;
          if (binary(j)) {
            if (a > 0) items.push({ lit: literal(j, false), w: a });
            else {
              items.push({ lit: literal(j, true), w: -a });
              room -= a;
            }
          } else {
            const least = a > 0 ? a * model.colLower[j] : a * model.colUpper[j];
            if (!Number.isFinite(least)) ok = false;
            else room -= least;
          }
        }
        if (!ok || items.length < 2 || !(room >= 0)) continue;
        table.addRowCliques(items, room);
      }
    }
    return table;
  }

  /** The cliques of Σ w_l·lit_l ≤ room (every w_l > 0, room ≥ 0). */
  private addRowCliques(items: { lit: number; w: number }[], room: number): void {
    const limit = room + CONFLICT_MARGIN * Math.max(1, Math.abs(room));
    // most rows (a covering side, a loose knapsack) have no conflict: the two largest weights tell
    let first = 0;
    let second = 0;
    for (const { w } of items) {
      if (w > first) {
        second = first;
        first = w;
      } else if (w > second) second = w;
    }
    if (first + second <= limit) return;
    items.sort((p, q) => q.w - p.w || p.lit - q.lit);
    let t = 1; // items[0..t] pairwise conflict
    while (t + 1 < items.length && items[t]!.w + items[t + 1]!.w > limit) t++;
    this.add(items.slice(0, t + 1).map((it) => it.lit));
    for (let k = t + 1; k < items.length; k++) {
      const wk = items[k]!.w;
      if (items[0]!.w + wk <= limit) break;
      let p = 0; // items[0..p] conflict with k
      while (p + 1 < t && items[p + 1]!.w + wk > limit) p++;
      const clique = items.slice(0, p + 1).map((it) => it.lit);
      clique.push(items[k]!.lit);
      this.add(clique);
    }
  }

  /** Stores a clique (two literals or more). */
  add(lits: number[]): void {
    if (lits.length < 2 || this.entries >= MAX_TABLE_ENTRIES) return;
    const id = this.cliques.length;
    this.cliques.push(Int32Array.from(lits));
    for (const l of lits) this.ofLiteral[l]!.push(id);
    this.entries += lits.length;
  }

  get size(): number {
    return this.cliques.length;
  }

  /** Whether some clique holds the literal. */
  hasLiteral(lit: number): boolean {
    return this.ofLiteral[lit]!.length > 0;
  }

  /**
   * Calls `visit` with every literal sharing a clique with `lit` (a neighbour may be visited more
   * than once, once per shared clique; `lit` itself is skipped). Returns the work done (literals read).
   */
  forEachNeighbour(lit: number, visit: (neighbour: number) => void): number {
    let work = 0;
    for (const id of this.ofLiteral[lit]!) {
      const c = this.cliques[id]!;
      work += c.length;
      for (let k = 0; k < c.length; k++) if (c[k] !== lit) visit(c[k]!);
    }
    return work;
  }
}
