import type { ComparisonRecord } from "../comparisons/store.js";
import type { ComparisonStatus, MatrixDetail } from "../comparisons/schemas.js";
import type { MatrixRecord } from "./store.js";

/**
 * A matrix's status, derived from its rows and never stored: pending until a row starts; running while
 * any row is going (or some are done and others still pending); then cancelled if any row was
 * cancelled, completed if any row completed, failed otherwise.
 */
export function deriveMatrixStatus(statuses: ComparisonStatus[]): ComparisonStatus {
  if (statuses.every((s) => s === "pending")) return "pending";
  if (statuses.some((s) => s === "running" || s === "pending")) return "running";
  if (statuses.some((s) => s === "cancelled")) return "cancelled";
  if (statuses.some((s) => s === "completed")) return "completed";
  return "failed";
}

/** A matrix as the API shows it: each row with its comparison's state; the status and end derived from them. */
export function matrixDetailOf(matrix: MatrixRecord, comparisons: ComparisonRecord[]): MatrixDetail {
  const byId = new Map(comparisons.map((c) => [c.id, c]));
  const rows = matrix.rows.map((r) => {
    const c = byId.get(r.comparison_id);
    return {
      comparison_id: r.comparison_id,
      dataset_id: r.dataset_id,
      dataset_name: r.dataset_name,
      status: c?.status ?? "failed",
      problem_class: c?.problem_class ?? null,
      variable_count: c?.variable_count ?? null,
      constraint_count: c?.constraint_count ?? null,
      error_message: c ? c.error_message : "the row's comparison is missing",
      results: c?.results ?? [],
      numerics: c?.numerics ?? null,
    };
  });
  const status = deriveMatrixStatus(rows.map((r) => r.status));
  const done = status === "completed" || status === "failed" || status === "cancelled";
  const completedAt = done
    ? rows.map((r) => byId.get(r.comparison_id)?.completed_at ?? null).reduce<string | null>((a, b) => (b && (!a || b > a) ? b : a), null)
    : null;
  return {
    batch_id: matrix.id,
    status,
    project_id: matrix.project_id,
    project_name: matrix.project_name,
    model_project_version_id: matrix.model_project_version_id,
    settings: matrix.settings,
    solver_names: matrix.solver_names,
    machine_note: comparisons.find((c) => c.machine_note)?.machine_note ?? matrix.machine_note,
    quota_cost: matrix.quota_cost,
    rows,
    created_at: matrix.created_at,
    completed_at: completedAt,
  };
}
