import type { components } from "./openapi.generated.js";

/** Every error body the service documents (one schema per error name). */
export type ErrorBody = components["schemas"][keyof components["schemas"]];

/**
 * A response outside 2xx. `body` is the service's error body when it sent one (every documented
 * error has `detail`, `error_code` and `status_code`); `code` is its error name.
 */
export class IncumbentError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly code: string | null;
  readonly requestId: string | null;

  constructor(options: { status: number; body: unknown; requestId?: string | null; method?: string; path?: string }) {
    super(describeError(options));
    this.name = "IncumbentError";
    this.status = options.status;
    this.body = options.body;
    this.code = errorCode(options.body);
    this.requestId = options.requestId ?? null;
  }
}

function errorCode(body: unknown): string | null {
  if (body && typeof body === "object" && "error_code" in body && typeof body.error_code === "string") return body.error_code;
  return null;
}

/** The service's `detail` (a sentence, or validation issues with their location), else the status. */
function describeError({ status, body, method, path }: { status: number; body: unknown; method?: string; path?: string }): string {
  const where = method && path ? `${method.toUpperCase()} ${path}: ` : "";
  if (body && typeof body === "object" && "detail" in body) {
    const detail = body.detail;
    if (typeof detail === "string") return `${where}${detail}`;
    if (Array.isArray(detail)) {
      const issues = detail.map((d: { loc?: unknown[]; msg?: unknown }) => `${(d.loc ?? []).join(".")}: ${String(d.msg ?? "")}`);
      return `${where}${issues.join("; ")}`;
    }
    if (detail && typeof detail === "object" && "error" in detail && typeof detail.error === "string") return `${where}${detail.error}`;
  }
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string") return `${where}${body.message}`;
  if (typeof body === "string" && body.trim() !== "") return `${where}HTTP ${status}: ${body.slice(0, 200)}`;
  return `${where}HTTP ${status}`;
}
