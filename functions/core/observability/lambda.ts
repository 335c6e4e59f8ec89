import { Tracer } from "@aws-lambda-powertools/tracer";
import { withLogContext } from "./log-context.js";
import type { ServiceMetrics } from "./metrics.js";

/**
 * What every Lambda entry of ours wraps its handler in: the invocation's request id on every log line,
 * an X-Ray subsegment for the handler (Powertools Tracer; the stack turns active tracing on, and the
 * AWS SDK clients are captured so each call is a subsegment of it), and the handler's metrics flushed as
 * it ends (embedded metric format, observability/metrics.ts). Outside Lambda the tracer is off.
 */
export interface LambdaContextLike {
  awsRequestId?: string;
}

export function createTracer(fallbackService: string): Tracer {
  return new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || fallbackService });
}

export function observedHandler<E, C extends LambdaContextLike | undefined, R>(
  name: string,
  observe: { tracer: Tracer; metrics: ServiceMetrics },
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  const { tracer, metrics } = observe;
  return (event, context) =>
    withLogContext({ function_request_id: context?.awsRequestId }, async () => {
      const segment = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
      const subsegment = segment?.addNewSubsegment(`## ${name}`);
      if (subsegment) {
        tracer.setSegment(subsegment);
        tracer.annotateColdStart();
        tracer.addServiceNameAnnotation();
      }
      try {
        return await handler(event, context);
      } catch (error) {
        if (subsegment) tracer.addErrorAsMetadata(error as Error);
        throw error;
      } finally {
        subsegment?.close();
        if (segment) tracer.setSegment(segment);
        metrics.flush();
      }
    });
}
