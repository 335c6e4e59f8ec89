import type { PayloadRef } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { Numerics } from "../problem/numerics.js";
import type { ProblemStats } from "../problem/schema.js";
import type { Settings } from "../solvers/settings.js";
import type { StructureCounts } from "../solvers/recommendation/structure.js";
import type { Row } from "./schemas.js";
import type { ComparisonRecord } from "./store.js";

/** What a new comparison is made of; the rest of its fields start empty. */
export interface NewComparison {
  id: string;
  orgId: string;
  createdBy: string;
  problemName: string;
  /** A matrix row: its matrix and dataset. */
  matrix?: { batchId: string; datasetId: string };
  /** The model project it runs (absent: an inline problem). */
  project?: { id: string; versionId: string | null };
  uploadedFilename?: string | null;
  settings: Settings;
  /** Known when the problem was compiled or read at launch; a matrix row's worker learns the others'. */
  stats:
    | (Pick<ProblemStats, "problem_class" | "variable_count" | "constraint_count"> &
        Partial<Pick<ProblemStats, "nonzero_count" | "integer_count" | "binary_count">>)
    | null;
  /** The rows by kind (counted where the problem was built: in hand, or by the model thread). */
  structure?: StructureCounts | null;
  solverNames: string[];
  rows: Row[];
  problem: PayloadRef | null;
  /** A matrix row's model and dataset, compiled by its worker. */
  model?: PayloadRef | null;
  modelNames?: PayloadRef;
  creditsEach: number;
  priority: number;
  numerics: Numerics | null;
  nowMs: number;
}

/**
 * A new comparison record, pending: the one place its fields are listed. A single comparison and every
 * row of a matrix are built here.
 */
export function newComparisonRecord(c: NewComparison): ComparisonRecord {
  return {
    id: c.id,
    org_id: c.orgId,
    created_by: c.createdBy,
    status: "pending",
    problem_name: c.problemName,
    batch_id: c.matrix?.batchId ?? null,
    source_kind: c.project ? "model_project" : "inline_problem",
    model_project_id: c.project?.id ?? null,
    model_project_version_id: c.project?.versionId ?? null,
    dataset_id: c.matrix?.datasetId ?? null,
    uploaded_filename: c.uploadedFilename ?? null,
    settings: c.settings,
    problem_class: c.stats?.problem_class ?? null,
    variable_count: c.stats?.variable_count ?? null,
    constraint_count: c.stats?.constraint_count ?? null,
    // What `auto` learns by (solvers/recommendation/features.ts): the sizes and structure beyond rows and columns.
    nonzero_count: c.stats?.nonzero_count ?? null,
    integer_variable_count: c.stats?.integer_count == null ? null : c.stats.integer_count + (c.stats.binary_count ?? 0),
    structure_counts: c.structure ?? null,
    machine_note: null,
    solver_names: c.solverNames,
    // Each record its own rows: a matrix's rows start from one shape.
    results: c.rows.map((r) => ({ ...r })),
    agreement: null,
    error_message: null,
    created_at: isoTime(c.nowMs),
    started_at: null,
    completed_at: null,
    problem: c.problem,
    model: c.model ?? null,
    ...(c.modelNames ? { model_names: c.modelNames } : {}),
    credits_each: c.creditsEach,
    cancel_requested: false,
    priority: c.priority,
    numerics: c.numerics,
  };
}
