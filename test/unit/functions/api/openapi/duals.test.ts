import { describe, expect, it } from "vitest";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { fakeApp } from "../../../../support/fake-api.js";
import { inlineRefs } from "../../../../support/openapi-schemas.js";

type Json = { [key: string]: unknown };
const doc = buildOpenApi(routesOf(fakeApp().app), { version: "test" }) as Json;

/** Every object schema under `node` that lists `property`. */
function schemasWith(node: unknown, property: string, out: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const item of node) schemasWith(item, property, out);
  else if (node && typeof node === "object") {
    const properties = (node as Json).properties as Json | undefined;
    if (properties && property in properties) out.push(properties);
    for (const value of Object.values(node)) schemasWith(value, property, out);
  }
  return out;
}

describe("the OpenAPI document carries LP duals", () => {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  it.each([
    ["post", "/api/v2/solve"],
    ["get", "/api/v2/models/executions/{execution_id}"],
    ["get", "/api/v2/solvers/compare/{comparison_id}"],
  ])("%s %s documents duals, reduced_costs and duals_verified", (method, route) => {
    const found = schemasWith(inlineRefs(doc, paths[route]![method]), "duals_verified");
    expect(found.length).toBeGreaterThan(0);
    for (const properties of found) {
      expect(Object.keys(properties)).toEqual(expect.arrayContaining(["duals", "reduced_costs", "duals_verified"]));
      expect(JSON.stringify(properties.duals)).toContain("Aᵀy");
    }
  });
});
