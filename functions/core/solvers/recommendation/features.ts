import type { Numerics, NumericRange } from "../../problem/numerics.js";
import type { ProblemClass, ProblemStats } from "../../problem/schema.js";
import { type StructureCounts, structureShares } from "./structure.js";

/**
 * What the recommender compares problems by (issue 29, Build 2): the class, the sizes in decades, the
 * share of integer columns, how many decades the matrix and objective coefficients span, and the
 * structure shares (structure.ts). A feature is null where the source did not keep it (comparison records
 * from before nonzero, integer and structure counts were kept); the distance then uses only the features
 * both problems have.
 */
export interface ProblemFeatures {
  problem_class: ProblemClass;
  /** log10(1 + columns), log10(1 + rows), log10(1 + nonzeros). */
  log_variables: number;
  log_constraints: number;
  log_nonzeros: number | null;
  /** Integer and binary columns over all columns (0 for a continuous model). */
  integer_share: number | null;
  /** log10(max / min) of the nonzero matrix coefficients' absolute values; 0 when all are alike. */
  matrix_range_decades: number | null;
  objective_range_decades: number | null;
  /**
   * Structure shares (structure.ts): of the rows, how many are set rows, knapsacks, variable bounds and
   * other equalities; absent or null where the source did not keep the structure counts.
   */
  set_share?: number | null;
  knapsack_share?: number | null;
  variable_bound_share?: number | null;
  equality_share?: number | null;
}

const decades = (n: number) => Math.log10(1 + Math.max(0, n));
const rangeDecades = (r: NumericRange | undefined): number | null => (r ? Math.log10(r.max / r.min) : null);

/** The sizes a caller may know of a problem: its full stats, or only some of them (a comparison record, a query). */
export interface ProblemSizes {
  problem_class: ProblemClass;
  variable_count: number;
  constraint_count: number;
  nonzero_count?: number | null;
  /** Integer and binary columns together. */
  integer_count?: number | null;
  /** The rows by kind (structure.ts), where known. */
  structure?: StructureCounts | null;
}

/** The features of a problem from its sizes and, when known, its numerics (problem/numerics.ts). */
export function featuresOf(sizes: ProblemSizes, numerics?: Numerics | null): ProblemFeatures {
  const ints = sizes.integer_count ?? null;
  return {
    problem_class: sizes.problem_class,
    log_variables: decades(sizes.variable_count),
    log_constraints: decades(sizes.constraint_count),
    log_nonzeros: sizes.nonzero_count == null ? null : decades(sizes.nonzero_count),
    integer_share: ints === null ? null : sizes.variable_count > 0 ? Math.min(1, ints / sizes.variable_count) : 0,
    matrix_range_decades: numerics ? rangeDecades(numerics.matrix_range ?? undefined) : null,
    objective_range_decades: numerics ? rangeDecades(numerics.objective_range ?? undefined) : null,
    ...(sizes.structure ? structureShares(sizes.structure) : {}),
  };
}

/** The sizes in a problem's stats (problem/schema.ts problemStats), integers and binaries together. */
export function sizesOfStats(stats: ProblemStats): ProblemSizes {
  return {
    problem_class: stats.problem_class,
    variable_count: stats.variable_count,
    constraint_count: stats.constraint_count,
    nonzero_count: stats.nonzero_count,
    integer_count: stats.integer_count + stats.binary_count,
  };
}

/**
 * How much one unit of each feature weighs in the distance. Sizes count in decades; a whole difference in
 * integer share (a pure LP against a pure binary model) weighs as three decades of size; a decade of
 * coefficient range as a quarter of a decade of size (ranges vary more and say less about speed); a whole
 * share of the rows of one structure kind as STRUCTURE_WEIGHT decades.
 */
const STRUCTURE_WEIGHT = 2;
const WEIGHTS = {
  log_variables: 1,
  log_constraints: 1,
  log_nonzeros: 1,
  integer_share: 3,
  matrix_range_decades: 0.25,
  objective_range_decades: 0.25,
  set_share: STRUCTURE_WEIGHT,
  knapsack_share: STRUCTURE_WEIGHT,
  variable_bound_share: STRUCTURE_WEIGHT,
  equality_share: STRUCTURE_WEIGHT,
} as const satisfies Record<Exclude<keyof ProblemFeatures, "problem_class">, number>;

/**
 * The distance between two problems: the root mean square of the weighted differences over the features
 * both have (so a feature one side lacks neither adds nor hides distance), in "decades of size". Problems
 * of different classes are infinitely far apart: the recommender compares within a class only.
 */
export function featureDistance(a: ProblemFeatures, b: ProblemFeatures): number {
  if (a.problem_class !== b.problem_class) return Number.POSITIVE_INFINITY;
  let sum = 0;
  let count = 0;
  for (const [key, weight] of Object.entries(WEIGHTS) as [keyof typeof WEIGHTS, number][]) {
    const x = a[key];
    const y = b[key];
    if (x == null || y == null) continue;
    sum += (weight * (x - y)) ** 2;
    count++;
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}
