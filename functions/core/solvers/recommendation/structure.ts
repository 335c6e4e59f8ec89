import type { Problem } from "../../problem/schema.js";

/**
 * Structure counts (issue 29 names them "structure counts from presolve"): how many rows of each kind a
 * MIP presolve would classify, computed here from the rows themselves in one linear pass, not by running
 * a solver's presolve (none runs before `auto` chooses). Deterministic for the same problem. A row is
 * counted once, in the first kind that fits, in the order listed.
 */
export interface StructureCounts {
  /** Every term on a binary column with coefficient 1 and both sides 1 (or ≤ 1, or ≥ 1). */
  set_partitioning: number;
  set_packing: number;
  set_covering: number;
  /** Every term on a binary column with coefficient 1, a side above 1: at most / at least k of them. */
  cardinality: number;
  /** Every term on an integer or binary column with a nonnegative integer coefficient, one side ≤ only. */
  knapsack: number;
  /** Two terms, one of them on an integer or binary column (x ≤ u·y and its kin). */
  variable_bound: number;
  /** Any other row with both sides equal. */
  equality: number;
  rows: number;
}

const isBinary = (v: Problem["variables"][number]) => v.type === "binary" || (v.type === "integer" && v.lb === 0 && v.ub === 1);

export function structureCountsOf(problem: Problem): StructureCounts {
  const kind = new Map(problem.variables.map((v) => [v.name, isBinary(v) ? "binary" : v.type === "integer" ? "integer" : "continuous"]));
  const counts: StructureCounts = {
    set_partitioning: 0,
    set_packing: 0,
    set_covering: 0,
    cardinality: 0,
    knapsack: 0,
    variable_bound: 0,
    equality: 0,
    rows: problem.constraints.length,
  };
  for (const row of problem.constraints) {
    if (row.terms.length === 0) continue;
    const kinds = row.terms.map((t) => kind.get(t.var));
    const allBinary = kinds.every((k) => k === "binary");
    const unitCoefficients = row.terms.every((t) => t.coef === 1);
    const { lb, ub } = row;
    if (allBinary && unitCoefficients) {
      if (lb === 1 && ub === 1) counts.set_partitioning++;
      else if (ub === 1 && (lb === null || lb <= 0)) counts.set_packing++;
      else if (lb === 1 && ub === null) counts.set_covering++;
      else counts.cardinality++;
      continue;
    }
    const allInteger = kinds.every((k) => k !== "continuous");
    if (allInteger && lb === null && ub !== null && row.terms.every((t) => t.coef >= 0 && Number.isInteger(t.coef))) counts.knapsack++;
    else if (row.terms.length === 2 && kinds.some((k) => k !== "continuous")) counts.variable_bound++;
    else if (lb !== null && lb === ub) counts.equality++;
  }
  return counts;
}

/** The structure as features: the share of rows that are set rows (partitioning, packing, covering, cardinality), knapsacks, variable bounds, equalities. */
export interface StructureShares {
  set_share: number;
  knapsack_share: number;
  variable_bound_share: number;
  equality_share: number;
}

export function structureShares(c: StructureCounts): StructureShares {
  const n = Math.max(1, c.rows);
  return {
    set_share: (c.set_partitioning + c.set_packing + c.set_covering + c.cardinality) / n,
    knapsack_share: c.knapsack / n,
    variable_bound_share: c.variable_bound / n,
    equality_share: c.equality / n,
  };
}
