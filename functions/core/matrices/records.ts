import { isoTime } from "../clock.js";
import type { Settings } from "../solvers/settings.js";
import type { MatrixRecord } from "./store.js";

/** What a new matrix is made of. */
export interface NewMatrix {
  id: string;
  orgId: string;
  createdBy: string;
  project: { id: string; name: string; versionId: string | null };
  settings: Settings;
  solverNames: string[];
  /** The solves admitted for all its rows. */
  quotaCost: number;
  /** Its rows, in dataset order: each one comparison. */
  rows: { comparisonId: string; datasetId: string; datasetName: string }[];
  nowMs: number;
}

/** A new matrix record: the one place its fields are listed. */
export function newMatrixRecord(m: NewMatrix): MatrixRecord {
  return {
    id: m.id,
    org_id: m.orgId,
    created_by: m.createdBy,
    project_id: m.project.id,
    project_name: m.project.name,
    model_project_version_id: m.project.versionId,
    settings: m.settings,
    solver_names: m.solverNames,
    machine_note: null,
    quota_cost: m.quotaCost,
    rows: m.rows.map((r) => ({ comparison_id: r.comparisonId, dataset_id: r.datasetId, dataset_name: r.datasetName })),
    created_at: isoTime(m.nowMs),
  };
}
