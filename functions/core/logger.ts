import { Logger, LogFormatter, LogItem } from "@aws-lambda-powertools/logger";
import type { LogAttributes, UnformattedAttributes } from "@aws-lambda-powertools/logger/types";
import { currentLogContext } from "./observability/log-context.js";

/**
 * Structured logs through Powertools. Secrets never reach a log line: every attribute whose key names a
 * credential is replaced, however deep it sits, before the line is written. Every line carries the keys
 * of the unit of work it belongs to (observability/log-context.ts: the Lambda request id, the API request
 * id and organization, the worker's job), whichever logger writes it.
 */
const SECRET_KEY = /(authorization|password|secret|token|api[_-]?key|cookie|signature)/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SECRET_KEY.test(key) && v !== null && v !== undefined && typeof v !== "boolean" ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

class RedactingFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        function_request_id: attributes.lambdaContext?.awsRequestId,
        xray_trace_id: attributes.xRayTraceId,
        ...currentLogContext(),
      },
    }).addAttributes(redact(additional) as LogAttributes);
  }
}

/** `serviceName` unless the stack named the component (POWERTOOLS_SERVICE_NAME, which its metrics carry too). */
export function createLogger(serviceName: string): Logger {
  return new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || serviceName,
    logLevel: (process.env.LOG_LEVEL ?? process.env.POWERTOOLS_LOG_LEVEL ?? "INFO") as never,
    logFormatter: new RedactingFormatter(),
  });
}

export type { Logger };
