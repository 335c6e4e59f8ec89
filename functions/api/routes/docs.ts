import type { Hono } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route, routesOf } from "../http/route.js";
import { buildOpenApi } from "../openapi/document.js";
import { renderReference } from "../openapi/reference-page.js";

export function registerDocsRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "config">): void {
  // Built and serialized once per process: the document is about 0.5 MB, and an anonymous request must not
  // cost its serialization each time (it used to be most of the API's CPU under a fuzz of this route).
  let cached: { json: string; html: string } | null = null;
  const build = (version: string) => {
    if (!cached) {
      const doc = buildOpenApi(routesOf(app), { version });
      cached = { json: JSON.stringify(doc), html: renderReference(doc) };
    }
    return cached;
  };

  route(
    app,
    {
      method: "get",
      path: "/api/v2/openapi.json",
      operationId: "openapi",
      summary: "This API's OpenAPI 3.1 document",
      tag: "Docs",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: [],
      responses: { 200: { description: "Generated from the same zod schemas that validate requests.", schema: z.record(z.string(), z.unknown()) } },
    },
    (c) => c.body(build(deps.config.apiVersion).json, 200, { "content-type": "application/json" }),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/docs",
      operationId: "docs",
      summary: "Readable API reference (HTML, no external assets)",
      tag: "Docs",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: [],
      responses: { 200: { description: "HTML page.", contentType: "text/html", schema: z.string() } },
    },
    (c) => c.html(build(deps.config.apiVersion).html),
  );
}
