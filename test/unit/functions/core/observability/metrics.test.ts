import { describe, expect, it } from "vitest";
import { SERVICE_METRIC, SERVICE_METRICS_NAMESPACE } from "../../../../../functions/core/observability/metric-names.js";
import { createServiceMetrics, metricsEnabled } from "../../../../../functions/core/observability/metrics.js";

const emf = (lines: string[]) => lines.map((l) => JSON.parse(l));

describe("service metrics (embedded metric format)", () => {
  it("are on in a Lambda or an ECS task, off elsewhere, and POWERTOOLS_METRICS_DISABLED decides when set", () => {
    expect(metricsEnabled({})).toBe(false);
    expect(metricsEnabled({ AWS_LAMBDA_FUNCTION_NAME: "incumbent-dev-api" })).toBe(true);
    expect(metricsEnabled({ ECS_CONTAINER_METADATA_URI_V4: "http://169.254.170.2/v4/x" })).toBe(true);
    expect(metricsEnabled({ AWS_LAMBDA_FUNCTION_NAME: "f", POWERTOOLS_METRICS_DISABLED: "true" })).toBe(false);
    expect(metricsEnabled({ POWERTOOLS_METRICS_DISABLED: "false" })).toBe(true);
  });

  it("write one EMF line per flush under our namespace with the service dimension, and one per outcome with its own", () => {
    const lines: string[] = [];
    const env = { AWS_LAMBDA_FUNCTION_NAME: "f", POWERTOOLS_SERVICE_NAME: "incumbent-dev-sweeper" };
    const metrics = createServiceMetrics("fallback", env, (line) => lines.push(line));
    metrics.flush();
    expect(lines).toEqual([]); // nothing added, nothing written (and no warning line)
    metrics.count(SERVICE_METRIC.sweptJobs, 3);
    metrics.seconds(SERVICE_METRIC.jobQueuedToStarted, 1.5);
    metrics.flush();
    const [batch] = emf(lines);
    expect(batch._aws.CloudWatchMetrics[0].Namespace).toBe(SERVICE_METRICS_NAMESPACE);
    expect(batch._aws.CloudWatchMetrics[0].Dimensions).toEqual([["service"]]);
    expect(batch).toMatchObject({ service: "incumbent-dev-sweeper", SweptJobs: 3, JobQueuedToStartedSeconds: 1.5 });

    metrics.outcome(SERVICE_METRIC.solveOutcomes, "optimal");
    const single = emf(lines)[1];
    expect(single._aws.CloudWatchMetrics[0].Dimensions[0].sort()).toEqual(["outcome", "service"]);
    expect(single).toMatchObject({ service: "incumbent-dev-sweeper", outcome: "optimal", SolveOutcomes: 1 });
  });

  it("write nothing at all when off", () => {
    const lines: string[] = [];
    const metrics = createServiceMetrics("x", {}, (line) => lines.push(line));
    metrics.count(SERVICE_METRIC.sweptJobs);
    metrics.outcome(SERVICE_METRIC.solveOutcomes, "optimal");
    metrics.flush();
    expect(lines).toEqual([]);
  });
});
