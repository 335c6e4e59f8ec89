import { z } from "zod";
import type { RouteSpec } from "../http/route.js";

/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas (the single source of shapes).
 * JSON Schema 2020-12 is OpenAPI 3.1's schema dialect, so zod's output is used as it is.
 */
const ErrorSchema = z.object({ detail: z.string(), error_code: z.string(), error: z.string(), status_code: z.number().int() });
const ValidationErrorSchema = z.object({
  detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
  status_code: z.literal(422),
});
const RateLimitSchema = z.object({
  error: z.literal("rate_limit_exceeded"),
  message: z.string(),
  limit: z.number().int(),
  remaining: z.number().int(),
  reset_at: z.number().int(),
  retry_after: z.number().int(),
});

type Json = Record<string, unknown>;

function schema(s: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json;
  delete out.$schema;
  return out;
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

function parameters(spec: RouteSpec): Json[] {
  const out: Json[] = [];
  const add = (s: z.ZodType | undefined, where: "path" | "query") => {
    if (!s) return;
    const js = schema(s, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === "path" || (js.required ?? []).includes(name), schema: prop });
    }
  };
  add(spec.params, "path");
  add(spec.query, "query");
  return out;
}

export function buildOpenApi(routes: RouteSpec[], info: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const spec of routes) {
    const responses: Json = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? "application/json"]: { schema: schema(r.schema, "output") } } }
        : { description: r.description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    }
    if (spec.body && !responses["422"]) {
      responses["422"] = { description: "Validation failed.", content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationError" } } } };
    }
    if (spec.access !== "public") {
      responses["401"] ??= {
        description: "Missing or invalid credential.",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
      responses["429"] ??= { description: "Rate limit exceeded.", content: { "application/json": { schema: { $ref: "#/components/schemas/RateLimit" } } } };
    }
    const operation: Json = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      parameters: parameters(spec),
      responses,
      security:
        spec.access === "public"
          ? []
          : spec.access === "trigger_secret"
            ? [{ triggerSecret: [] }]
            : spec.access === "api_key"
              ? [{ apiKey: [] }]
              : [{ apiKey: [] }, { sessionJwt: [] }],
    };
    if (spec.body) operation.requestBody = { required: true, content: { "application/json": { schema: schema(spec.body, "input") } } };
    if (spec.rawBody) {
      operation.requestBody = {
        required: true,
        description: spec.rawBody.description,
        content: Object.fromEntries(spec.rawBody.contentTypes.map((t) => [t, { schema: {} }])),
      };
    }
    const p = openApiPath(spec.path);
    paths[p] = { ...(paths[p] ?? {}), [spec.method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Incumbent API",
      version: info.version,
      description: "Solve, compare and trigger LP/MILP solves. Errors follow the general, validation and rate-limit shapes below.",
    },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key from POST /api/v2/keys" },
        sessionJwt: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A session token from POST /api/v2/auth/login" },
        triggerSecret: { type: "http", scheme: "bearer", description: "The trigger's own secret (or the body's trigger_secret)" },
      },
      schemas: {
        Error: schema(ErrorSchema, "output"),
        ValidationError: schema(ValidationErrorSchema, "output"),
        RateLimit: schema(RateLimitSchema, "output"),
      },
    },
  };
}
