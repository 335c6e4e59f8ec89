import { Tracer } from "@aws-lambda-powertools/tracer";
import xray from "aws-xray-sdk-core";
import type { JobMessage } from "../../functions/core/queue/messages.js";

/**
 * X-Ray for the long-lived worker: one segment per job (annotated with its id, type and organization),
 * the AWS SDK clients captured so each call is a subsegment of the job's segment, sent to the X-Ray
 * daemon beside the worker in its task (lib/solver-fleet.ts). Powertools Tracer is made for Lambda,
 * where the runtime opens the segment; here the worker opens one per job in the SDK's context.
 * On only in an ECS task (AWS_EXECUTION_ENV set, POWERTOOLS_TRACE_ENABLED not false), so the local stack
 * and the tests send nothing.
 */
export class JobTracing {
  readonly tracer: Tracer;

  constructor(private readonly serviceName: string) {
    this.tracer = new Tracer({ serviceName });
    // Calls outside a job (heartbeats, the inventory report) have no segment to join: not an error.
    if (this.tracer.isTracingEnabled()) xray.setContextMissingStrategy("IGNORE_ERROR");
  }

  get enabled(): boolean {
    return this.tracer.isTracingEnabled();
  }

  instrument<C extends object>(client: C): C {
    return this.tracer.captureAWSv3Client(client);
  }

  /** Runs `fn` inside the job's segment; closes and sends the segment when it ends, with its error if it threw. */
  async traceJob<T>(job: JobMessage, fn: () => Promise<T>): Promise<T> {
    if (!this.enabled) return fn();
    const segment = new xray.Segment(this.serviceName);
    segment.addAnnotation("job_id", job.id);
    segment.addAnnotation("job_type", job.type);
    segment.addAnnotation("org_id", job.org_id);
    return xray.getNamespace().runPromise(async () => {
      xray.setSegment(segment);
      try {
        return await fn();
      } catch (error) {
        segment.addError(error as Error);
        throw error;
      } finally {
        segment.close();
      }
    });
  }
}
