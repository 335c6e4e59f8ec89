import { describe, expect, it } from "vitest";
import { newRunRecord } from "../../../../../functions/core/triggers/records.js";

/** The one builder of trigger run records. */

const trigger = { id: "trg_1", org_id: "org_1", solver_name: null, document_id: "doc_1", version_id: "ver_1" };
const settings = { time_limit_seconds: 120, gap_tolerance: 1e-4, threads: 1 };
const NOW = Date.UTC(2026, 10, 28, 6, 0, 0);

describe("newRunRecord", () => {
  it("makes a fired run queued, from the trigger's document, version and solver (auto when it names none)", () => {
    const run = newRunRecord({ trigger, source: "fire", createdBy: "usr_1", rerunOf: null, overrideData: { demand: 3 }, settings, nowMs: NOW, id: "run_1" });
    expect(run).toEqual({
      id: "run_1",
      trigger_id: "trg_1",
      org_id: "org_1",
      created_by: "usr_1",
      status: "queued",
      source: "fire",
      rerun_of: null,
      override_data: { demand: 3 },
      solver_name: "auto",
      document_id: "doc_1",
      version_id: "ver_1",
      settings,
      time_limit_seconds: 120,
      execution_id: null,
      result: null,
      error: null,
      validation: null,
      created_at: "2026-11-28T06:00:00.000Z",
      started_at: null,
      completed_at: null,
      webhook: null,
    });
  });

  it("makes run now pending with a trun id, and a rerun queued naming the run it repeats", () => {
    const now = newRunRecord({
      trigger: { ...trigger, solver_name: "highs" },
      source: "run_now",
      createdBy: "usr_2",
      rerunOf: null,
      overrideData: {},
      settings,
      nowMs: NOW,
    });
    expect(now).toMatchObject({ status: "pending", solver_name: "highs", created_by: "usr_2" });
    expect(now.id.startsWith("trun_")).toBe(true);
    const rerun = newRunRecord({ trigger, source: "rerun", createdBy: "usr_2", rerunOf: "run_1", overrideData: {}, settings, nowMs: NOW });
    expect(rerun).toMatchObject({ status: "queued", rerun_of: "run_1" });
    expect(rerun.id.startsWith("run_")).toBe(true);
  });
});
