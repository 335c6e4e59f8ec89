import { describe, expect, it } from "vitest";
import { z } from "zod";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { errorComponent } from "../../../../../functions/api/openapi/error-responses.js";
import { SchemaComponents } from "../../../../../functions/api/openapi/schema-components.js";
import { ERROR_NAMES } from "../../../../../functions/core/errors.js";
import { SCHEMA_NAMES } from "../../../../../functions/core/schema-names.js";
import { fakeApp } from "../../../../support/fake-api.js";

// Names of this file's own schemas; SCHEMA_NAMES is one registry per process, so they are unusual names.
const Limits = z.object({ seconds: z.number().default(60) }).register(SCHEMA_NAMES, { id: "TestComponentsLimits" });
const Colour = z.enum(["red", "green"]).register(SCHEMA_NAMES, { id: "TestComponentsColour" });
const Job = z.object({ limits: Limits, colour: Colour.describe("the job's colour") }).register(SCHEMA_NAMES, { id: "TestComponentsJob" });

describe("SchemaComponents: a schema declared with an id is written once and referred to", () => {
  it("writes a response's named schemas under their ids, nested ones as references too", () => {
    const schemas = new SchemaComponents();
    const body = schemas.convert(z.object({ job: Job, jobs: z.array(Job) }), "output");
    expect(body.properties).toEqual({
      job: { $ref: "#/components/schemas/TestComponentsJob" },
      jobs: { type: "array", items: { $ref: "#/components/schemas/TestComponentsJob" } },
    });
    expect(body.$defs).toBeUndefined();
    const named = schemas.finish();
    expect(Object.keys(named)).toEqual(["TestComponentsColour", "TestComponentsJob", "TestComponentsLimits"]);
    expect(named.TestComponentsJob).toMatchObject({ properties: { limits: { $ref: "#/components/schemas/TestComponentsLimits" } } });
    expect(named.TestComponentsLimits).toMatchObject({ required: ["seconds"], additionalProperties: false });
  });

  it("names a request's variant apart (…Input) where it differs from the response's, and shares one that is the same", () => {
    const schemas = new SchemaComponents();
    const request = schemas.convert(z.object({ job: Job }), "input");
    const response = schemas.convert(Job, "output");
    expect(response).toEqual({ $ref: "#/components/schemas/TestComponentsJob" });
    const named = schemas.finish();
    expect(request.properties).toEqual({ job: { $ref: "#/components/schemas/TestComponentsJobInput" } });
    // A default makes the field optional in a request, and a request's object is open.
    expect(named.TestComponentsLimitsInput).toEqual({ type: "object", properties: { seconds: { type: "number", default: 60 } } });
    expect(named.TestComponentsJobInput).toMatchObject({ properties: { limits: { $ref: "#/components/schemas/TestComponentsLimitsInput" } } });
    // The enum renders the same both ways: one component.
    expect(named.TestComponentsColourInput).toBeUndefined();
    expect(named.TestComponentsJobInput).toMatchObject({ properties: { colour: { $ref: "#/components/schemas/TestComponentsColour" } } });
    // A description given where a named schema is used stays there, beside the reference.
    expect(named.TestComponentsJob).toMatchObject({
      properties: { colour: { $ref: "#/components/schemas/TestComponentsColour", description: "the job's colour" } },
    });
  });

  it("leaves zod's other conversions alone: the MCP SDK's tool schemas keep named schemas inline", () => {
    expect(JSON.stringify(z.toJSONSchema(z.object({ job: Job }), { io: "input" }))).not.toContain("$ref");
  });

  it("keeps the id for a schema only requests carry", () => {
    const schemas = new SchemaComponents();
    schemas.convert(z.object({ limits: Limits }), "input");
    expect(Object.keys(schemas.finish())).toEqual(["TestComponentsLimits"]);
  });

  it("refuses two different schemas under one id, and an id an error body's component already has", () => {
    const schemas = new SchemaComponents();
    schemas.convert(Limits, "output");
    const impostor = z.object({ minutes: z.number() }).register(SCHEMA_NAMES, { id: "TestComponentsLimits" });
    expect(() => schemas.convert(impostor, "output")).toThrow(/two different output schemas carry the id TestComponentsLimits/);
    const reserved = new SchemaComponents();
    reserved.convert(Colour, "output");
    expect(() => reserved.finish(["TestComponentsColour"])).toThrow(/also an error body's component name/);
  });
});

describe("the served document names the API's nouns", () => {
  const doc = buildOpenApi(routesOf(fakeApp().app), { version: "test" }) as any;
  const text = JSON.stringify(doc);
  const schemaOf = (path: string, method: string, status: string, type = "application/json") => doc.paths[path][method].responses[status].content[type].schema;

  it("answers the resources with references to their components", () => {
    expect(schemaOf("/api/v2/models/executions/{execution_id}", "get", "200")).toEqual({ $ref: "#/components/schemas/ExecutionView" });
    expect(schemaOf("/api/v2/solve", "post", "200")).toEqual({ $ref: "#/components/schemas/SolveResponse" });
    expect(schemaOf("/api/v2/solvers/compare/{comparison_id}", "get", "200")).toEqual({ $ref: "#/components/schemas/ComparisonDetail" });
    expect(schemaOf("/api/v2/solvers/compare/batches/{batch_id}", "get", "200")).toEqual({ $ref: "#/components/schemas/MatrixDetail" });
    expect(schemaOf("/api/v2/triggers/{trigger_id}", "get", "200")).toEqual({ $ref: "#/components/schemas/Trigger" });
    expect(schemaOf("/api/v2/triggers/{trigger_id}/runs/{run_id}", "get", "200")).toEqual({ $ref: "#/components/schemas/TriggerRun" });
    expect(doc.paths["/api/v2/solve"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SolveRequest" });
    const schemas = doc.components.schemas;
    expect(schemas.ComparisonDetail.properties.results).toEqual({ type: "array", items: { $ref: "#/components/schemas/ComparisonRow" } });
    // A solve body's problem is the request variant; the preview answers the response variant.
    expect(schemas.SolveRequest.properties.problem).toEqual({ $ref: "#/components/schemas/ProblemInput" });
    expect(schemaOf("/api/v2/solve/import/preview", "post", "200").properties.problem).toMatchObject({ $ref: "#/components/schemas/Problem" });
  });

  it("keeps no converter leftovers and no unused named schema", () => {
    expect(text).not.toContain("$defs");
    // The error bodies are there whether or not an operation answers them (405 MethodNotAllowed is answered by none).
    const errorBodies = new Set(ERROR_NAMES.map(errorComponent));
    const named = Object.keys(doc.components.schemas).filter((name) => !errorBodies.has(name));
    expect(named.length).toBeGreaterThan(20);
    for (const name of named) expect(text.includes(`"$ref":"#/components/schemas/${name}"`), `${name} is never referred to`).toBe(true);
  });
});
