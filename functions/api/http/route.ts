import type { Context, Hono } from "hono";
import { z } from "zod";
import { roleAtLeast, type Role } from "../../core/auth/roles.js";
import type { Principal } from "../../core/auth/service.js";
import { AppError, ValidationError, type ValidationIssue } from "../../core/errors.js";
import { admit } from "./admission.js";
import type { ApiEnv } from "./context.js";

/**
 * Routes are declared once: method, path, who may call, and zod schemas for params, query, body and
 * responses. The same declaration validates requests, types the handler, and feeds the OpenAPI document.
 */
export type Access =
  /** no credential (health, calculator, sign-in) */
  | "public"
  /** API key or session JWT */
  | "user"
  /** API key only (trigger management, rerun) */
  | "api_key"
  /** a trigger's own secret (fire): authenticated by the handler */
  | "trigger_secret";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Hono path syntax: `/api/v2/keys/:key_id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** A body that is not JSON (multipart upload): the handler reads it. */
  rawBody?: { contentTypes: string[]; description: string };
  responses: Record<number, ResponseSpec>;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal | null;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export type RouteHandler<P, Q, B> = (c: Context<ApiEnv>, input: RouteInput<P, Q, B>) => Promise<Response> | Response;

const registries = new WeakMap<object, RouteSpec[]>();

/** The routes registered on an app, in registration order (the OpenAPI document's source). */
export const routesOf = (app: object): RouteSpec[] => registries.get(app) ?? [];

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

/** Reads the JSON body once; 400 for malformed JSON, an empty body reads as `{}`. */
export async function readJsonBody(c: Context<ApiEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("malformed_json", `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Registers a route on the app and records it for the OpenAPI document. */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  app: Hono<ApiEnv>,
  spec: RouteSpec<P, Q, B>,
  handler: RouteHandler<Out<P>, Out<Q>, Out<B>>,
): void {
  if (!registries.has(app)) registries.set(app, []);
  registries.get(app)!.push(spec as unknown as RouteSpec);
  app.on(spec.method.toUpperCase(), spec.path, async (c) => {
    const principal = await admit(c, spec);
    const params = parse(spec.params, c.req.param(), "path");
    const query = parse(spec.query, c.req.query(), "query");
    const body = spec.body ? parse(spec.body, await readJsonBody(c), "body") : undefined;
    return handler(c, { params, query, body, principal } as RouteInput<Out<P>, Out<Q>, Out<B>>);
  });
}

/** The principal of a route declared with access "user" or "api_key" (set by the auth middleware). */
export function requirePrincipal(input: { principal: Principal | null }): Principal {
  if (!input.principal) throw new AppError("unauthorized", "Missing or invalid credentials.");
  return input.principal;
}

/** The principal, when its role is at least `role`; 403 `forbidden` with `why` otherwise. */
export function requireRole(input: { principal: Principal | null }, role: Role, why: string): Principal {
  const principal = requirePrincipal(input);
  if (!roleAtLeast(principal.role, role)) throw new AppError("forbidden", why);
  return principal;
}

/** Query-string helpers: numbers and booleans arrive as strings. */
export const queryInt = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

export const queryBool = (def: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(def ? "true" : "false")
    .transform((v) => v === "true" || v === "1");
