import { z } from "zod";
import { RaceRequestSchema } from "../races/schemas.js";
import { ProblemSchema } from "../problem/schema.js";
import { PrioritySchema } from "../queue/priority.js";
import { SettingsRequestSchema } from "../solvers/settings.js";
import { SolverChoiceSchema } from "../solvers/types.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * Builder documents (the shapes are ours: the spec only names them; docs/decisions.md, "Builder
 * documents"). A document holds a model and the solver it names; every save is a version, optionally named.
 */
const JsonObject = z.record(z.string(), z.unknown());

export const DocumentModelSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("jmodel"),
    source: z.string().min(1).max(1_000_000).describe("JModel source (docs/jmodel.md)"),
    data: JsonObject.default({}).describe("default data: sets and parameters; trigger overrides replace named ones"),
  }),
  z.object({ kind: z.literal("problem"), problem: ProblemSchema.describe("a canonical problem, the shape the plain solve takes") }),
]);
SCHEMA_NAMES.add(DocumentModelSchema, { id: "DocumentModel" });
export type DocumentModel = z.infer<typeof DocumentModelSchema>;

export const CreateDocumentSchema = z.object({
  name: z.string().min(1).max(200),
  model: DocumentModelSchema,
  solver_name: SolverChoiceSchema.default("auto").describe("the solver the document names; auto picks per problem class"),
});

export const CreateVersionSchema = z.object({
  model: DocumentModelSchema.optional().describe("the latest version's model when omitted"),
  solver_name: SolverChoiceSchema.optional().describe("the latest version's solver when omitted"),
  name: z.string().min(1).max(200).optional().describe("a named version is never pruned"),
});

export const ExecuteDocumentSchema = z.object({
  version_id: z.string().min(1).optional().describe("the latest version when omitted"),
  override_data: JsonObject.optional().describe("named sets and parameters replacing the version's data; `solver_name` names a solver"),
  solver_name: SolverChoiceSchema.optional().describe("replaces the version's solver (an override_data solver_name wins over it)"),
  race: RaceRequestSchema.optional(),
  settings: SettingsRequestSchema.optional(),
  priority: PrioritySchema,
});

export const CreatedDocumentSchema = z.object({ id: z.string(), version_id: z.string(), name: z.string(), created_at: z.string() });
export const CreatedVersionSchema = z.object({
  id: z.string(),
  document_id: z.string(),
  number: z.number().int(),
  name: z.string().nullable(),
  created_at: z.string(),
});

export const VersionSummarySchema = z.object({
  id: z.string(),
  document_id: z.string(),
  number: z.number().int(),
  name: z.string().nullable().describe("null for an unnamed version (pruned beyond DOCUMENT_UNNAMED_VERSIONS_KEPT)"),
  solver_name: SolverChoiceSchema,
  model_kind: z.enum(["jmodel", "problem"]),
  created_at: z.string(),
});
export const VersionViewSchema = VersionSummarySchema.extend({
  model: DocumentModelSchema,
  overridable: z.array(z.string()).describe("names an override may replace: the model's data-given sets and parameters"),
});
SCHEMA_NAMES.add(VersionViewSchema, { id: "DocumentVersion" });

export const DocumentViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_by: z.string(),
  version_count: z.number().int().describe("versions ever saved (pruned ones included)"),
  latest_version: VersionViewSchema,
  versions: z.array(VersionSummarySchema).describe("kept versions, newest first"),
  created_at: z.string(),
  updated_at: z.string(),
});
SCHEMA_NAMES.add(DocumentViewSchema, { id: "Document" });
export const DocumentListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  version_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ExecuteResponseSchema = z.object({ execution_id: z.string(), status: z.literal("queued"), version_id: z.string() });
