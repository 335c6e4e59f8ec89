/**
 * Every blob key (S3 in AWS, the local blob store's files on a laptop), declared once. A payload too
 * large for its item is written under one of these keys and its item keeps the key (`{ blob: key }`);
 * readers follow that reference, so they never build a key themselves.
 *
 * | blob                        | key                                         | written by                               | read by                          | deleted                                                  |
 * | --------------------------- | ------------------------------------------- | ---------------------------------------- | -------------------------------- | -------------------------------------------------------- |
 * | execution's problem         | problems/<org>/<exe>.json                   | API (solve admission)                    | worker                           | never (bucket expiry, when the stage sets one)           |
 * | execution's model names     | problems/<org>/<exe>.names.json             | API (a JModel solve)                     | worker (names in its result)     | never                                                    |
 * | execution's result          | results/<org>/<exe>/<attempt>.json          | worker; API (a small solve it answers)   | API                              | by the worker, when its attempt lost the lease           |
 * | execution's log chunk       | results/<org>/<exe>/log-<nnnnnn>.json       | worker (progress flush)                  | API (log, events)                | with the progress chunk (progress retention)             |
 * | comparison's problem        | comparisons/<org>/<cmp>.json                | API (launch); worker (a matrix row)      | worker                           | never                                                    |
 * | comparison's model names    | comparisons/<org>/<cmp>.names.json          | API (launch); worker (a matrix row)      | API                              | never                                                    |
 * | matrix row's model          | comparisons/<org>/<cmp>.model.json          | API (matrix launch)                      | worker (compiles the row)        | never                                                    |
 * | project version's problem   | projects/<org>/<prj>/<ver>.json             | API                                      | API (resolving a model)          | never                                                    |
 * | dataset                     | datasets/<org>/<dst>.json                   | API                                      | API (resolving a model)          | never                                                    |
 * | document version's model    | documents/<org>/<doc>/<ver>.json            | API                                      | API (reads, runs of the version) | by the API, when an unnamed version is pruned            |
 * | trigger run's result        | runs/<org>/<run>.json                       | worker, API (run outcomes)               | API (run views)                  | by the API, with its trigger                             |
 * | webhook delivery's body     | webhooks/<org>/<delivery>.json              | worker, API (delivery)                   | webhook delivery                 | by the API, with its trigger                             |
 *
 * The first path segment is the key's family: the deploy grants each role write and delete only under
 * the families its code uses (lib/api.ts, lib/solver-fleet.ts; test/infra/rights.test.ts derives them
 * from the calls, reading each builder's template below — keep every builder a template literal that
 * starts with its family).
 *
 * A comparison's problem was written under `problems/` by a matrix worker before this module (the API
 * wrote `comparisons/`). It is `comparisons/` whoever writes it now; an item written before still holds
 * its `problems/…` key and is read from there, since readers follow the item's reference.
 */

/** The key families, first path segment and slash. */
export const BLOB_FAMILIES = ["problems/", "results/", "comparisons/", "projects/", "datasets/", "documents/", "runs/", "webhooks/"] as const;
export type BlobFamily = (typeof BLOB_FAMILIES)[number];

export const blobKeys = {
  executionProblem: (orgId: string, executionId: string) => `problems/${orgId}/${executionId}.json`,
  executionModelNames: (orgId: string, executionId: string) => `problems/${orgId}/${executionId}.names.json`,
  /**
   * Keyed per attempt: a worker that lost its lease (swept, handed back) never overwrites the blob the
   * attempt that finished references.
   */
  executionResult: (orgId: string, executionId: string, attempt: string) => `results/${orgId}/${executionId}/${attempt}.json`,
  /** Beside the execution's results: the worker may write and delete there in AWS. */
  executionLogChunk: (orgId: string, executionId: string, seq: number) => `results/${orgId}/${executionId}/log-${String(seq).padStart(6, "0")}.json`,
  comparisonProblem: (orgId: string, comparisonId: string) => `comparisons/${orgId}/${comparisonId}.json`,
  comparisonModelNames: (orgId: string, comparisonId: string) => `comparisons/${orgId}/${comparisonId}.names.json`,
  /** A matrix row's JModel source and data, frozen at launch. */
  comparisonModel: (orgId: string, comparisonId: string) => `comparisons/${orgId}/${comparisonId}.model.json`,
  projectVersionProblem: (orgId: string, projectId: string, versionId: string) => `projects/${orgId}/${projectId}/${versionId}.json`,
  dataset: (orgId: string, datasetId: string) => `datasets/${orgId}/${datasetId}.json`,
  documentVersionModel: (orgId: string, documentId: string, versionId: string) => `documents/${orgId}/${documentId}/${versionId}.json`,
  triggerRunResult: (orgId: string, runId: string) => `runs/${orgId}/${runId}.json`,
  webhookBody: (orgId: string, deliveryId: string) => `webhooks/${orgId}/${deliveryId}.json`,
} as const;

/** A key's family (its first path segment and slash); null for a key under none. */
export function blobFamilyOf(key: string): BlobFamily | null {
  return BLOB_FAMILIES.find((family) => key.startsWith(family)) ?? null;
}
