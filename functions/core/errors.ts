import { z } from "zod";
import { UNSUPPORTED_REASONS } from "./solvers/types.js";

/**
 * Domain errors and the one mapping from them to the spec's error bodies. Core code throws these;
 * the API's error handler renders them; no route builds an error body by hand. The same registry
 * gives each error name its JSON schema, so the OpenAPI document shows the bodies the service sends.
 *
 * Shapes (spec: Errors):
 *  - general: { detail: string, error_code, status_code } (+ `error`, the same name, and named extras)
 *  - validation 422: { detail: [{ loc, msg, type }], status_code }
 *  - rate limit 429: { error: "rate_limit_exceeded", message, limit, remaining, reset_at, retry_after }
 *  - trigger input 422: { detail: { error, run_id }, code, params, status_code }
 */

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

const Count = z.number().int();
const Position = z.object({ line: Count, column: Count });
const ModelProblem = z.object({
  line: Count.nullable(),
  column: Count.nullable(),
  message: z.string(),
  code: z.string(),
  kind: z.string(),
});
const ModelProblems = z.array(ModelProblem).max(3).describe("up to three problems, each with line and column");

type Shape = "general" | "validation" | "rate_limit" | "trigger_input";

interface ErrorDefinition {
  status: number;
  /** When the error is answered, for the document. */
  description: string;
  shape?: Shape;
  /** Named fields the general body carries besides detail, error_code, error and status_code. */
  extra?: z.ZodRawShape;
}

const define = <T extends Record<string, ErrorDefinition>>(registry: T): T => registry;

/** Every named error the service can answer with: its status, when, and what its body carries. */
export const ERROR_REGISTRY = define({
  bad_request: { status: 400, description: "Invalid input (for example a reset token that is invalid, expired or used)." },
  malformed_json: { status: 400, description: "The body is not valid JSON." },
  unauthorized: { status: 401, description: "Credential missing, invalid or expired." },
  forbidden: { status: 403, description: "Valid credentials, insufficient permission." },
  variable_limit_exceeded: {
    status: 403,
    description:
      "The model is past the instance's variable cap (INSTANCE_MAX_VARIABLES); a model built past it stops at the cap, so variable_count may be the cap plus one.",
    extra: { variable_count: Count, limit: Count },
  },
  model_size_limit_exceeded: {
    status: 403,
    description:
      "The model is past one of the instance's other size caps: constraints (INSTANCE_MAX_CONSTRAINTS), nonzero coefficients (INSTANCE_MAX_NONZEROS), or the set size and expansion work they imply. Building stopped at the cap; nothing was run or charged.",
    extra: { limit_name: z.enum(["constraints", "nonzeros", "set_elements", "expansion_steps"]), count: Count, limit: Count },
  },
  daily_solve_quota_exceeded: {
    status: 403,
    description: "The request needs more solves than the daily limit leaves; the solves counted before the refusal stay spent.",
    extra: { needed: Count, spent: Count, limit: Count, used_today: Count },
  },
  priority_budget_exceeded: {
    status: 403,
    description:
      "Priority above 0 is past the organization's daily budget (ORG_PRIORITY_SOLVES_PER_DAY solves); nothing was charged. Send the work at priority 0 or below.",
    extra: { needed: Count, limit: Count, used_today: Count },
  },
  insufficient_credits: {
    status: 403,
    description: "The organization's credits do not cover the request.",
    extra: { credits_required: Count, credits_remaining: z.number() },
  },
  cron_schedule_limit_exceeded: {
    status: 403,
    description: "The organization has as many scheduled triggers as INSTANCE_MAX_CRON_SCHEDULES allows; remove a schedule first.",
    extra: { limit: Count, schedules: Count },
  },
  trigger_limit_exceeded: {
    status: 403,
    description: "The organization has as many triggers as ORG_MAX_TRIGGERS allows; delete one first.",
    extra: { limit: Count, triggers: Count },
  },
  not_found: { status: 404, description: "The resource does not exist in the caller's organization." },
  method_not_allowed: { status: 405, description: "The path exists, the method does not; `Allow` lists the methods it takes." },
  conflict: { status: 409, description: "Conflict with the current state (a name or address taken, a pinned version gone)." },
  api_key_limit_reached: { status: 409, description: "The user's live-key cap is reached.", extra: { limit: Count } },
  trigger_disabled: { status: 409, description: "The trigger is disabled; nothing was queued." },
  execution_not_infeasible: {
    status: 409,
    description: "Only an execution that ended `infeasible` can be explained; status and solver_status say how this one stands. Nothing was charged.",
    extra: { status: z.string(), solver_status: z.string().nullable() },
  },
  payload_too_large: { status: 413, description: "The body, or a compressed problem file once decompressed, is larger than MAX_REQUEST_BODY_MB." },
  unsupported_media_type: { status: 415, description: "The body's Content-Type is not one the operation takes." },
  validation_error: { status: 422, shape: "validation", description: "The request fails validation." },
  trigger_input_refused: {
    status: 422,
    shape: "trigger_input",
    description: "The run's input was refused (trigger codes); fire records a validation_failed run named in detail.run_id.",
  },
  no_solver_can_run_this_model: {
    status: 422,
    description: "No named solver can express the model; reasons names each one's reason.",
    extra: { reasons: z.record(z.string(), z.enum(UNSUPPORTED_REASONS)) },
  },
  model_cannot_be_compared: { status: 422, description: "The stored model is not a solvable problem.", extra: { problems: ModelProblems } },
  project_has_no_jmodel_source: { status: 422, description: "A matrix needs a model with JModel source." },
  dataset_did_not_compile: {
    status: 422,
    description: "The first dataset failed to compile; position points at the offending line.",
    extra: { dataset_id: z.string(), position: Position, problems: ModelProblems },
  },
  invalid_problem_file: {
    status: 422,
    description: "The problem file cannot be read; line says where reading stopped.",
    extra: { line: Count.optional(), format: z.enum(["mps", "lp"]).optional() },
  },
  model_did_not_compile: {
    status: 422,
    description: "The model did not compile with this data.",
    extra: { position: Position, problems: ModelProblems },
  },
  rate_limit_exceeded: { status: 429, shape: "rate_limit", description: "A rate limit is exceeded; retry after retry_after seconds." },
  internal_error: {
    status: 500,
    description: "Unexpected failure; retry after a short delay.",
    extra: { execution_id: z.string().optional() },
  },
  enqueue_failed: { status: 503, description: "The broker refused the job; the resource exists and records it. Retry shortly." },
  solver_busy: {
    status: 503,
    description: "All solver workers are busy past the wait bound; the execution goes on (poll it, or use the async solve).",
    extra: { execution_id: z.string() },
  },
  service_unavailable: { status: 503, description: "Temporarily unavailable; retry shortly." },
});

export type ErrorName = keyof typeof ERROR_REGISTRY;
export const ERROR_NAMES = Object.keys(ERROR_REGISTRY) as ErrorName[];

type ExtraOf<N extends ErrorName> = (typeof ERROR_REGISTRY)[N] extends { extra: infer E extends z.ZodRawShape }
  ? z.input<z.ZodObject<E>>
  : Record<never, never>;

export const errorStatus = (name: ErrorName): number => ERROR_REGISTRY[name].status;

const ValidationIssueSchema = z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() });
export const TRIGGER_INPUT_CODES = ["trigger.override_unknown_fields", "trigger.override_missing_required", "trigger.solver_unavailable"] as const;
export type TriggerFireCode = (typeof TRIGGER_INPUT_CODES)[number];

/**
 * The body schema of one error name, closed (`strict`): a field the service sends that is not here is
 * a contract break, which the response validator in the tests reports.
 */
export function errorBodySchema(name: ErrorName): z.ZodType {
  const def: ErrorDefinition = ERROR_REGISTRY[name];
  const status = z.literal(def.status);
  switch (def.shape ?? "general") {
    case "validation":
      return z.strictObject({ detail: z.array(ValidationIssueSchema), status_code: status });
    case "rate_limit":
      return z.strictObject({
        error: z.literal(name),
        message: z.string(),
        limit: Count,
        remaining: Count,
        reset_at: Count.describe("Unix seconds at which the window resets"),
        retry_after: Count.describe("seconds"),
        status_code: status,
      });
    case "trigger_input":
      return z.strictObject({
        detail: z.strictObject({ error: z.string(), run_id: z.string().nullable() }),
        code: z.enum(TRIGGER_INPUT_CODES),
        params: z.record(z.string(), z.unknown()),
        status_code: status,
      });
    default:
      return z.strictObject({ detail: z.string(), error_code: z.literal(name), error: z.literal(name), status_code: status, ...(def.extra ?? {}) });
  }
}

export class AppError<N extends ErrorName = ErrorName> extends Error {
  readonly status: number;
  constructor(
    readonly code: N,
    readonly detail: string,
    /** Named extra fields the registry gives this error (reasons, problems, position, …). */
    readonly extra: ExtraOf<N> = {} as ExtraOf<N>,
  ) {
    super(detail);
    this.name = "AppError";
    this.status = ERROR_REGISTRY[code].status;
  }

  body(): Record<string, unknown> {
    return { detail: this.detail, error_code: this.code, error: this.code, status_code: this.status, ...this.extra };
  }
}

export class ValidationError extends AppError<"validation_error"> {
  constructor(readonly issues: ValidationIssue[]) {
    super("validation_error", issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }
  override body(): Record<string, unknown> {
    return { detail: this.issues, status_code: 422 };
  }
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  retryAfter: number;
}

export class RateLimitError extends AppError<"rate_limit_exceeded"> {
  constructor(
    readonly state: RateLimitState,
    what = "requests",
  ) {
    super("rate_limit_exceeded", `Rate limit exceeded: at most ${state.limit} ${what} in this window.`);
  }
  override body(): Record<string, unknown> {
    return {
      error: "rate_limit_exceeded",
      message: this.detail,
      limit: this.state.limit,
      remaining: this.state.remaining,
      reset_at: this.state.resetAt,
      retry_after: this.state.retryAfter,
      status_code: 429,
    };
  }
}

/** A refused trigger input: 422 with detail {error, run_id}, code and params. */
export class TriggerInputError extends AppError<"trigger_input_refused"> {
  readonly params: Record<string, unknown>;
  /** The run recorded for the refused input (withRun); null when none was. */
  readonly runId: string | null;

  constructor(
    readonly fireCode: TriggerFireCode,
    { message, params, runId = null }: { message: string; params: Record<string, unknown>; runId?: string | null },
  ) {
    super("trigger_input_refused", message);
    this.params = params;
    this.runId = runId;
  }
  withRun(runId: string | null): TriggerInputError {
    return new TriggerInputError(this.fireCode, { message: this.detail, params: this.params, runId });
  }
  override body(): Record<string, unknown> {
    return {
      detail: { error: this.detail, run_id: this.runId },
      code: this.fireCode,
      params: this.params,
      status_code: 422,
    };
  }
}

export const notFound = (what: string): AppError => new AppError("not_found", `${what} not found.`);
export const unauthorized = (detail = "Missing or invalid credentials."): AppError => new AppError("unauthorized", detail);
export const forbidden = (detail: string): AppError => new AppError("forbidden", detail);
export const conflict = (detail: string): AppError => new AppError("conflict", detail);
export const badRequest = (detail: string): AppError => new AppError("bad_request", detail);

/** One validation issue, for rules checked outside zod (they answer with the same 422 shape). */
export const invalid = (loc: (string | number)[], msg: string, type = "value_error"): ValidationError => new ValidationError([{ loc, msg, type }]);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * A failure of a service the request depends on (the table, the broker) rather than of the request or
 * of this code: the connection failed or timed out, or the service answered 5xx after the SDK's retries.
 * Answered 503 service_unavailable, which the spec tells clients to retry with backoff.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  const e = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (e.code && UNREACHABLE_CODES.has(e.code)) return true;
  if (e.name === "TimeoutError" || e.name === "RequestTimeout" || e.name === "ServiceUnavailable") return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  return e.cause !== undefined && e.cause !== error && isDependencyUnavailable(e.cause);
}
