import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Role } from "../../core/auth/roles.js";
import type { Principal } from "../../core/auth/service.js";
import { AppError, type ErrorName, ValidationError, type ValidationIssue } from "../../core/errors.js";
import { MAX_ID_LENGTH } from "../../core/ids.js";
import { describeJsonBodyProblem, jsonBodyProblem } from "../../core/limits/json-body.js";
import { unstorableNumbers } from "../../core/store/storable-numbers.js";
import type { RateClass } from "../../core/limits/rate-limits.js";
import { admission, admitInput } from "./admission.js";
import type { ApiEnv } from "./context.js";
import { requestBodyLimit } from "./request-body.js";

/**
 * Routes are declared once: method, path, who may call (credential and role), how often (rate class),
 * which errors it answers, and zod schemas for params, query, body and responses. The same declaration
 * admits and validates requests, types the handler, and is the OpenAPI document's source.
 */
export type Access =
  /** no credential (health, calculator, sign-in) */
  | "public"
  /** API key or session JWT */
  | "user"
  /** API key only (trigger management, rerun) */
  | "api_key"
  /** a trigger's own secret (fire): verified by the run service */
  | "trigger_secret"
  /** the instance operator's token (OPERATOR_TOKEN_SHA256): never an organization member's credential */
  | "operator";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType, A extends Access = Access> {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Hono path syntax: `/api/v2/keys/:key_id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: A;
  /** The weakest organization role that may call; null where no user calls (public, trigger secret). */
  role: A extends "user" | "api_key" ? Role : null;
  /** What the request is counted against (core/limits/rate-limits.ts). */
  rateClass: RateClass;
  /** The error names the route answers beyond those its access, role, rate class and inputs imply. */
  errors: ErrorName[];
  params?: P;
  query?: Q;
  body?: B;
  /** A body that is not JSON (multipart upload, JSON-RPC): the handler reads it. */
  rawBody?: { contentTypes: string[]; description: string };
  /** Success responses; error responses come from `errors` and the policy (see routeErrors). */
  responses: Record<number, ResponseSpec>;
}

export type AnyRouteSpec = RouteSpec<z.ZodType, z.ZodType, z.ZodType, Access>;

export interface RouteInput<P, Q, B, A extends Access> {
  params: P;
  query: Q;
  body: B;
  principal: A extends "user" | "api_key" ? Principal : null;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export type RouteHandler<P, Q, B, A extends Access> = (c: Context<ApiEnv>, input: RouteInput<P, Q, B, A>) => Promise<Response> | Response;

/**
 * Every error a route can answer: what its declaration names, plus what its policy implies — a
 * credential (401), a role above viewer (403), a rate class (429), inputs (422), a JSON body (400,
 * 413, 415), a raw body (413, 415, and 422 for a JSON one past the body scan's limits) — and the 500 any
 * route may answer.
 */
export function routeErrors(spec: AnyRouteSpec): ErrorName[] {
  const names = new Set<ErrorName>();
  if (spec.access !== "public") names.add("unauthorized");
  if (spec.role !== null && spec.role !== "viewer") names.add("forbidden");
  if (spec.rateClass !== "exempt") names.add("rate_limit_exceeded");
  if (spec.params || spec.query || spec.body) names.add("validation_error");
  if (spec.params) names.add("not_found");
  if (spec.body) for (const n of ["malformed_json", "payload_too_large", "unsupported_media_type"] as const) names.add(n);
  if (spec.rawBody) for (const n of ["payload_too_large", "unsupported_media_type", "validation_error"] as const) names.add(n);
  for (const n of spec.errors) names.add(n);
  names.add("internal_error");
  // Any route that reaches the table can meet it unreachable (app.ts answers that 503).
  names.add("service_unavailable");
  return [...names];
}

const registries = new WeakMap<object, AnyRouteSpec[]>();

/** The routes registered on an app, in registration order (the OpenAPI document's source). */
export const routesOf = (app: object): AnyRouteSpec[] => registries.get(app) ?? [];

export function zodIssues(error: z.ZodError, root: string): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [root, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, root: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssues(result.error, root));
  return result.data;
}

/** A path id longer than any record's names nothing: 404, as for any unknown id, before a lookup the table would refuse. */
function assertIdsCouldExist(params: unknown): void {
  for (const [name, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    if (typeof value === "string" && value.length > MAX_ID_LENGTH) throw new AppError("not_found", `No record has this ${name}.`);
  }
}

/**
 * Parses a JSON body's text once its cost is known to be bounded (core/limits/json-body.ts): 422 for
 * nesting past the depth limit or a `__proto__` key, 413 past the value count, 400 for malformed JSON;
 * an empty body reads as `{}`.
 */
export function parseJsonBody(text: string): unknown {
  const problem = jsonBodyProblem(text);
  if (problem?.kind === "too_many_values") throw new AppError("payload_too_large", `Request body is too large: ${describeJsonBodyProblem(problem)}.`);
  if (problem) throw new ValidationError([{ loc: ["body"], msg: describeJsonBodyProblem(problem), type: problem.kind }]);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("malformed_json", `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Reads the JSON body once (see parseJsonBody). */
export async function readJsonBody(c: Context<ApiEnv>): Promise<unknown> {
  return parseJsonBody(await c.req.text());
}

/** A declaration kept as a value (the MCP tools name their REST twins' declarations). */
export const defineRoute = <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, A extends Access>(
  spec: RouteSpec<P, Q, B, A>,
): RouteSpec<P, Q, B, A> => spec;

/** Registers a route on the app, behind its admission, and records it for the OpenAPI document. */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, A extends Access>(
  app: Hono<ApiEnv>,
  spec: RouteSpec<P, Q, B, A>,
  handler: RouteHandler<Out<P>, Out<Q>, Out<B>, A>,
): void {
  const recorded = spec as unknown as AnyRouteSpec;
  if (!registries.has(app)) registries.set(app, []);
  registries.get(app)!.push(recorded);
  app.on(spec.method.toUpperCase(), spec.path, admission(recorded), requestBodyLimit(), async (c) => {
    const params = parse(spec.params, c.req.param(), "path");
    assertIdsCouldExist(params);
    const query = parse(spec.query, c.req.query(), "query");
    const body = spec.body ? parse(spec.body, await readJsonBody(c), "body") : undefined;
    const unstorable = unstorableNumbers(body, ["body"]);
    if (unstorable.length > 0) throw new ValidationError(unstorable);
    await admitInput(c, recorded, body);
    const principal = c.get("principal");
    return handler(c, { params, query, body, principal } as RouteInput<Out<P>, Out<Q>, Out<B>, A>);
  });
}

/** Query-string helpers: numbers and booleans arrive as strings. */
export const queryInt = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

export const queryBool = (def: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(def ? "true" : "false")
    .transform((v) => v === "true" || v === "1");
