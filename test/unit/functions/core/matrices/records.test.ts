import { describe, expect, it } from "vitest";
import { newMatrixRecord } from "../../../../../functions/core/matrices/records.js";

/** The one builder of matrix records. */

describe("newMatrixRecord", () => {
  it("lists every field once: the project, settings, solvers, quota cost and one row per dataset in order", () => {
    const settings = { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 };
    const matrix = newMatrixRecord({
      id: "cmb_1",
      orgId: "org_1",
      createdBy: "usr_1",
      project: { id: "prj_1", name: "plant", versionId: "ver_3" },
      settings,
      solverNames: ["highs", "cbc"],
      quotaCost: 4,
      rows: [
        { comparisonId: "cmp_1", datasetId: "dst_1", datasetName: "small" },
        { comparisonId: "cmp_2", datasetId: "dst_2", datasetName: "large" },
      ],
      nowMs: Date.UTC(2026, 10, 28),
    });
    expect(matrix).toEqual({
      id: "cmb_1",
      org_id: "org_1",
      created_by: "usr_1",
      project_id: "prj_1",
      project_name: "plant",
      model_project_version_id: "ver_3",
      settings,
      solver_names: ["highs", "cbc"],
      machine_note: null,
      quota_cost: 4,
      rows: [
        { comparison_id: "cmp_1", dataset_id: "dst_1", dataset_name: "small" },
        { comparison_id: "cmp_2", dataset_id: "dst_2", dataset_name: "large" },
      ],
      created_at: "2026-11-28T00:00:00.000Z",
    });
  });
});
