import type { Term } from "./schema.js";

export interface QuadraticTerm {
  var1: string;
  var2: string;
  coef: number;
}

/**
 * A linear expression with each variable once: duplicate terms summed (the meaning of `x + x`),
 * zero coefficients dropped, variables in order of first appearance. Writers use it because MPS
 * cannot hold two entries for one (row, column) and readers disagree on what a repeat means.
 */
export function mergeLinearTerms(terms: readonly Term[]): Term[] {
  if (terms.length < 2) return terms.filter((t) => t.coef !== 0);
  const sums = new Map<string, number>();
  for (const t of terms) sums.set(t.var, (sums.get(t.var) ?? 0) + t.coef);
  if (sums.size === terms.length) return terms.filter((t) => t.coef !== 0);
  const merged: Term[] = [];
  for (const [name, coef] of sums) if (coef !== 0) merged.push({ var: name, coef });
  return merged;
}

/**
 * The canonical quadratic part: one term per unordered pair of variables, `var1` the one that comes
 * first in the variable list, coefficients of repeated pairs summed (`x·y` and `y·x` are the same
 * monomial), zeros dropped, pairs in order of first appearance. Readers return it and writers write
 * it, so a problem read from a file round-trips term for term.
 */
export function canonicalQuadratic(terms: readonly QuadraticTerm[], indexOf: ReadonlyMap<string, number>): QuadraticTerm[] {
  const n = indexOf.size;
  const byPair = new Map<number, QuadraticTerm>();
  for (const t of terms) {
    const i = indexOf.get(t.var1);
    const j = indexOf.get(t.var2);
    if (i === undefined || j === undefined) throw new Error(`quadratic term names an unknown variable (${t.var1}, ${t.var2})`);
    const [first, second] = i <= j ? [t.var1, t.var2] : [t.var2, t.var1];
    const key = Math.min(i, j) * n + Math.max(i, j);
    const seen = byPair.get(key);
    if (seen) seen.coef += t.coef;
    else byPair.set(key, { var1: first, var2: second, coef: t.coef });
  }
  const result: QuadraticTerm[] = [];
  for (const t of byPair.values()) if (t.coef !== 0) result.push(t);
  return result;
}
