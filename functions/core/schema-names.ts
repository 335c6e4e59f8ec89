import { z } from "zod";

/**
 * The names of the API's nouns in its OpenAPI document: a schema added here with an id, beside its
 * declaration (`SCHEMA_NAMES.add(ExecutionViewSchema, { id: "ExecutionView" })`), is written once
 * under `components.schemas` and referred to with `$ref` (functions/api/openapi/schema-components.ts).
 * A registry of its own rather than zod's global one (`.meta({ id })`): every other conversion of these
 * schemas to JSON Schema reads the global registry — the MCP SDK's, for its tools' input schemas — and
 * an id there would turn their nested problem and settings into `definitions` and `$ref`s too.
 */
export const SCHEMA_NAMES = z.registry<{ id: string }>();
