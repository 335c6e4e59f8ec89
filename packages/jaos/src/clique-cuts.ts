/**
 * Clique cuts from the clique table (clique-table.ts): for a clique Q of literals,
 *
 *     Σ_{x_j ∈ Q} x_j + Σ_{x̄_j ∈ Q} (1 − x_j) ≤ 1,
 *
 * which every integer point satisfies (at most one literal of a clique is 1). The rows the table was
 * read from already state their own cliques; what the LP misses are cliques spread over several rows
 * (x1 + x2 ≤ 1, x2 + x3 ≤ 1, x1 + x3 ≤ 1 allow 1/2 each) and the cliques hidden in knapsack rows.
 *
 * Separation at a point x: from each fractional binary's literals (largest value first), a clique is
 * grown greedily: the neighbours with a positive value, largest first, join while they share a clique
 * with every member; then literals at value 0 that do so join too (they make the cut stronger at no cost
 * in violation), up to a work budget. A clique whose values sum to more than 1 + 1e-4 is a cut.
 */
import { type Cut, finishSparseCut } from "./cuts.js";
import { CliqueTable, columnOf, isComplement, literalValue } from "./clique-table.js";
import { isFractional } from "./heuristics.js";
import type { LpModel } from "./model.js";

const MIN_VIOLATION = 1e-4;
/** A literal counts as positive at x above this. */
const POSITIVE = 1e-6;
/** Literals read while growing the cliques of one round, at most. */
const WORK_PER_ROUND = 1_000_000;
/** Literals at value 0 added to a grown clique, at most. */
const MAX_LIFTED = 50;
/** Literals read while lifting one clique, at most. */
const MAX_LIFT_WORK = 20_000;

export interface ScoredCliqueCut {
  cut: Cut;
  efficacy: number;
}

export class CliqueSeparator {
  readonly table: CliqueTable;
  /** Per literal: how many members of the clique being grown it shares a clique with. */
  private readonly adjacent: Int32Array;
  private readonly seen = new Set<string>();

  constructor(private readonly model: LpModel) {
    this.table = CliqueTable.fromModel(model);
    this.adjacent = new Int32Array(2 * model.cols);
  }

  /** Up to `maxCuts` violated clique cuts at x, most efficacious first; never one returned before. */
  separate(x: Float64Array, maxCuts: number): ScoredCliqueCut[] {
    const { model, table } = this;
    if (table.size === 0) return [];
    const seeds: number[] = [];
    for (let j = 0; j < model.cols; j++) {
      if (!model.integer[j] || !isFractional(x[j]!)) continue;
      for (const lit of [2 * j, 2 * j + 1]) if (table.hasLiteral(lit)) seeds.push(lit);
    }
    seeds.sort((p, q) => literalValue(q, x) - literalValue(p, x) || p - q);
    const found: (ScoredCliqueCut & { key: string })[] = [];
    const round = new Set<string>();
    let work = 0;
    for (const seed of seeds) {
      if (work > WORK_PER_ROUND) break;
      const grown = this.grow(seed, x);
      work += grown.work;
      let sum = 0;
      for (const l of grown.members) sum += literalValue(l, x);
      if (sum <= 1 + MIN_VIOLATION) continue;
      const key = grown.members
        .slice()
        .sort((p, q) => p - q)
        .join(",");
      if (round.has(key) || this.seen.has(key)) continue;
      round.add(key);
      const cut = cliqueCut(grown.members, model);
      if (cut) found.push({ cut, efficacy: (sum - 1) / Math.sqrt(cut.index.length), key });
    }
    found.sort((p, q) => q.efficacy - p.efficacy);
    const chosen = found.slice(0, maxCuts);
    for (const c of chosen) this.seen.add(c.key);
    return chosen.map(({ cut, efficacy }) => ({ cut, efficacy }));
  }

  /** A clique holding `seed`, grown greedily by value at x, then with literals at 0. */
  private grow(seed: number, x: Float64Array): { members: number[]; work: number } {
    const { table, adjacent } = this;
    const touched: number[] = [];
    const members: number[] = [];
    let work = 0;
    const join = (lit: number) => {
      members.push(lit);
      work += table.forEachNeighbour(lit, (u) => {
        // count each member once per literal, however many cliques they share
        if (adjacent[u] === members.length - 1) {
          if (adjacent[u] === 0) touched.push(u);
          adjacent[u]++;
        }
      });
    };
    join(seed);
    const positive = touched.filter((u) => literalValue(u, x) > POSITIVE);
    positive.sort((p, q) => literalValue(q, x) - literalValue(p, x) || p - q);
    for (const u of positive) if (adjacent[u] === members.length && !members.includes(u)) join(u);
    let lifted = 0;
    for (let k = 0; k < touched.length && lifted < MAX_LIFTED && work < MAX_LIFT_WORK; k++) {
      const u = touched[k]!;
      if (adjacent[u] === members.length && !members.includes(u) && literalValue(u, x) <= POSITIVE) {
        join(u);
        lifted++;
      }
    }
    for (const u of touched) adjacent[u] = 0;
    return { members, work };
  }
}

/** Σ_{x_j ∈ Q} x_j − Σ_{x̄_j ∈ Q} x_j ≤ 1 − |complements|, as a ≥ cut; null if it fails cuts.ts's checks. */
export function cliqueCut(members: number[], model: LpModel): Cut | null {
  const coef = new Map<number, number>();
  let complements = 0;
  for (const l of members) {
    const j = columnOf(l);
    const c = isComplement(l) ? 1 : -1;
    if (isComplement(l)) complements++;
    coef.set(j, (coef.get(j) ?? 0) + c);
  }
  const index = [...coef.keys()].filter((j) => coef.get(j) !== 0).sort((p, q) => p - q);
  return finishSparseCut(
    index,
    index.map((j) => coef.get(j)!),
    complements - 1,
    model,
  );
}
