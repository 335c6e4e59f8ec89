/**
 * (l,S) inequalities of lot-sizing paths (Barany, Van Roy & Wolsey 1984), found in any model whose rows
 * chain into stock balances:
 *
 *     s_{t−1} + x_t − s_t = d_t   (t = 1 … T),   d_t ≥ 0,   x_t, s_t ≥ 0,   x_t ≤ U_t·y_t, y_t binary,
 *
 * where the stock s_t leaving row t is the one entering row t+1 (s_0 may be any column ≥ 0, or absent;
 * s_T absent reads s_T = 0). With d_{tl} = d_t + … + d_l, for every l and every S ⊆ {1 … l}
 *
 *     Σ_{t∈S} x_t ≤ Σ_{t∈S} d_{tl}·y_t + s_l
 *
 * holds: if no t ∈ S has y_t = 1 the left side is 0; else let p be the first such t; then
 * Σ_S x_t ≤ x_p + … + x_l = d_{pl} + s_l − s_{p−1} ≤ d_{pl}·y_p + s_l, and every other term on the
 * right is ≥ 0. For fixed l the most violated S takes the t with x*_t > d_{tl}·y*_t (exact separation).
 * c-MIR on aggregated rows reaches only the inequalities of one period (S = {t}); on fixed-charge lot
 * sizing (set1ch) the others close most of what remains of the root gap.
 *
 * Rows are read as written (after sign normalisation): a path row is an equality whose entries are
 * the production column (+1), at most one entering and one leaving stock column (+1 / −1), nothing
 * else; coefficients must be ±1 exactly. Only rows of the model the separator was built on are used,
 * so the cuts are valid for that model with its column bounds at construction (the root's, global).
 */
import { type Cut, cutEfficacy, finishSparseCut } from "./cuts.js";
import type { LpModel } from "./model.js";
import { toRowWise } from "./sparse.js";
import { variableBounds } from "./variable-bounds.js";

const MIN_VIOLATION = 1e-6;

interface PathPeriod {
  x: number;
  y: number;
  /** Stock leaving the period (−1 in ≤ its row), −1 when absent. */
  stockOut: number;
  demand: number;
}

export interface ScoredPathCut {
  cut: Cut;
  efficacy: number;
}

export class PathSeparator {
  readonly paths: PathPeriod[][] = [];

  constructor(private readonly model: LpModel) {
    this.findPaths();
  }

  private findPaths(): void {
    const { model } = this;
    const rows = toRowWise(model.a);
    const setup = this.setupOf(rows);
    const periodOfRow = new Map<number, { period: PathPeriod; stockIn: number }>();
    const rowEntering = new Map<number, number>(); // stock column → the row it enters
    for (let i = 0; i < model.rows; i++) {
      if (model.rowLower[i] !== model.rowUpper[i]) continue;
      const len = rows.start[i + 1] - rows.start[i];
      if (len < 1 || len > 3) continue;
      for (const sign of [1, -1]) {
        const demand = sign * model.rowLower[i];
        if (!(demand >= 0)) continue;
        let x = -1;
        let stockIn = -1;
        let stockOut = -1;
        let ok = true;
        for (let k = rows.start[i]; k < rows.start[i + 1] && ok; k++) {
          const j = rows.index[k];
          const v = sign * rows.value[k];
          if (model.integer[j] || model.colLower[j] !== 0) ok = false;
          else if (v === 1 && setup[j] >= 0 && x < 0) x = j;
          else if (v === 1 && stockIn < 0 && !(setup[j] >= 0)) stockIn = j;
          else if (v === -1 && stockOut < 0) stockOut = j;
          else ok = false;
        }
        if (!ok || x < 0) continue;
        periodOfRow.set(i, { period: { x, y: setup[x], stockOut, demand }, stockIn });
        if (stockIn >= 0) rowEntering.set(stockIn, i);
        break;
      }
    }
    // chain: a row whose stock-in leaves no path row starts a path
    const leaving = new Set<number>();
    for (const { period } of periodOfRow.values()) if (period.stockOut >= 0) leaving.add(period.stockOut);
    for (const [i, { stockIn }] of periodOfRow) {
      if (stockIn >= 0 && leaving.has(stockIn)) continue;
      const path: PathPeriod[] = [];
      const visited = new Set<number>();
      let row: number | undefined = i;
      while (row !== undefined && !visited.has(row)) {
        visited.add(row);
        const entry = periodOfRow.get(row);
        if (!entry) break;
        path.push(entry.period);
        row = entry.period.stockOut >= 0 ? rowEntering.get(entry.period.stockOut) : undefined;
      }
      if (path.length >= 2) this.paths.push(path);
    }
  }

  /** For each continuous column with lower bound 0, a binary y with a row x − U·y ≤ 0 (U > 0); else −1. */
  private setupOf(rows: ReturnType<typeof toRowWise>): Int32Array {
    const { model } = this;
    const setup = new Int32Array(model.cols).fill(-1);
    const { vub } = variableBounds(model, rows);
    for (let x = 0; x < model.cols; x++) {
      if (model.colLower[x] !== 0) continue;
      // x ≤ U·y + 0 with U > 0 over a binary y; the last such row wins, as in row order
      for (const b of vub[x]!) if (b.constant === 0 && b.coef > 0 && model.colLower[b.y] === 0 && model.colUpper[b.y] === 1) setup[x] = b.y;
    }
    return setup;
  }

  /** Up to `maxCuts` violated (l,S) inequalities at x, most efficacious first. */
  separate(x: Float64Array, maxCuts: number): ScoredPathCut[] {
    const found: ScoredPathCut[] = [];
    for (const path of this.paths) {
      for (let l = 0; l < path.length; l++) {
        const stock = path[l]!.stockOut;
        let violation = stock >= 0 ? -x[stock] : 0;
        let demandToL = 0;
        const members: { t: number; d: number }[] = [];
        for (let t = l; t >= 0; t--) {
          demandToL += path[t]!.demand;
          const p = path[t]!;
          const gain = x[p.x] - demandToL * x[p.y];
          if (gain > MIN_VIOLATION) {
            violation += gain;
            members.push({ t, d: demandToL });
          }
        }
        if (violation <= MIN_VIOLATION * Math.max(1, demandToL) || members.length === 0) continue;
        const cut = this.cut(path, members, stock, x);
        if (cut) found.push(cut);
      }
    }
    found.sort((p, q) => q.efficacy - p.efficacy);
    return found.slice(0, maxCuts);
  }

  /** −Σ_S x_t + Σ_S d_{tl}·y_t + s_l ≥ 0, through the cut safeguards (dynamism, density); null if it fails them. */
  private cut(path: PathPeriod[], members: { t: number; d: number }[], stock: number, x: Float64Array): ScoredPathCut | null {
    const terms = new Map<number, number>();
    const add = (j: number, v: number) => terms.set(j, (terms.get(j) ?? 0) + v);
    for (const { t, d } of members) {
      add(path[t]!.x, -1);
      if (d !== 0) add(path[t]!.y, d);
    }
    if (stock >= 0) add(stock, 1);
    const columns = [...terms.keys()].filter((j) => terms.get(j) !== 0).sort((p, q) => p - q);
    const cut = finishSparseCut(
      columns,
      columns.map((j) => terms.get(j)!),
      0,
      this.model,
    );
    if (!cut) return null;
    const efficacy = cutEfficacy(cut, x);
    return efficacy > 0 ? { cut, efficacy } : null;
  }
}
