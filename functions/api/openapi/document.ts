import type { z } from "zod";
import { ERROR_NAMES, errorBodySchema } from "../../core/errors.js";
import { type AnyRouteSpec, routeErrors } from "../http/route.js";
import { ErrorResponses, errorComponent, headerRefs } from "./error-responses.js";
import { SchemaComponents } from "./schema-components.js";

/**
 * The OpenAPI 3.1 document, generated from the routes' declarations: their zod schemas (the single
 * source of shapes), their policy (security, rate-limit headers) and the error names each answers,
 * whose bodies come from the error registry and whose responses are written once, in
 * `components.responses` (error-responses.ts). JSON Schema 2020-12 is OpenAPI 3.1's schema dialect, so
 * zod's output is used as it is; every object a response carries is closed (`additionalProperties:
 * false`), so a field the service sends and the document does not name is a contract break. The
 * schemas named in SCHEMA_NAMES (core/schema-names.ts) are written once, in `components.schemas`
 * (schema-components.ts).
 */
type Json = Record<string, unknown>;

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

const integerHeader = (description: string) => ({ description, schema: { type: "integer" } });

/** Response headers, by component name. */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description: "The request's id: the client's X-Request-Id when acceptable (1–255 of A–Z a–z 0–9 _ - =), else a fresh one.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": integerHeader("Maximum requests in the binding window (the window with the fewest remaining)."),
  "X-RateLimit-Remaining": integerHeader("Requests left in the binding window."),
  "X-RateLimit-Reset": integerHeader("Unix timestamp (seconds) at which the binding window resets."),
  RateLimit: { description: 'IETF RateLimit field for the binding window: "<name>";r=<remaining>;t=<seconds to reset>.', schema: { type: "string" } },
  "RateLimit-Policy": {
    description: 'IETF RateLimit-Policy: every window counted, "<name>";q=<quota>;w=<seconds>, comma-separated.',
    schema: { type: "string" },
  },
  "Retry-After": integerHeader("Seconds to wait before retrying."),
  Allow: { description: "The methods the path takes.", schema: { type: "string" } },
} as const;
type HeaderName = keyof typeof RESPONSE_HEADERS;
const RATE_LIMIT_HEADERS: HeaderName[] = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"];

function parameters(spec: AnyRouteSpec, schemas: SchemaComponents): Json[] {
  const out: Json[] = [];
  const add = (s: z.ZodType | undefined, where: "path" | "query") => {
    if (!s) return;
    const js = schemas.convert(s, "input") as { properties?: Record<string, Json>; required?: string[]; $ref?: string };
    // Parameters are read off the object's properties: a named parameter object would hide them.
    if (js.$ref) throw new Error(`OpenAPI: ${spec.operationId}'s ${where} parameters are a named schema (${js.$ref})`);
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === "path" || (js.required ?? []).includes(name), schema: prop });
    }
  };
  add(spec.params, "path");
  add(spec.query, "query");
  return out;
}

/**
 * Security requirements per access. A fire may carry its trigger's secret in the body's
 * `trigger_secret` instead of the header (the spec's alternative); a security scheme cannot name a body
 * field, so the empty requirement `{}` says "or no header", and the body field says what then proves
 * the caller. Without it a validating proxy or a generated client refuses a fire with the secret in
 * the body.
 */
const SECURITY: Record<AnyRouteSpec["access"], Json[]> = {
  public: [],
  trigger_secret: [{ triggerSecret: [] }, {}],
  operator: [{ operatorToken: [] }],
  api_key: [{ apiKey: [] }],
  user: [{ apiKey: [] }, { sessionJwt: [] }],
};

export function buildOpenApi(routes: AnyRouteSpec[], info: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  const rated: HeaderName[] = ["X-Request-Id", ...RATE_LIMIT_HEADERS];
  const rateExempt: HeaderName[] = ["X-Request-Id"];
  const errorResponses = new ErrorResponses({ rated, rateExempt });
  const schemas = new SchemaComponents();
  const schema = (s: z.ZodType, io: "input" | "output") => schemas.convert(s, io);
  for (const spec of routes) {
    const exempt = spec.rateClass === "exempt";
    const headers = exempt ? rateExempt : rated;
    const responses: Json = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const contentType = r.contentType ?? "application/json";
      responses[status] = {
        description: r.description,
        headers: headerRefs(headers),
        ...(r.schema
          ? { content: { [contentType]: { schema: schema(r.schema, "output") } } }
          : r.contentType
            ? { content: { [contentType]: { schema: {} } } }
            : {}),
      };
    }
    Object.assign(responses, errorResponses.forOperation(routeErrors(spec), { rateExempt: exempt }));
    const operation: Json = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      parameters: parameters(spec, schemas),
      responses,
      security: SECURITY[spec.access],
      "x-role": spec.role,
      "x-rate-class": spec.rateClass,
    };
    // An empty body reads as `{}` (readJsonBody): the body is optional where `{}` is a valid one.
    if (spec.body)
      operation.requestBody = { required: !spec.body.safeParse({}).success, content: { "application/json": { schema: schema(spec.body, "input") } } };
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
  const errorBodies = Object.fromEntries(ERROR_NAMES.map((name) => [errorComponent(name), schema(errorBodySchema(name), "output")]));
  const named = schemas.finish(Object.keys(errorBodies));
  return {
    openapi: "3.1.0",
    info: {
      title: "Incumbent API",
      version: info.version,
      description:
        "Solve, compare and trigger LP/MILP solves. The resources (ExecutionView, ComparisonDetail, Trigger, Problem…) are named schemas in components.schemas, written once and referred to with $ref; a request's variant of one that reads differently as a request (defaults, open objects) is named …Input. Every error name has its own body schema (components.schemas); each operation's error responses point at the shared ones in components.responses, named by the error names each status may carry; a path answered with another method gets 405 MethodNotAllowed with Allow, an unknown path 404 NotFound. Every response but health's carries the rate-limit headers.",
    },
    // A relative URL: the API is on the host that serves this document (OpenAPI 3.1, Server Object).
    servers: [info.serverUrl ? { url: info.serverUrl } : { url: "/", description: "The host serving this document" }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key from POST /api/v2/keys" },
        sessionJwt: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A session token from POST /api/v2/auth/login" },
        triggerSecret: {
          type: "http",
          scheme: "bearer",
          description: "The trigger's own secret as Authorization: Bearer <secret>; or, instead of the header, the request body's trigger_secret",
        },
        operatorToken: {
          type: "http",
          scheme: "bearer",
          description: "The instance operator's token (inc_op_…; the instance is configured with its SHA-256 in OPERATOR_TOKEN_SHA256)",
        },
      },
      headers: RESPONSE_HEADERS,
      responses: errorResponses.all(),
      schemas: { ...errorBodies, ...named },
    },
  };
}
