import { describe, expect, it } from "vitest";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { fakeApp } from "../../../../support/fake-api.js";

/** Issue 14, Builds 3–4: every new field and error is in the OpenAPI document. */
const doc: any = buildOpenApi(routesOf(fakeApp().app), { version: "test" });

function resolve(node: any): any {
  let out = node;
  while (out?.$ref)
    out = out.$ref
      .split("/")
      .slice(1)
      .reduce((at: any, key: string) => at[key], doc);
  return out;
}
const requestSchema = (path: string, method: string) => resolve(doc.paths[path][method].requestBody.content["application/json"].schema);
const responseSchema = (path: string, method: string, status: string) =>
  resolve(resolve(doc.paths[path][method].responses[status]).content["application/json"].schema);
const property = (schema: any, name: string) => resolve(resolve(schema).properties?.[name]);

describe("OpenAPI: priority and scheduled triggers", () => {
  it("documents priority (-100..100, default 0) on solves, async solves, comparisons, matrices, triggers and document runs", () => {
    for (const [path, method] of [
      ["/api/v2/solve", "post"],
      ["/api/v2/solve/async", "post"],
      ["/api/v2/solvers/compare", "post"],
      ["/api/v2/solvers/compare/batches", "post"],
      ["/api/v2/triggers", "post"],
      ["/api/v2/models/{document_id}/execute", "post"],
    ] as const) {
      const priority = property(requestSchema(path, method), "priority");
      expect(priority, `${method} ${path}`).toMatchObject({ type: "integer", minimum: -100, maximum: 100, default: 0 });
      expect(priority.description).toMatch(/admin/);
    }
    expect(property(requestSchema("/api/v2/triggers/{trigger_id}", "patch"), "priority")).toMatchObject({ type: "integer", minimum: -100, maximum: 100 });
    expect(property(responseSchema("/api/v2/models/executions/{execution_id}", "get", "200"), "priority")).toMatchObject({ type: "integer" });
  });

  it("documents the trigger's schedule, next_fire_at and the schedule run source", () => {
    for (const [path, method] of [
      ["/api/v2/triggers", "post"],
      ["/api/v2/triggers/{trigger_id}", "patch"],
    ] as const) {
      const schedule = property(requestSchema(path, method), "schedule");
      const object = resolve((schedule.anyOf ?? schedule.oneOf ?? [schedule]).find((s: any) => resolve(s).type === "object"));
      expect(Object.keys(object.properties).sort()).toEqual(["expression", "timezone"]);
      expect(object.properties.expression.description).toMatch(/rate\(.*cron\(.*at\(/);
    }
    const view = responseSchema("/api/v2/triggers/{trigger_id}", "get", "200");
    for (const name of ["priority", "schedule", "next_fire_at"]) expect(view.required, name).toContain(name);
    const run = responseSchema("/api/v2/triggers/{trigger_id}/runs/{run_id}", "get", "200");
    expect(property(run, "source").enum).toContain("schedule");
  });

  it("documents the cap's 403 cron_schedule_limit_exceeded on create and change", () => {
    for (const [path, method] of [
      ["/api/v2/triggers", "post"],
      ["/api/v2/triggers/{trigger_id}", "patch"],
    ] as const) {
      const refusal = JSON.stringify(resolve(doc.paths[path][method].responses["403"]));
      const bodies = JSON.stringify(resolve(resolve(doc.paths[path][method].responses["403"]).content["application/json"].schema));
      expect(refusal + bodies, `${method} ${path}`).toContain("cron_schedule_limit_exceeded");
    }
  });
});
