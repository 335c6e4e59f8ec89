import { z } from "zod";
import type { Problem } from "./schema.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * Numerics diagnostics, the way Gurobi and HiGHS print them before they solve: the ranges of the
 * absolute values of the nonzero matrix coefficients, objective coefficients, finite bounds and finite
 * row sides, with warnings that name the rows and columns making a range wide. The thresholds are
 * stated once here (docs/decisions.md, "Numerics diagnostics"):
 *
 * - a range is wide when its largest value exceeds its smallest by more than WIDE_RANGE_RATIO (1e6):
 *   past it a solver's absolute tolerance of 1e-6 is no longer small against every coefficient, and a
 *   big-M of 1e7 next to coefficients of 1 lets an integer variable of 3e-7 pass as 0;
 * - a value is large from LARGE_VALUE (1e9) and small (nonzero) up to SMALL_VALUE (1e-9).
 *
 * The verification gate calls a model's numerics risky (`numericsAreRisky`) when its matrix range is
 * wide or holds a large or small coefficient: its `infeasible` and `unbounded` verdicts are then
 * cross-checked by a second solver (solvers/verification.ts).
 */
export const WIDE_RANGE_RATIO = 1e6;
export const LARGE_VALUE = 1e9;
export const SMALL_VALUE = 1e-9;
/** Rows and columns a warning names at most (largest first), so a result stays small. */
export const WARNING_MAX_NAMES = 5;

export const NumericRangeSchema = z
  .object({ min: z.number().describe("smallest nonzero absolute value"), max: z.number().describe("largest absolute value") })
  .nullable()
  .describe("null when there is no nonzero value");
export type NumericRange = z.infer<typeof NumericRangeSchema>;

export const RANGE_NAMES = ["matrix", "objective", "bounds", "rhs"] as const;
export type RangeName = (typeof RANGE_NAMES)[number];

export const NumericsWarningSchema = z.object({
  range: z.enum(RANGE_NAMES).describe("which range the warning is about"),
  kind: z
    .enum(["wide_range", "large_values", "small_values"])
    .describe(`wide_range: max/min above ${WIDE_RANGE_RATIO}; large_values: |v| ≥ ${LARGE_VALUE}; small_values: 0 < |v| ≤ ${SMALL_VALUE}`),
  message: z.string().describe("the warning in words, with the values"),
  rows: z.array(z.string()).describe(`the rows holding the values that make the range wide (at most ${WARNING_MAX_NAMES})`),
  columns: z.array(z.string()).describe(`the columns holding them (at most ${WARNING_MAX_NAMES})`),
});
export type NumericsWarning = z.infer<typeof NumericsWarningSchema>;

export const NumericsSchema = z
  .object({
    matrix_range: NumericRangeSchema.describe("|a_ij| over the nonzero constraint coefficients"),
    objective_range: NumericRangeSchema.describe("|c_j| over the nonzero linear objective coefficients"),
    bounds_range: NumericRangeSchema.describe("|l_j|, |u_j| over the finite nonzero variable bounds"),
    rhs_range: NumericRangeSchema.describe("|b_i| over the finite nonzero row sides"),
    warnings: z.array(NumericsWarningSchema),
  })
  .describe(
    `coefficient ranges of the model as submitted (as Gurobi and HiGHS print them); a range is wide past a ratio of ${WIDE_RANGE_RATIO}, a value large from ${LARGE_VALUE} and small up to ${SMALL_VALUE}`,
  );
SCHEMA_NAMES.add(NumericsSchema, { id: "Numerics" });
export type Numerics = z.infer<typeof NumericsSchema>;

/** One value seen in a range, with where it sits. */
interface Entry {
  value: number;
  row: string | null;
  column: string | null;
}

/** Keeps the range and the few entries at each end (the ones a warning names). */
class RangeTracker {
  private readonly largest: Entry[] = [];
  private readonly smallest: Entry[] = [];
  private readonly extreme: { large: Entry[]; small: Entry[] } = { large: [], small: [] };
  private largeCount = 0;
  private smallCount = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  add(raw: number, row: string | null, column: string | null): void {
    const value = Math.abs(raw);
    if (value === 0 || !Number.isFinite(value)) return;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    // An entry object only for a value that enters a kept list (most do not, past the first few).
    if (this.largest.length < WARNING_MAX_NAMES || value > this.largest[WARNING_MAX_NAMES - 1]!.value) keepLargest(this.largest, { value, row, column });
    if (this.smallest.length < WARNING_MAX_NAMES || value < this.smallest[WARNING_MAX_NAMES - 1]!.value) keepSmallest(this.smallest, { value, row, column });
    if (value >= LARGE_VALUE) {
      this.largeCount++;
      if (this.extreme.large.length < WARNING_MAX_NAMES || value > this.extreme.large[WARNING_MAX_NAMES - 1]!.value)
        keepLargest(this.extreme.large, { value, row, column });
    }
    if (value <= SMALL_VALUE) {
      this.smallCount++;
      if (this.extreme.small.length < WARNING_MAX_NAMES || value < this.extreme.small[WARNING_MAX_NAMES - 1]!.value)
        keepSmallest(this.extreme.small, { value, row, column });
    }
  }

  range(): NumericRange {
    return this.max === 0 ? null : { min: this.min, max: this.max };
  }

  warnings(range: RangeName, what: string): NumericsWarning[] {
    const out: NumericsWarning[] = [];
    if (this.max === 0) return out;
    if (this.max / this.min > WIDE_RANGE_RATIO) {
      // Both ends first, then the next ones in turn: the names a capped list keeps.
      const ends = this.largest.flatMap((e, i) => [e, ...(this.smallest[i] ? [this.smallest[i]!] : [])]);
      out.push({
        range,
        kind: "wide_range",
        message: `${what} span [${fmt(this.min)}, ${fmt(this.max)}], a ratio of ${fmt(this.max / this.min)} (above ${fmt(WIDE_RANGE_RATIO)}): largest ${list(this.largest)}; smallest ${list(this.smallest)}`,
        ...names(ends),
      });
    }
    if (this.largeCount > 0) {
      out.push({
        range,
        kind: "large_values",
        message: `${this.largeCount} ${what} of ${fmt(LARGE_VALUE)} or more: ${list(this.extreme.large)}`,
        ...names(this.extreme.large),
      });
    }
    if (this.smallCount > 0) {
      out.push({
        range,
        kind: "small_values",
        message: `${this.smallCount} nonzero ${what} of ${fmt(SMALL_VALUE)} or less: ${list(this.extreme.small)}`,
        ...names(this.extreme.small),
      });
    }
    return out;
  }
}

/** Inserts `entry` into a list of at most WARNING_MAX_NAMES entries kept largest first (the caller checked it belongs). */
function keepLargest(list: Entry[], entry: Entry): void {
  list.push(entry);
  list.sort((a, b) => b.value - a.value);
  if (list.length > WARNING_MAX_NAMES) list.pop();
}

/** The same, smallest first. */
function keepSmallest(list: Entry[], entry: Entry): void {
  list.push(entry);
  list.sort((a, b) => a.value - b.value);
  if (list.length > WARNING_MAX_NAMES) list.pop();
}

const fmt = (v: number) => v.toExponential(1).replace("e+", "e");

function place(e: Entry): string {
  if (e.row !== null && e.column !== null) return `(${e.row}, ${e.column})`;
  return e.row ?? e.column ?? "";
}

function list(entries: Entry[]): string {
  return entries.map((e) => `${fmt(e.value)} at ${place(e)}`).join(", ");
}

function names(entries: Entry[]): { rows: string[]; columns: string[] } {
  const rows = new Set<string>();
  const columns = new Set<string>();
  for (const e of entries) {
    if (e.row !== null && rows.size < WARNING_MAX_NAMES) rows.add(e.row);
    if (e.column !== null && columns.size < WARNING_MAX_NAMES) columns.add(e.column);
  }
  return { rows: [...rows], columns: [...columns] };
}

/** The four ranges of `problem` and their warnings: one pass over the model (O(nonzeros)). */
export function numericsOf(problem: Problem): Numerics {
  const matrix = new RangeTracker();
  const objective = new RangeTracker();
  const bounds = new RangeTracker();
  const rhs = new RangeTracker();
  for (const c of problem.constraints) {
    for (const t of c.terms) matrix.add(t.coef, c.name, t.var);
    if (c.lb !== null) rhs.add(c.lb, c.name, null);
    if (c.ub !== null && c.ub !== c.lb) rhs.add(c.ub, c.name, null);
  }
  for (const t of problem.objective.terms) objective.add(t.coef, null, t.var);
  for (const v of problem.variables) {
    if (v.lb !== null) bounds.add(v.lb, null, v.name);
    const ub = v.type === "binary" ? Math.min(v.ub ?? 1, 1) : v.ub;
    if (ub !== null && ub !== v.lb) bounds.add(ub, null, v.name);
  }
  return {
    matrix_range: matrix.range(),
    objective_range: objective.range(),
    bounds_range: bounds.range(),
    rhs_range: rhs.range(),
    warnings: [
      ...matrix.warnings("matrix", "matrix coefficients"),
      ...objective.warnings("objective", "objective coefficients"),
      ...bounds.warnings("bounds", "finite bounds"),
      ...rhs.warnings("rhs", "finite row sides"),
    ],
  };
}

/**
 * The verification gate's test: a model whose matrix range is wide, or that holds a large or a small
 * matrix coefficient, has numerics on which solvers' absolute tolerances can decide a verdict.
 */
export function numericsAreRisky(numerics: Numerics): boolean {
  return numerics.warnings.some((w) => w.range === "matrix");
}
