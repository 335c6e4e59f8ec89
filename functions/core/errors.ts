/**
 * Domain errors and the one mapping from them to the spec's error bodies. Core code throws these;
 * the API's error handler renders them; no route builds an error body by hand.
 *
 * Shapes (spec: Errors):
 *  - general: { detail: string, error_code, status_code } (+ `error`, the same name, and named extras)
 *  - validation 422: { detail: [{ loc, msg, type }], status_code }
 *  - rate limit 429: { error: "rate_limit_exceeded", message, limit, remaining, reset_at, retry_after }
 *  - trigger fire 422: { detail: { error, run_id }, code, params, status_code }
 */

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Every named error the service can answer with, and its HTTP status. */
export const ERROR_REGISTRY = {
  bad_request: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  variable_limit_exceeded: 403,
  daily_solve_quota_exceeded: 403,
  insufficient_credits: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  api_key_limit_reached: 409,
  trigger_disabled: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  no_solver_can_run_this_model: 422,
  model_cannot_be_compared: 422,
  project_has_no_jmodel_source: 422,
  dataset_did_not_compile: 422,
  invalid_problem_file: 422,
  model_did_not_compile: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  enqueue_failed: 503,
  solver_busy: 503,
  service_unavailable: 503,
} as const;

export type ErrorName = keyof typeof ERROR_REGISTRY;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorName,
    readonly detail: string,
    /** Named extra fields the spec gives this error (reasons, problems, position, …). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.status = ERROR_REGISTRY[code];
  }

  body(): Record<string, unknown> {
    return { detail: this.detail, error_code: this.code, error: this.code, status_code: this.status, ...this.extra };
  }
}

export class ValidationError extends AppError {
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

export class RateLimitError extends AppError {
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

export type TriggerFireCode = "trigger.override_unknown_fields" | "trigger.override_missing_required" | "trigger.solver_unavailable";

/** A refused trigger input: 422 with detail {error, run_id}, code and params. */
export class TriggerInputError extends AppError {
  constructor(
    readonly fireCode: TriggerFireCode,
    message: string,
    readonly params: Record<string, unknown>,
    readonly runId: string | null = null,
  ) {
    super("validation_error", message);
  }
  withRun(runId: string | null): TriggerInputError {
    return new TriggerInputError(this.fireCode, this.detail, this.params, runId);
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
export const conflict = (detail: string, extra?: Record<string, unknown>): AppError => new AppError("conflict", detail, extra);
export const badRequest = (detail: string): AppError => new AppError("bad_request", detail);

/** One validation issue, for rules checked outside zod (they answer with the same 422 shape). */
export const invalid = (loc: (string | number)[], msg: string, type = "value_error"): ValidationError => new ValidationError([{ loc, msg, type }]);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
