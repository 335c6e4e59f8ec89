import { describe, expect, it } from "vitest";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { fakeApp } from "../../../../support/fake-api.js";
import { inlineRefs } from "../../../../support/openapi-schemas.js";

const doc = buildOpenApi(routesOf(fakeApp().app), { version: "test" }) as any;

/** Follows a `$ref` into the document's components. */
const resolve = (node: any): any =>
  node?.$ref
    ? resolve(
        node.$ref
          .split("/")
          .slice(1)
          .reduce((n: any, k: string) => n[k], doc),
      )
    : node;

describe("the OpenAPI document carries explaining infeasibility", () => {
  const explain = doc.paths["/api/v2/models/executions/{execution_id}/explain"]?.post;

  it("has the explain operation: 202 with the new execution, 404, and the 409 when the execution is not infeasible", () => {
    expect(explain.operationId).toBe("explainExecution");
    expect(Object.keys(explain.responses)).toEqual(expect.arrayContaining(["202", "404", "409", "403", "422", "429"]));
    const conflict = JSON.stringify(explain.responses["409"]);
    expect(conflict).toContain("ExecutionNotInfeasible");
    const created = resolve(explain.responses["202"].content["application/json"].schema);
    expect(Object.keys(created.properties)).toEqual(expect.arrayContaining(["explains_execution_id", "explanation_execution_id"]));
  });

  it("describes the link on the execution view, the setting, and the result's infeasibility with family and index", () => {
    const view = resolve(doc.paths["/api/v2/models/executions/{execution_id}"].get.responses["200"].content["application/json"].schema);
    expect(view.properties.explanation_execution_id.description).toContain("explain");
    expect(resolve(view.properties.settings).properties.explain_infeasibility).toBeDefined();
    const solve = resolve(doc.paths["/api/v2/solve"].post.requestBody.content["application/json"].schema);
    expect(resolve(solve.properties.settings).properties.explain_infeasibility.description).toContain("infeasibility");
    const text = JSON.stringify(inlineRefs(doc, view));
    expect(text).toContain('"infeasibility"');
    expect(text).toContain("the index tuple within the family");
  });

  it("describes whether the infeasible verdict held: verdict_check, confirmed, refuted or unconfirmed, and by which solver (issue 24)", () => {
    const view = resolve(doc.paths["/api/v2/models/executions/{execution_id}"].get.responses["200"].content["application/json"].schema);
    const text = JSON.stringify(inlineRefs(doc, view));
    expect(text).toContain('"verdict_check"');
    for (const status of ["confirmed", "refuted", "unconfirmed"]) expect(text).toContain(`"${status}"`);
  });
});
