import { describe, expect, it } from "vitest";
import { SERVICE_METRIC } from "../../../../functions/core/observability/metric-names.js";
import { createServiceMetrics } from "../../../../functions/core/observability/metrics.js";
import type { Services } from "../../../../functions/core/services.js";
import { createSweeper } from "../../../../functions/sweeper/handler.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");

/** Just what a sweep reads: the ACTIVE partition, the two stores' lapse writes, the outbox. */
function services(active: object[]): Services {
  const failed = async () => ({});
  return {
    clock: { now: () => NOW },
    config: { staleQueuedSeconds: 600, webhookOutboxGraceSeconds: 60 },
    executionStore: { leases: { active: async () => active }, failIfLeaseLapsed: failed },
    comparisonStore: { failIfLeaseLapsed: failed },
    webhooks: { sweepOutbox: async () => 0 },
    logger: { warn() {}, info() {}, error() {} },
  } as unknown as Services;
}

const item = (id: string, status: string, leaseExpiresAtMs: number | null) => ({
  kind: "execution",
  pk: "ORG#org_1",
  sk: `EXEC#${id}`,
  status,
  lease_expires_at_ms: leaseExpiresAtMs,
  created_at: new Date(NOW - 1000).toISOString(),
});

describe("the sweeper's metric", () => {
  it("counts the jobs a sweep failed (SweptJobs, which the stack alarms on), zero included, once per sweep", async () => {
    const lines: string[] = [];
    const metrics = createServiceMetrics("incumbent-test-sweeper", { POWERTOOLS_METRICS_DISABLED: "false" }, (l) => lines.push(l));
    const active = [item("exe_dead", "running", NOW - 1), item("exe_alive", "running", NOW + 60_000), item("exe_new", "queued", null)];
    const report = await createSweeper(services(active), {}, metrics)();
    expect(report.failed.map((f) => f.id)).toEqual(["exe_dead"]);
    await createSweeper(services([]), {}, metrics)();
    const values = lines.map((l) => JSON.parse(l)[SERVICE_METRIC.sweptJobs]);
    expect(values).toEqual([1, 0]);
  });
});
