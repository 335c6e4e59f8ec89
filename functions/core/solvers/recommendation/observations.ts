import { PROBLEM_CLASSES, type ProblemClass } from "../../problem/schema.js";
import type { Agreement, Row } from "../../comparisons/schemas.js";
import type { ComparisonRecord } from "../../comparisons/store.js";
import { featuresOf, type ProblemFeatures } from "./features.js";

/** One solver's run on a past problem: its time, and whether it answered right. */
export interface ObservedRun {
  solver: string;
  seconds: number;
  /** A proven verdict (optimal, infeasible, unbounded) no other row contradicted. */
  solved: boolean;
  time_limit_seconds: number;
}

/** A past problem and how each solver did on it: a comparison of the organization, or a public benchmark instance. */
export interface Observation {
  /** The comparison's id, or the public instance's file name. */
  id: string;
  source: "organization" | "public";
  features: ProblemFeatures;
  runs: ObservedRun[];
}

/**
 * What the recommender reads of a finished comparison (or matrix row): a projection of ComparisonRecord.
 * The counts are absent or null on records from before they were kept: the features are then left unknown.
 */
export interface ComparisonEvidence
  extends Pick<
    ComparisonRecord,
    "id" | "problem_class" | "variable_count" | "constraint_count" | "nonzero_count" | "integer_variable_count" | "structure_counts" | "numerics"
  > {
  settings: Pick<ComparisonRecord["settings"], "time_limit_seconds">;
  results: Pick<Row, "solver_name" | "status" | "solver_status" | "solver_time_seconds">[];
  agreement: Pick<Agreement, "disagreeing_solvers"> | null;
}

const PROVEN = new Set(["optimal", "infeasible", "unbounded"]);

/**
 * A finished comparison as an observation, or null when it says nothing about speed (its problem never
 * compiled, no row ran). A row counts when the solver ran to an answer: completed, or failed with a
 * verdict of its own (a solver error); rows failed by the platform (a lost worker) or cancelled, and
 * unsupported rows, are left out. A row counts as solved only with a proven verdict that no other row
 * contradicted.
 */
export function observationOfComparison(c: ComparisonEvidence): Observation | null {
  if (!c.problem_class || !(PROBLEM_CLASSES as readonly string[]).includes(c.problem_class)) return null;
  if (c.variable_count == null || c.constraint_count == null) return null;
  const disputed = new Set(c.agreement?.disagreeing_solvers ?? []);
  const runs: ObservedRun[] = [];
  for (const row of c.results) {
    const ran = row.status === "completed" || (row.status === "failed" && row.solver_status !== null && row.solver_status !== "unsupported");
    if (!ran || row.solver_status === "unsupported") continue;
    const seconds = row.solver_time_seconds;
    if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) continue;
    runs.push({
      solver: row.solver_name,
      seconds,
      solved: row.status === "completed" && PROVEN.has(row.solver_status ?? "") && !disputed.has(row.solver_name),
      time_limit_seconds: c.settings.time_limit_seconds,
    });
  }
  if (runs.length === 0) return null;
  const features = featuresOf(
    {
      problem_class: c.problem_class as ProblemClass,
      variable_count: c.variable_count,
      constraint_count: c.constraint_count,
      nonzero_count: c.nonzero_count,
      integer_count: c.integer_variable_count,
      structure: c.structure_counts,
    },
    c.numerics,
  );
  return { id: c.id, source: "organization", features, runs };
}

/**
 * The time a run counts for: its own when it answered right, else the time limit it had (a run stopped past
 * its limit, by the kill's grace, counts at the limit too: every unanswered run costs alike).
 */
export const countedSeconds = (run: ObservedRun): number => (run.solved ? run.seconds : run.time_limit_seconds);
