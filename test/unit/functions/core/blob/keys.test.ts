import { describe, expect, it } from "vitest";
import { BLOB_FAMILIES, blobFamilyOf, blobKeys } from "../../../../../functions/core/blob/keys.js";

describe("blob keys", () => {
  const built = {
    executionProblem: blobKeys.executionProblem("o", "exe_1"),
    executionModelNames: blobKeys.executionModelNames("o", "exe_1"),
    executionResult: blobKeys.executionResult("o", "exe_1", "a1"),
    executionLogChunk: blobKeys.executionLogChunk("o", "exe_1", 3),
    comparisonProblem: blobKeys.comparisonProblem("o", "cmp_1"),
    comparisonModelNames: blobKeys.comparisonModelNames("o", "cmp_1"),
    comparisonModel: blobKeys.comparisonModel("o", "cmp_1"),
    projectVersionProblem: blobKeys.projectVersionProblem("o", "prj_1", "ver_1"),
    dataset: blobKeys.dataset("o", "dst_1"),
    documentVersionModel: blobKeys.documentVersionModel("o", "doc_1", "ver_1"),
    triggerRunResult: blobKeys.triggerRunResult("o", "run_1"),
    webhookBody: blobKeys.webhookBody("o", "dlv_1"),
  } satisfies Record<keyof typeof blobKeys, string>;

  it("are byte for byte the keys written before keys.ts (the deploy's rights name their families)", () => {
    expect(built).toEqual({
      executionProblem: "problems/o/exe_1.json",
      executionModelNames: "problems/o/exe_1.names.json",
      executionResult: "results/o/exe_1/a1.json",
      executionLogChunk: "results/o/exe_1/log-000003.json",
      comparisonProblem: "comparisons/o/cmp_1.json",
      comparisonModelNames: "comparisons/o/cmp_1.names.json",
      comparisonModel: "comparisons/o/cmp_1.model.json",
      projectVersionProblem: "projects/o/prj_1/ver_1.json",
      dataset: "datasets/o/dst_1.json",
      documentVersionModel: "documents/o/doc_1/ver_1.json",
      triggerRunResult: "runs/o/run_1.json",
      webhookBody: "webhooks/o/dlv_1.json",
    });
  });

  it("each lies under one family, and every family is used", () => {
    const families = Object.values(built).map((key) => blobFamilyOf(key));
    expect(families).not.toContain(null);
    expect(new Set(families)).toEqual(new Set(BLOB_FAMILIES));
    expect(blobFamilyOf("elsewhere/x.json")).toBeNull();
  });
});
