import { describe, expect, it } from "vitest";
import { type BlobStore, deleteStoredBlob } from "../../../../../functions/core/blob/blob-store.js";

describe("deleteStoredBlob", () => {
  it("deletes a key read back from an item only under the family its caller names", async () => {
    const deleted: string[] = [];
    const blobs: BlobStore = { put: async () => {}, get: async () => null, delete: async (key) => void deleted.push(key) };
    await deleteStoredBlob(blobs, "runs/", "runs/org_1/run_1.json");
    await expect(deleteStoredBlob(blobs, "runs/", "documents/org_1/doc_1/v1.json")).rejects.toThrow(/not under runs\//);
    await expect(deleteStoredBlob(blobs, "results/", "resultsX/org_1/a.json")).rejects.toThrow(/not under results\//);
    expect(deleted).toEqual(["runs/org_1/run_1.json"]);
  });
});
