import { describe, expect, it } from "vitest";
import { newComparisonRecord } from "../../../../../functions/core/comparisons/records.js";
import { pendingRow } from "../../../../../functions/core/comparisons/rows.js";

/** The one builder of comparison records: a single comparison (inline or on a project) and a matrix's rows. */

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const SETTINGS = { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 };
const base = {
  id: "cmp_1",
  orgId: "org_1",
  createdBy: "usr_1",
  problemName: "small",
  settings: SETTINGS,
  stats: { problem_class: "LP" as const, variable_count: 2, constraint_count: 2 },
  solverNames: ["highs", "cbc"],
  rows: ["highs", "cbc"].map(pendingRow),
  problem: { inline: "{}" },
  creditsEach: 1,
  priority: 0,
  numerics: null,
  nowMs: NOW,
};

describe("newComparisonRecord", () => {
  it("makes an inline comparison pending, with every field the store keeps and nothing started, agreed or ended", () => {
    expect(newComparisonRecord({ ...base, uploadedFilename: "small.mps" })).toEqual({
      id: "cmp_1",
      org_id: "org_1",
      created_by: "usr_1",
      status: "pending",
      problem_name: "small",
      batch_id: null,
      source_kind: "inline_problem",
      model_project_id: null,
      model_project_version_id: null,
      dataset_id: null,
      uploaded_filename: "small.mps",
      settings: SETTINGS,
      problem_class: "LP",
      variable_count: 2,
      constraint_count: 2,
      // The stats given had no nonzero or integer counts, and no structure was given.
      nonzero_count: null,
      integer_variable_count: null,
      structure_counts: null,
      machine_note: null,
      solver_names: ["highs", "cbc"],
      results: ["highs", "cbc"].map(pendingRow),
      agreement: null,
      error_message: null,
      created_at: "2026-11-28T12:00:00.000Z",
      started_at: null,
      completed_at: null,
      problem: { inline: "{}" },
      model: null,
      credits_each: 1,
      cancel_requested: false,
      priority: 0,
      numerics: null,
    });
  });

  it("makes a matrix row: its matrix, dataset, project and frozen model; stats unknown until its worker compiles it", () => {
    const row = newComparisonRecord({
      ...base,
      matrix: { batchId: "cmb_1", datasetId: "dst_2" },
      project: { id: "prj_1", versionId: null },
      stats: null,
      problem: null,
      model: { blob: "models/cmp_1" },
    });
    expect(row).toMatchObject({
      batch_id: "cmb_1",
      dataset_id: "dst_2",
      source_kind: "model_project",
      model_project_id: "prj_1",
      model_project_version_id: null,
      problem_class: null,
      variable_count: null,
      constraint_count: null,
      problem: null,
      model: { blob: "models/cmp_1" },
    });
    expect("model_names" in row).toBe(false);
  });

  it("gives each record rows of its own (a matrix's rows start from one shape)", () => {
    const rows = [pendingRow("highs")];
    const a = newComparisonRecord({ ...base, rows });
    const b = newComparisonRecord({ ...base, id: "cmp_2", rows });
    a.results[0]!.status = "running";
    expect(b.results[0]!.status).toBe("pending");
    expect(rows[0]!.status).toBe("pending");
  });
});
