import fc from "fast-check";
import type { ProblemInput } from "../../../functions/core/problem/schema.js";

/** What the numerics suite's families share: the case's shape and the pieces their references are built from. */

export const FAMILIES = ["fixed-charge", "indicator", "disjunctive", "semi-continuous", "near-integral"] as const;
export type NumericsFamily = (typeof FAMILIES)[number];

export interface NumericsCase {
  family: NumericsFamily;
  /** The largest coefficient of the construction: its big M (or the near-integral rows' scale). */
  bigM: number;
  widening: Widening | null;
  expected: "optimal" | "infeasible";
  /** The optimum in the problem's own sense, constant included; null when infeasible. */
  optimum: number | null;
  /** A point at which the optimum is attained; null when infeasible. */
  witness: Record<string, number> | null;
  problem: ProblemInput;
}

export type Column = NonNullable<ProblemInput["variables"]>[number];
export type Row = NonNullable<ProblemInput["constraints"]>[number];
export type Term = Row["terms"][number];
export type Base = Omit<NumericsCase, "family" | "bigM" | "widening">;

export const int = (min: number, max: number) => fc.integer({ min, max });
export const INFEASIBLE: Base = { expected: "infeasible", optimum: null, witness: null, problem: { variables: [{ name: "none" }] } };

/** M = m·10^e for e in 3..9 (at most 1e9): shrinks towards 1000. */
export const bigM = fc
  .record({ exponent: int(3, 9), mantissa: fc.constantFrom(1, 2, 5) })
  .map(({ exponent, mantissa }) => Math.min(1e9, mantissa * 10 ** exponent));

export const terms = (entries: [string, number][]): Term[] => entries.filter(([, coef]) => coef !== 0).map(([name, coef]) => ({ var: name, coef }));
export const sum = (values: readonly number[]) => values.reduce((s, v) => s + v, 0);

/** Every 0/1 vector of length n. */
export function* assignments(n: number): Generator<number[]> {
  for (let mask = 0; mask < 2 ** n; mask++) yield Array.from({ length: n }, (_, j) => (mask >> j) & 1);
}

/**
 * min Σ c_j x_j over lo ≤ x ≤ hi with Σ x ≥ need (or = need when `exact`), c ≥ 0: start at the lower
 * bounds and fill what is missing cheapest first. Optimal by the exchange argument (a unit moved from a
 * dearer to a cheaper column never costs more); infeasible when even the upper bounds fall short, or, for
 * `exact`, when the lower bounds overshoot. Returns the point, or null.
 */
export function fillCheapest({
  cost,
  lo,
  hi,
  need,
  exact,
}: {
  cost: readonly number[];
  lo: readonly number[];
  hi: readonly number[];
  need: number;
  exact: boolean;
}): number[] | null {
  if (lo.some((l, j) => l > hi[j]!)) return null;
  const x = [...lo];
  let missing = need - sum(lo);
  if (missing < 0) return exact ? null : x;
  for (const j of cost.map((_, j) => j).sort((a, b) => cost[a]! - cost[b]!)) {
    const add = Math.min(missing, hi[j]! - x[j]!);
    x[j]! += add;
    missing -= add;
  }
  return missing > 0 ? null : x;
}

/** The best of the candidates (value, point) under minimisation, or the infeasible case. */
export function best(candidates: Iterable<{ value: number; point: Record<string, number> } | null>, problem: ProblemInput): Base {
  let found: { value: number; point: Record<string, number> } | null = null;
  for (const c of candidates) if (c && (found === null || c.value < found.value)) found = c;
  if (!found) return { ...INFEASIBLE, problem };
  return { expected: "optimal", optimum: problem.sense === "maximize" ? -found.value : found.value, witness: found.point, problem };
}

export interface Widening {
  /** Row i is multiplied by 10^rows[i % length] (0…3). */
  rows: number[];
  /** Continuous column j is substituted x = 10^-k·x′ with k = columns[j % length] (0…2). */
  columns: number[];
  /** The objective (constant included) is multiplied by 10^objective (−2…3). */
  objective: number;
}
