import { describe, expect, it } from "vitest";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { renderReference } from "../../../../../functions/api/openapi/reference-page.js";
import { ERROR_REGISTRY } from "../../../../../functions/core/errors.js";
import { fakeApp } from "../../../../support/fake-api.js";

const doc = buildOpenApi(routesOf(fakeApp().app), { version: "test" }) as Record<string, any>;

/** The readable reference reads an error response where the document writes it once: components.responses. */
describe("the reference page's error responses", () => {
  it("are the shared responses' descriptions, not empty ones", () => {
    const keyDelete = doc.paths["/api/v2/keys/{key_id}"].delete;
    expect(keyDelete.responses["404"]).toEqual({ $ref: "#/components/responses/NotFound" });
    const html = renderReference(doc);
    const section = html.slice(html.indexOf(`<section id="${keyDelete.operationId}"`));
    const responses = section.slice(0, section.indexOf("</section>"));
    const described = ERROR_REGISTRY.not_found.description.replace(/'/g, "&#39;");
    expect(responses).toContain(`<code>404</code> not_found: ${described}`);
    expect(responses).not.toContain("undefined");
  });
});

/** A named schema is a `$ref` into components.schemas: the page lists its fields where it is used. */
describe("the reference page's named schemas", () => {
  it("lists a referenced schema's fields, and names the schema as a field's type", () => {
    const view = doc.paths["/api/v2/models/executions/{execution_id}"].get;
    expect(view.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ExecutionView" });
    const html = renderReference(doc);
    const section = html.slice(html.indexOf(`<section id="${view.operationId}"`));
    const responses = section.slice(0, section.indexOf("</section>"));
    expect(responses).toContain("<code>explanation_execution_id</code>");
    expect(responses).toContain("<code>SolveResponse | null</code>");
  });
});
