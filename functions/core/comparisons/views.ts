import type { ComparisonDetail, ComparisonStatus, Row } from "./schemas.js";
import type { ComparisonRecord } from "./store.js";

export function detailOf(r: ComparisonRecord): ComparisonDetail {
  return {
    id: r.id,
    status: r.status,
    problem_name: r.problem_name,
    batch_id: r.batch_id,
    source_kind: r.source_kind,
    model_project_id: r.model_project_id,
    model_project_version_id: r.model_project_version_id,
    priority: r.priority ?? 0,
    dataset_id: r.dataset_id,
    uploaded_filename: r.uploaded_filename,
    settings: r.settings,
    problem_class: r.problem_class,
    variable_count: r.variable_count,
    constraint_count: r.constraint_count,
    machine_note: r.machine_note,
    results: r.results,
    agreement: r.agreement,
    numerics: r.numerics ?? null,
    error_message: r.error_message,
    created_at: r.created_at,
    started_at: r.started_at,
    completed_at: r.completed_at,
  };
}

/**
 * A comparison's final status from its rows, once its worker has gone through them (decisions.md,
 * "Comparison status"):
 *   cancelled  any row was cancelled (a cancel arrived before the last solver started)
 *   completed  at least one solver that could run gave a verdict (optimal … time_limit)
 *   failed     every solver that could run failed (error), or none ran
 * Unsupported rows never decide: they are a property of the model, not an outcome.
 */
export function finalComparisonStatus(rows: Row[]): ComparisonStatus {
  if (rows.some((r) => r.status === "cancelled")) return "cancelled";
  if (rows.some((r) => r.status === "completed" && r.solver_status !== "unsupported")) return "completed";
  return "failed";
}
