import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { OUTCOME_DIMENSION, SERVICE_METRICS_NAMESPACE } from "./metric-names.js";

/**
 * The service's own metrics (names: metric-names.ts), written in CloudWatch's embedded metric format
 * through Powertools Metrics: one JSON line on stdout per flush, which CloudWatch Logs turns into
 * metrics for a Lambda's log group and a Fargate task's awslogs stream alike — no PutMetricData call,
 * no right to grant. Each carries the `service` dimension (POWERTOOLS_SERVICE_NAME, set by the stack to
 * the component's name).
 *
 * On only where CloudWatch reads the output (a Lambda, an ECS task) unless POWERTOOLS_METRICS_DISABLED
 * says otherwise: the local stack and the tests would only get noise on stdout.
 */
export interface ServiceMetrics {
  /** Adds to a count, flushed with the rest. */
  count(name: string, value?: number): void;
  /** A duration in seconds, flushed with the rest. */
  seconds(name: string, value: number): void;
  /** One solve's outcome, written at once (it carries its own `outcome` dimension). */
  outcome(name: string, outcome: string): void;
  /** Writes what was added since the last flush (nothing when nothing was). */
  flush(): void;
}

export interface MetricsEnvironment {
  POWERTOOLS_SERVICE_NAME?: string;
  POWERTOOLS_METRICS_DISABLED?: string;
  AWS_LAMBDA_FUNCTION_NAME?: string;
  ECS_CONTAINER_METADATA_URI_V4?: string;
}

export function metricsEnabled(env: MetricsEnvironment): boolean {
  if (env.POWERTOOLS_METRICS_DISABLED !== undefined && env.POWERTOOLS_METRICS_DISABLED !== "") return env.POWERTOOLS_METRICS_DISABLED === "false";
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME || env.ECS_CONTAINER_METADATA_URI_V4);
}

/** Metrics of one component (`fallbackService` when the stack set no POWERTOOLS_SERVICE_NAME), or none. */
export function createServiceMetrics(fallbackService: string, env: MetricsEnvironment = process.env, write?: (line: string) => void): ServiceMetrics {
  if (!metricsEnabled(env)) return NO_METRICS;
  const metrics = new Metrics({ namespace: SERVICE_METRICS_NAMESPACE, serviceName: env.POWERTOOLS_SERVICE_NAME || fallbackService });
  if (write) (metrics as unknown as { console: { log(line: string): void } }).console = { log: write };
  return {
    count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
    seconds: (name, value) => metrics.addMetric(name, MetricUnit.Seconds, Math.max(0, value)),
    outcome: (name, outcome) => {
      const single = metrics.singleMetric();
      if (write) (single as unknown as { console: { log(line: string): void } }).console = { log: write };
      single.addDimension(OUTCOME_DIMENSION, outcome);
      single.addMetric(name, MetricUnit.Count, 1);
    },
    flush: () => {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    },
  };
}

export const NO_METRICS: ServiceMetrics = { count() {}, seconds() {}, outcome() {}, flush() {} };
