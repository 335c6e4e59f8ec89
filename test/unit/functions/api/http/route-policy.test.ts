import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeErrors, routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { errorComponent } from "../../../../../functions/api/openapi/error-responses.js";
import { CONSOLE_PATHS } from "../../../../../functions/api/routes/console.js";
import { ROLES } from "../../../../../functions/core/auth/roles.js";
import { ERROR_NAMES, ERROR_REGISTRY, type ErrorName } from "../../../../../functions/core/errors.js";
import { RATE_CLASS_NAMES } from "../../../../../functions/core/limits/rate-limits.js";
import { fakeApp } from "../../../../support/fake-api.js";

const { app } = fakeApp();
const specs = routesOf(app);

describe("route policy: every route declares who may call it, how often, and what it answers", () => {
  it("registers every route of the app through its declaration (none bypasses admission)", () => {
    const declared = new Set(specs.map((s) => `${s.method.toUpperCase()} ${s.path}`));
    const handlers = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
    expect(handlers.length).toBeGreaterThan(50);
    // The one exemption: the web console's static files, GET only and outside /api (routes/console.ts).
    const exempt = new Set(CONSOLE_PATHS.map((p) => `GET ${p}`));
    for (const h of handlers) if (!exempt.has(h)) expect(declared, `${h} is not declared through route()`).toContain(h);
    expect(handlers.filter((h) => exempt.has(h)).sort()).toEqual([...exempt].sort());
    for (const p of CONSOLE_PATHS) expect(p.startsWith("/api")).toBe(false);
    for (const s of specs) expect(s.path.startsWith("/api/"), `${s.operationId} is declared outside /api`).toBe(true);
  });

  it.each(specs.map((s) => [s.operationId, s] as const))("%s names a role, a rate class and its errors", (_id, spec) => {
    expect(RATE_CLASS_NAMES).toContain(spec.rateClass);
    expect(Array.isArray(spec.errors)).toBe(true);
    for (const e of spec.errors) expect(ERROR_NAMES).toContain(e);
    if (spec.access === "user" || spec.access === "api_key") expect(ROLES).toContain(spec.role);
    else expect(spec.role).toBeNull();
  });

  it("leaves no role check or path classification in the route files", () => {
    const dir = path.resolve(import.meta.dirname, "../../../../../functions/api/routes");
    for (const file of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, file), "utf8");
      expect(text, file).not.toMatch(/requireRole\(|classifyEndpoint|404: \{ description: "not_found" \}/);
    }
  });
});

describe("the OpenAPI document lists, for every operation, exactly the errors its declaration gives", () => {
  const doc = buildOpenApi(specs, { version: "test" }) as any;
  const components = doc.components.schemas as Record<string, unknown>;

  const sharedResponse = (ref: string) => {
    const prefix = "#/components/responses/";
    expect(ref.startsWith(prefix), ref).toBe(true);
    return doc.components.responses[ref.slice(prefix.length)];
  };

  it("writes each error response once, named by its error names, and every one is used", () => {
    const used = new Set(
      Object.values<any>(doc.paths)
        .flatMap((methods) => Object.values<any>(methods))
        .flatMap((op) => Object.values<any>(op.responses))
        .map((r) => r.$ref)
        .filter(Boolean),
    );
    const written = Object.keys(doc.components.responses).map((name) => `#/components/responses/${name}`);
    expect(written.sort()).toEqual([...used].sort());
    expect(doc.components.responses.NotFound.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/NotFound" });
    const conflict = doc.components.responses.ConflictOrTriggerDisabled;
    expect(conflict.content["application/json"].schema.oneOf).toHaveLength(2);
    expect(doc.components.responses.InternalErrorRateExempt.headers).toEqual({ "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } });
  });

  it("has one body schema per error name, generated from the registry", () => {
    for (const name of ERROR_NAMES) expect(components[errorComponent(name)], name).toBeDefined();
    expect(components.NoSolverCanRunThisModel).toMatchObject({ properties: { reasons: { type: "object" } }, additionalProperties: false });
    expect(components.DailySolveQuotaExceeded).toMatchObject({ required: expect.arrayContaining(["needed", "spent", "limit"]) });
    expect(components.ValidationError).toMatchObject({ properties: { detail: { type: "array" } } });
    expect(components.RateLimitExceeded).toMatchObject({ properties: { retry_after: { type: "integer" } } });
  });

  it("resolves every $ref it holds, and gives every operation a success response and a unique id", () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(schemas|headers|responses)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(100);
    for (const [, kind, name] of refs) expect(doc.components[kind!][name!], `${kind}/${name}`).toBeDefined();
    const ids = specs.map((s) => s.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const spec of specs)
      expect(
        Object.keys(spec.responses).some((st) => Number(st) < 400),
        spec.operationId,
      ).toBe(true);
  });

  it.each(specs.map((s) => [s.operationId, s] as const))("%s", (_id, spec) => {
    const op = doc.paths[spec.path.replace(/:([A-Za-z_]+)/g, "{$1}")][spec.method];
    const documented: string[] = [];
    for (const [status, response] of Object.entries<any>(op.responses)) {
      // A declared response (MCP's transport answers JSON-RPC errors itself) is not a registry error.
      if (Number(status) < 400 || status in spec.responses) continue;
      // Written once in components.responses, named by the error names the status may carry.
      const shared = sharedResponse(response.$ref);
      const body = shared.content["application/json"].schema;
      const refs: string[] = (body.oneOf ?? [body]).map((r: { $ref: string }) => r.$ref.split("/").pop());
      for (const r of refs) {
        const name = ERROR_NAMES.find((n) => errorComponent(n) === r) as ErrorName;
        expect(ERROR_REGISTRY[name].status, `${r} under ${status}`).toBe(Number(status));
        documented.push(name);
      }
      expect(Object.keys(shared.headers)).toContain("X-Request-Id");
      if (spec.rateClass !== "exempt") expect(Object.keys(shared.headers)).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "RateLimit-Policy"]));
      else expect(Object.keys(shared.headers)).not.toContain("X-RateLimit-Limit");
      if (status === "429") expect(Object.keys(shared.headers)).toContain("Retry-After");
    }
    expect(documented.sort()).toEqual(routeErrors(spec).sort());
  });
});
